/**
 * Which backend sandboxes servers on which OS: the one place in the
 * sandbox that asks which OS this is, and which user Airlock runs as
 * (a house lint rule, `airlock/platform-seam`, keeps it so).
 */
import type { CapabilityProbe } from '../executables';
import type { GuaranteeFacts, PlatformBackend, SandboxPlatform } from './backend';
import { darwinBackend } from './darwin';
import { linuxBackend } from './linux';
import { win32Backend } from './win32';

const BACKENDS: Record<SandboxPlatform, PlatformBackend> = { linux: linuxBackend, darwin: darwinBackend, win32: win32Backend };

/** The backend for a platform, or undefined where Airlock has none (then no server starts without consent). */
export function platformBackend(platform: string): PlatformBackend | undefined {
  return Object.hasOwn(BACKENDS, platform) ? BACKENDS[platform as SandboxPlatform] : undefined;
}

/** This machine, as the capability check and the launcher look at it: its OS and the PATH Airlock started with. */
export function thisMachine(): CapabilityProbe {
  return { platform: process.platform, pathEnv: process.env.PATH };
}

/** What about this Airlock process changes a guarantee (Linux: root's processes are not counted against the process limit). */
export function hostFacts(): GuaranteeFacts {
  return { runningAsRoot: process.geteuid?.() === 0 };
}

/** Whether Airlock has a backend for this platform name (`linux`, `darwin`, `win32`). */
export function isSandboxPlatform(platform: string): platform is SandboxPlatform {
  return Object.hasOwn(BACKENDS, platform);
}

export * from './backend';

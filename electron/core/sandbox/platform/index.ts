/**
 * Which backend sandboxes servers on which OS: the one place that asks.
 */
import type { PlatformBackend, SandboxPlatform } from './backend';
import { darwinBackend } from './darwin';
import { linuxBackend } from './linux';
import { win32Backend } from './win32';

const BACKENDS: Record<SandboxPlatform, PlatformBackend> = { linux: linuxBackend, darwin: darwinBackend, win32: win32Backend };

/** The backend for a platform, or undefined where Airlock has none (then no server starts without consent). */
export function platformBackend(platform: string): PlatformBackend | undefined {
  return Object.hasOwn(BACKENDS, platform) ? BACKENDS[platform as SandboxPlatform] : undefined;
}

/** Whether Airlock has a backend for this platform name (`linux`, `darwin`, `win32`). */
export function isSandboxPlatform(platform: string): platform is SandboxPlatform {
  return Object.hasOwn(BACKENDS, platform);
}

export * from './backend';

/**
 * sandbox-runtime's Windows module (srt-win, and the certificate code it
 * brings), loaded only where it is used: on Windows, before the first
 * Airlock host opens (`loadSandboxLibrary`), and anywhere for a Windows plan
 * asked for on another system. Loading it costs more than the rest of a
 * command like `airlock list`, so no other system pays for it at start.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { lazyModule } from '../../lazy-module';
import { SandboxInitError } from '../errors';

const library = lazyModule(
  () => import('@anthropic-ai/sandbox-runtime/dist/sandbox/windows-sandbox-utils.js'),
  () => new SandboxInitError("Airlock's Windows sandbox module was not loaded before it was needed, so nothing was started (this is a fault in Airlock)."),
);

/** Loads the module (idempotent). */
export const loadWindowsLibrary = library.load;

/**
 * The module, once loaded. SECURITY (fail closed): used before it was loaded,
 * it throws — the sandbox is then reported unavailable and nothing starts.
 */
export const windowsLibrary = library.get;

/** The ports the install's firewall filter lets the sandbox's user reach (sandbox-runtime's DEFAULT_WINDOWS_PROXY_PORT_RANGE; a test holds them equal). */
export const WINDOWS_PORT_RANGE: readonly [number, number] = [60080, 60089];

/** The srt-win program packaged with the pinned sandbox-runtime, as its VENDORED_SRT_WIN_EXE names it (a test holds them equal). */
export function vendoredSrtWinExe(arch: string = process.arch): string {
  const root = dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime/package.json'));
  return join(root, 'vendor', 'srt-win', arch, 'srt-win.exe');
}

/**
 * sandbox-runtime's macOS module (the Seatbelt profile it generates, its
 * `log stream` monitor, and the package's shared sandbox code it brings),
 * loaded only where it is used: on macOS, before the first Airlock host
 * opens (`loadSandboxLibrary`), and anywhere for a macOS plan asked for on
 * another system. Loading it costs about as much as the rest of a command
 * like `airlock list` spends on sandboxing, so no other system pays for it at start.
 */
import { lazyModule } from '../../lazy-module';
import { SandboxInitError } from '../errors';

const library = lazyModule(
  () => import('@anthropic-ai/sandbox-runtime/dist/sandbox/macos-sandbox-utils.js'),
  () => new SandboxInitError("Airlock's macOS sandbox module was not loaded before it was needed, so nothing was started (this is a fault in Airlock)."),
);

/** Loads the module (idempotent). */
export const loadMacosLibrary = library.load;

/**
 * The module, once loaded. SECURITY (fail closed): used before it was loaded,
 * it throws — the sandbox is then reported unavailable and nothing starts.
 */
export const macosLibrary = library.get;

import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Where an Electron binary was found, or why none could be used. */
export type ElectronLookup = { path: string } | { reason: string };

/** What {@link findElectron} looks at; every field defaults to the real machine. */
export interface ElectronLookupOptions {
  /** Environment to read `ELECTRON_OVERRIDE_DIST_PATH` from. */
  env?: NodeJS.ProcessEnv;
  /** Folder of the `electron` npm package (holds `path.txt` and `dist/` once downloaded). */
  electronPackageDir?: string;
  /** Platform whose executable name to expect. */
  platform?: NodeJS.Platform;
}

/** The hint every "not found" reason ends with. */
export const ELECTRON_BINARY_HINT =
  'set ELECTRON_OVERRIDE_DIST_PATH=<folder containing the electron executable>, or download it with `node node_modules/electron/install.js`';

/**
 * Finds an Electron binary for the smoke test without triggering the
 * `electron` package's lazy download (a plain `require('electron')` tries to
 * download and throws where the network is closed).
 *
 * Mirrors `node_modules/electron/index.js`: `ELECTRON_OVERRIDE_DIST_PATH` wins
 * when set (and is then the only place looked at, so a wrong override is
 * reported rather than silently replaced); otherwise the binary named by
 * `path.txt` under the package's `dist/`.
 */
export function findElectron(options: ElectronLookupOptions = {}): ElectronLookup {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const packageDir = options.electronPackageDir ?? defaultElectronPackageDir();
  const recorded = packageDir === undefined ? undefined : readPathTxt(packageDir);
  const executable = recorded ?? platformExecutable(platform);

  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override !== undefined && override !== '') {
    const candidate = join(override, executable);
    const problem = unusable(candidate, platform);
    return problem === undefined
      ? { path: candidate }
      : { reason: `ELECTRON_OVERRIDE_DIST_PATH=${override} has no usable Electron: ${candidate} ${problem}` };
  }

  if (packageDir === undefined) {
    return { reason: `no Electron binary: the electron npm package is not installed (${ELECTRON_BINARY_HINT})` };
  }
  if (recorded === undefined) {
    return { reason: `no Electron binary: it was never downloaded (${ELECTRON_BINARY_HINT})` };
  }
  const candidate = join(packageDir, 'dist', recorded);
  const problem = unusable(candidate, platform);
  return problem === undefined
    ? { path: candidate }
    : { reason: `no Electron binary: ${candidate} ${problem} (${ELECTRON_BINARY_HINT})` };
}

/** The executable's path inside an Electron dist folder, as electron's install.js names it. */
export function platformExecutable(platform: NodeJS.Platform): string {
  switch (platform) {
    case 'darwin':
      return 'Electron.app/Contents/MacOS/Electron';
    case 'win32':
      return 'electron.exe';
    default:
      return 'electron';
  }
}

function defaultElectronPackageDir(): string | undefined {
  try {
    // Resolving package.json runs none of the package's code (index.js would download).
    return dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
}

function readPathTxt(packageDir: string): string | undefined {
  try {
    const text = readFileSync(join(packageDir, 'path.txt'), 'utf8').trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

/** Why `file` cannot be launched, or undefined when it can. */
function unusable(file: string, platform: NodeJS.Platform): string | undefined {
  try {
    if (!statSync(file).isFile()) return 'is not a file';
  } catch {
    return 'does not exist';
  }
  if (platform === 'win32') return undefined;
  try {
    accessSync(file, constants.X_OK);
    return undefined;
  } catch {
    return 'is not executable';
  }
}

/**
 * Plan inputs for another platform, built the way the launcher builds them
 * (`fileRules` from the same parts, the backend's own credential list), but
 * with that platform's paths: a Mac's `/Users/ann/…`, a Windows
 * `C:\Users\ann\…`. The backends' plans are pure, so they run here on Linux.
 */
import { posix, win32 } from 'node:path';
import { fileRules } from '../../../../electron/core/sandbox/launch-inputs';
import { DEFAULT_LIMITS } from '../../../../electron/core/sandbox/launcher';
import type { PlanInput, PlatformBackend, ProxyEndpoint } from '../../../../electron/core/sandbox/platform';

/** The server the issue asks about: a read grant, a write grant inside home, a network allowlist and a secret. */
export interface World {
  home: string;
  readGrant: string;
  writeGrant: string;
  dataDir: string;
  otherDataFolder: string;
  codeDir: string;
  runtimeDir: string;
  runtimeParent: string;
  writable: string;
  serverDataDir: string;
  command: string;
  script: string;
}

export function macWorld(): World {
  const home = '/Users/ann';
  const dataDir = `${home}/Library/Application Support/Airlock`;
  const runtimeParent = '/private/var/folders/xy/abc123/T/airlock-sandbox-501';
  return {
    home,
    readGrant: `${home}/Documents/notes`,
    writeGrant: `${home}/code/proj`,
    dataDir,
    otherDataFolder: '/Volumes/Work/airlock-test-data',
    codeDir: `${dataDir}/servers/files/pkg`,
    runtimeDir: `${home}/.nvm/versions/node/v22.11.0`,
    runtimeParent,
    writable: `${runtimeParent}/run-a1b2c3/files-d4e5f6/w`,
    serverDataDir: `${dataDir}/servers/files/data`,
    command: `${home}/.nvm/versions/node/v22.11.0/bin/node`,
    script: `${dataDir}/servers/files/pkg/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`,
  };
}

export function windowsWorld(): World {
  const home = 'C:\\Users\\ann';
  const dataDir = `${home}\\AppData\\Roaming\\Airlock`;
  const runtimeParent = `${home}\\AppData\\Local\\Temp\\airlock-sandbox-user`;
  return {
    home,
    readGrant: `${home}\\Documents\\notes`,
    writeGrant: `${home}\\code\\proj`,
    dataDir,
    otherDataFolder: 'D:\\airlock-test-data',
    codeDir: `${dataDir}\\servers\\files\\pkg`,
    runtimeDir: 'C:\\Program Files\\nodejs',
    runtimeParent,
    writable: `${runtimeParent}\\run-a1b2c3\\files-d4e5f6\\w`,
    serverDataDir: `${dataDir}\\servers\\files\\data`,
    command: 'C:\\Program Files\\nodejs\\node.exe',
    script: `${dataDir}\\servers\\files\\pkg\\node_modules\\@modelcontextprotocol\\server-filesystem\\dist\\index.js`,
  };
}

export const PROXY_PORT = 60083;
export const CREDENTIAL = { user: 'airlock', token: 'c0ffee'.repeat(8) };
export const SECRET = { name: 'API_KEY', value: 'sk-secret-value' };

/** The input the launcher would give the backend for the world's server. */
export function planInputFor(
  backend: PlatformBackend,
  world: World,
  options: { exempt?: string[]; existingTrusted?: string[]; proxy?: boolean; persistentData?: boolean } = {},
): PlanInput {
  const path = backend.platform === 'win32' ? win32 : posix;
  const proxy: ProxyEndpoint | undefined = options.proxy === false ? undefined : { kind: 'tcp', host: '127.0.0.1', port: PROXY_PORT, credential: CREDENTIAL };
  const home = path.join(world.writable, 'home');
  const tmp = path.join(world.writable, 'tmp');
  const files = fileRules({
    homeDir: world.home,
    secretPaths: backend.secretPaths(world.home),
    dataFolders: [world.dataDir, world.otherDataFolder],
    hiddenFiles: [],
    hiddenRuntime: world.runtimeParent,
    scratchFolders: backend.scratchFolders,
    serverDataDir: world.serverDataDir,
    ...(options.persistentData ? { dataDir: world.serverDataDir } : {}),
    read: [world.readGrant],
    write: [world.writeGrant],
    codeDir: world.codeDir,
    codeDirs: backend.platform === 'win32' ? [] : [world.runtimeDir],
    writable: world.writable,
    exempt: options.exempt ?? [],
    existingTrusted: options.existingTrusted ?? [],
  });
  const url = `http://${CREDENTIAL.user}:${CREDENTIAL.token}@127.0.0.1:${PROXY_PORT}`;
  return {
    serverName: 'files',
    homeDir: world.home,
    command: world.command,
    args: [world.script, world.writeGrant],
    env: {
      PATH: backend.platform === 'win32' ? 'C:\\Program Files\\nodejs;C:\\Windows\\System32' : '/usr/bin:/bin',
      HOME: home,
      TMPDIR: tmp,
      TMP: tmp,
      TEMP: tmp,
      [SECRET.name]: SECRET.value,
      ...(proxy ? { HTTP_PROXY: url, HTTPS_PROXY: url, ALL_PROXY: url } : {}),
    },
    helperEnv: backend.platform === 'win32' ? { SystemRoot: 'C:\\Windows', ProgramData: 'C:\\ProgramData' } : {},
    cwd: world.codeDir,
    launchDir: world.writable,
    tmpDir: tmp,
    files,
    network: { allowedHosts: ['api.github.com'], questions: true, ...(proxy ? { proxy } : {}) },
    limits: { ...DEFAULT_LIMITS },
    facts: { runningAsRoot: false },
  };
}

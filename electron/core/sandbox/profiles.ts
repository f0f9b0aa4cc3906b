import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxProfile, ServerSpec } from '../../../shared/domain';

/**
 * The profile the install probe runs under: no network, no writes except the
 * launch's own temp folder, no secrets, no persistent data. The launcher's
 * `planProbe()` adds what a profile cannot say: the whole home folder
 * unreadable and no network proxy even when questions are enabled.
 */
export function strictestProfile(): SandboxProfile {
  return {
    filesystem: { read: [], write: [], persistentData: false },
    network: { allowedDomains: [] },
    secrets: [],
  };
}

/**
 * The profile the install probe runs under, from the one the server is about
 * to get: its read and write grants, read-only (a server that checks its
 * folders at start-up can start); no writes, no persistent data (the
 * launcher gives it a throwaway folder instead), no network, no secrets.
 */
export function probeProfile(intended: SandboxProfile): SandboxProfile {
  return {
    filesystem: {
      read: [...new Set([...intended.filesystem.read, ...intended.filesystem.write])],
      write: [],
      persistentData: false,
      ...(intended.filesystem.pinned ? { pinned: intended.filesystem.pinned } : {}),
    },
    network: { allowedDomains: [] },
    secrets: [],
    ...(intended.unsandboxed ? { unsandboxed: intended.unsandboxed } : {}),
  };
}

/** The variable that tells every server where its persistent data folder is (set only when it has one). */
export const SERVER_DATA_DIR_ENV = 'AIRLOCK_SERVER_DATA_DIR';

/**
 * Servers that document a setting of their own for where they keep data:
 * the setting, pointed into the server's data folder. Matched by the npm
 * package the server runs from (`…/node_modules/<package>/…` in its argv).
 * A value the person set in the server's environment wins.
 */
export const KNOWN_DATA_SETTINGS: ReadonlyArray<{ package: string; env: Record<string, string> }> = [
  // https://github.com/modelcontextprotocol/servers/tree/main/src/memory: MEMORY_FILE_PATH
  { package: '@modelcontextprotocol/server-memory', env: { MEMORY_FILE_PATH: 'memory.jsonl' } },
];

/** The known settings for this server (names → file names in its data folder), if it is one of them. */
export function dataSettingsFor(spec: ServerSpec): Record<string, string> {
  const argv = [spec.command, ...spec.args].map((word) => word.split('\\').join('/'));
  const out: Record<string, string> = {};
  for (const known of KNOWN_DATA_SETTINGS) {
    if (argv.some((word) => word.includes(`/node_modules/${known.package}/`))) Object.assign(out, known.env);
  }
  return out;
}

/**
 * Paths under the home folder no server may read unless the user grants that
 * exact path: credentials, keys, tokens, shell history, browser profiles,
 * keychains, password stores. The home folder as a whole is hidden already;
 * this list keeps them hidden under a grant or a runtime folder put back
 * (a read grant of `~/.config`, a runtime in `~/.cargo`).
 */
export const SECRET_HOME_PATHS: readonly string[] = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gcloud',
  '.azure',
  '.kube',
  '.docker',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.config/gh',
  '.config/hub',
  '.password-store',
  '.local/share/keyrings',
  '.pki',
  // tokens and credentials of everyday tools (the red team's list and kin)
  '.config/git/credentials',
  '.pgpass',
  '.my.cnf',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.config/rclone',
  '.terraform.d/credentials.tfrc.json',
  '.terraformrc',
  '.vault-token',
  '.config/op',
  '.config/sops',
  '.config/doctl',
  '.config/hcloud',
  '.config/helm',
  '.gem/credentials',
  '.nuget/NuGet/NuGet.Config',
  '.config/configstore',
  '.yarnrc.yml',
  '.config/Code/User/globalStorage',
  // Airlock's own: the audit log's anchor key and the list of data folders
  '.config/airlock-keys',
  '.local/state/airlock',
  // shell and REPL history (commands typed with secrets in them)
  '.bash_history',
  '.zsh_history',
  '.histfile',
  '.local/share/fish/fish_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.lesshst',
  '.viminfo',
  // browsers (Linux)
  '.mozilla',
  '.config/google-chrome',
  '.config/google-chrome-beta',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.config/opera',
  'snap/firefox',
  'snap/chromium',
  '.var/app',
  // macOS keychains, browser profiles and cookies
  'Library/Keychains',
  'Library/Cookies',
  'Library/Safari',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Firefox',
  'Library/Application Support/BraveSoftware',
  'Library/Application Support/Microsoft Edge',
  // sandbox-runtime's own convenience write folders: hidden so it does not
  // make them writable (they would be shared between servers)
  '.npm/_logs',
  '.claude',
];

/**
 * System files only root should read. They matter when Airlock itself runs
 * as root (containers, CI): the sandbox maps the same uid, so file modes
 * alone would let a server read them.
 */
export const SYSTEM_SECRET_PATHS: readonly string[] = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/sudoers.d',
  '/etc/security/opasswd',
  '/root/.ssh',
];

/** The SSH server's private host keys in its folder (`/etc/ssh`; macOS: `/private/etc/ssh`); none where it has no such folder. */
export function sshHostKeys(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((name) => /^ssh_host_.*_key$/.test(name))
      .map((name) => join(folder, name));
  } catch {
    // no SSH server here: no keys to hide
    return [];
  }
}

/** Absolute secret paths for one home folder, plus the system's own secrets and SSH host keys. */
export function secretPathsUnder(homeDir: string): string[] {
  return [...new Set([...SECRET_HOME_PATHS.map((rel) => join(homeDir, rel)), ...SYSTEM_SECRET_PATHS, ...sshHostKeys('/etc/ssh')])];
}

/** Host variables a server may see (values copied from Airlock's environment when set). */
const PASSED_THROUGH = ['PATH', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM', 'USER', 'LOGNAME'];

/**
 * The complete environment of a server: a minimal set from the host, what
 * the user granted (`spec.env`), the granted secrets, then what the sandbox
 * owns (home and temp folders, proxy settings), which always win.
 */
export function buildServerEnv(input: {
  hostEnv: NodeJS.ProcessEnv;
  specEnv: Record<string, string>;
  secrets: Record<string, string>;
  home: string;
  tmp: string;
  /** The server's persistent data folder, when it has one (then `SERVER_DATA_DIR_ENV` names it). */
  dataDir?: string;
  /** Known settings of this server for its data (variable → file name in `dataDir`), unless the person set them. */
  dataSettings?: Record<string, string>;
  proxy?: { url: string; socksUrl: string };
}): Record<string, string> {
  // SECURITY (invariant 5): start from nothing; the host's environment
  // (API keys, tokens, SSH_AUTH_SOCK, …) is never inherited.
  const env: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = input.hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  env.LANG ??= 'C.UTF-8';
  if (input.dataDir) {
    for (const [name, file] of Object.entries(input.dataSettings ?? {})) {
      if (input.specEnv[name] === undefined && input.secrets[name] === undefined) env[name] = join(input.dataDir, file);
    }
  }
  Object.assign(env, input.specEnv, input.secrets);
  if (input.dataDir) env[SERVER_DATA_DIR_ENV] = input.dataDir;
  Object.assign(env, {
    HOME: input.home,
    TMPDIR: input.tmp,
    TMP: input.tmp,
    TEMP: input.tmp,
    XDG_CONFIG_HOME: join(input.home, '.config'),
    XDG_CACHE_HOME: join(input.home, '.cache'),
    XDG_DATA_HOME: join(input.home, '.local', 'share'),
    XDG_STATE_HOME: join(input.home, '.local', 'state'),
  });
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'all_proxy', 'no_proxy']) {
    delete env[name];
  }
  if (input.proxy) {
    Object.assign(env, {
      HTTP_PROXY: input.proxy.url,
      HTTPS_PROXY: input.proxy.url,
      http_proxy: input.proxy.url,
      https_proxy: input.proxy.url,
      ALL_PROXY: input.proxy.socksUrl,
      all_proxy: input.proxy.socksUrl,
      // Node 24+ (Electron 45's runtime) honours the proxy variables in fetch only with this.
      NODE_USE_ENV_PROXY: '1',
    });
  }
  return env;
}

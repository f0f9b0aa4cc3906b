/**
 * What a shell (the Electron app, the CLI, a test) gives the core when it
 * builds one: its hooks (how to tell a window, whether a person can be asked,
 * its file picker and browser) and the host's options (the data folder, how
 * to keep the store and secrets, timings tests shorten).
 */
import type { SandboxSupport } from '../../shared/domain';
import type { EmitEvent, FilePickPurpose } from '../../shared/ipc';
import type { AuditFileSystem, AuditKey } from './audit';
import type { AuditExportRoomDeps } from './audit-export/audit-export-room';
import type { PolicySource } from './managed-policy/policy-sources';
import type { ScreenFrames } from './screens/screen-frames';
import type { ShellIdentity } from './ipc/shell-identity';
import type { RegistryRoomDeps } from './registry/registry-room';
import type { AirlockSandboxLauncher, SandboxLauncherOptions } from './sandbox/sandbox-launcher';
import type { SecretCipher } from './secrets/secret-store';
import type { SamplingModel } from './server-requests/sampling-model';
import type { ResolveHost } from './server-requests/elicitation-form';
import type { SupervisorOptions } from './servers/supervisor';
import type { StoreBackendFactory } from './store/store';

/** What a shell (the Electron app, the CLI, a test) gives the core. */
export interface HostHooks {
  /** Pushes an event to whatever shows Airlock's state (a window, nothing in the CLI). */
  emit: EmitEvent;
  /**
   * True when a person can be asked right now about a call that came
   * through `origin`: the window can be asked about any call; a terminal
   * only about the calls made through it. `origin` undefined: can anyone
   * here be asked at all (a network question, for the window or the owner's
   * own terminal)?
   */
  canAsk?: (origin?: string) => boolean;
  /**
   * This process's own shell: the window (the app, and tests by default), or
   * the terminal of the `airlock` process that owns the servers. A server's
   * question is routed to it when `canAsk()` says it can ask.
   */
  ownShell?: ShellIdentity;
  /** The shell's file picker (the Electron app); absent elsewhere. */
  pickFile?: (purpose: FilePickPurpose) => Promise<string | undefined>;
  /** Logs a problem for developers; never shown raw to the user. */
  log?: (message: string, error?: unknown) => void;
  /** Opens an https link in the system browser (the Electron app); absent elsewhere. */
  openExternal?: (url: string) => Promise<void>;
}

export interface HostOptions {
  /** Airlock's data folder (the store, the audit log, installed servers). */
  dataDir: string;
  /** The app's version, for display. */
  version: string;
  hooks: HostHooks;
  /** How to open the store file: conf by default, electron-store in the app. */
  storeBackend?: StoreBackendFactory;
  /** How secrets are sealed at rest (Electron's safeStorage in the app). */
  secretCipher?: SecretCipher;
  /** How to check the sandbox (tests pass a PATH without bwrap); default: the launcher's backend. `fresh`: not from a cached answer. */
  checkSandbox?: (check?: { fresh?: boolean }) => SandboxSupport;
  /** The launcher (tests may pass one with options); default: the OS sandbox. */
  launcher?: AirlockSandboxLauncher;
  launcherOptions?: SandboxLauncherOptions;
  /** Supervisor tuning (tests shorten timings). */
  supervisor?: Omit<SupervisorOptions, 'launcher' | 'catalog'>;
  /** Default time a person has to answer a confirmation (ms). */
  confirmationTimeoutMs?: number;
  /** How long after a person's approval its call must be sent (ms; default 30 s; tests shorten it to prove a refused approval sends nothing). */
  approvalTokenTtlMs?: number;
  /** How long removing a remote server waits for its authorization server to revoke its sign-in (ms; default 10 s; tests shorten it). */
  revokeWithinMs?: number;
  /** The home folder (tests use a fake one). */
  homeDir?: string;
  /**
   * The data folder was chosen by the person (`--data-dir`, `AIRLOCK_DATA_DIR`):
   * Airlock keeps everything in it and writes nothing elsewhere — not the
   * per-user audit key (the log's end is then unanchored unless
   * `AIRLOCK_AUDIT_KEY_FILE` names a key outside it), not a line in the
   * per-user list of data folders (other folders listed there are still
   * hidden from this folder's servers).
   */
  selfContained?: boolean;
  /** The node that runs JavaScript servers (the app passes a real node; Electron's own binary cannot be one). */
  nodePath?: string;
  /** How another app starts the stdio gateway (default: `airlock gateway --stdio` from PATH). */
  gatewayCommand?: { command: string; args: string[] };
  /**
   * The audit log: the key that anchors its end (default — the app's and the
   * CLI's alike: one file outside every data folder, see audit-key.ts; null:
   * none), and its file operations (tests).
   */
  audit?: { key?: AuditKey | null; fs?: AuditFileSystem };
  /** How a web address's host name is looked up before a server's page is offered or opened (default: the system's resolver; tests). */
  resolveHost?: ResolveHost;
  /** Airlock's own model for servers' sampling requests (the built-in agent provides it); absent: only a gateway app's model can answer. */
  samplingModel?: SamplingModel;
  /** The MCP Registry client's tuning (tests: a short time limit). */
  registry?: RegistryRoomDeps['client'];
  /** Python packages: an index to use instead of pip's configured one (tests, a mirror). */
  pypiIndexUrl?: string;
  /**
   * Shows a remote server's sign-in page to the person (the CLI prints the
   * URL; absent: the shell's `openExternal`, else sign-in is refused plainly).
   */
  signInPage?: (url: string, server: string) => void;
  /** Where servers' screens (MCP Apps) load from: the app's `airlock-screen://` scheme by default; the browser tests pass a loopback origin. */
  screenFrames?: ScreenFrames;
  /**
   * Where the organisation's managed policy is read (tests only: a source of
   * their own, a shorter re-read interval). Default: the OS's admin locations;
   * nothing else can move them.
   */
  managedPolicy?: { source?: PolicySource; pollMs?: number };
  /** Streaming the audit log over OTLP: the environment read for OTEL_EXPORTER_OTLP_* (default this process's) and the exporter's tuning (tests). */
  auditExport?: { env?: Readonly<Record<string, string | undefined>>; tuning?: AuditExportRoomDeps['tuning'] };
}


import type { SandboxSupport } from '../../shared/domain';
import type { AppInfo, AppNotice, EmitEvent, IpcHandlers } from '../../shared/ipc';
import { checkSandboxSupport } from './sandbox/capability';
import { AirlockStore, type StoreBackendFactory } from './store/store';

/** What a shell (the Electron app, the CLI, a test) gives the core. */
export interface HostHooks {
  /** Pushes an event to whatever shows Airlock's state (a window, nothing in the CLI). */
  emit: EmitEvent;
  /** Logs a problem for developers; never shown raw to the user. */
  log?: (message: string, error?: unknown) => void;
}

export interface HostOptions {
  /** Airlock's data folder (the store, the audit log, installed servers). */
  dataDir: string;
  /** The app's version, for display. */
  version: string;
  hooks: HostHooks;
  /** How to open the store file: conf by default, electron-store in the app. */
  storeBackend?: StoreBackendFactory;
  /** How to check the sandbox (tests pass a PATH without bwrap). */
  checkSandbox?: () => SandboxSupport;
}

/**
 * The composition root of the core: it builds every part from the data
 * folder and the shell's hooks, and is the one object the shells talk to.
 * It never imports Electron.
 */
export class AirlockHost {
  readonly store: AirlockStore;
  private readonly checkSandbox: () => SandboxSupport;
  private sandbox: SandboxSupport;

  constructor(private readonly options: HostOptions) {
    this.store = new AirlockStore(options.dataDir, options.storeBackend);
    this.checkSandbox = options.checkSandbox ?? (() => checkSandboxSupport());
    this.sandbox = this.checkSandbox();
  }

  /** Start-up problems the user must see (a corrupt store kept aside, …). */
  get notices(): AppNotice[] {
    return [...this.store.notices];
  }

  info(): AppInfo {
    return {
      name: 'Airlock',
      version: this.options.version,
      platform: process.platform,
      dataDir: this.options.dataDir,
      notices: this.notices,
    };
  }

  sandboxStatus(): SandboxSupport {
    return this.sandbox;
  }

  /** Re-checks the sandbox (after the user installed what was missing) and tells every shell. */
  recheckSandbox(): SandboxSupport {
    this.sandbox = this.checkSandbox();
    this.options.hooks.emit('sandbox.didChange', this.sandbox);
    return this.sandbox;
  }

  /** One handler per IPC channel; the shells wire them through the contract's wrapper. */
  ipcHandlers(): IpcHandlers {
    return {
      'app.info': () => this.info(),
      'sandbox.status': () => this.sandboxStatus(),
      'sandbox.recheck': () => this.recheckSandbox(),
    };
  }

  /** Stops everything the host started. */
  async dispose(): Promise<void> {}
}

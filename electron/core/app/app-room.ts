/**
 * The app room: what Airlock says about itself and this machine — its
 * version, data folder and start-up notices, whether the OS sandbox can run
 * here (checked again on request), the settings page's view — and the two
 * things only a shell with a person in front of it can do: open a link in
 * the system browser, and show a file picker.
 */
import type { PolicyMode, SandboxSupport } from '../../../shared/domain';
import type { AppInfo, AppNotice, EmitEvent, FilePickPurpose, IpcHandlers } from '../../../shared/ipc';
import type { SettingsView } from '../../../shared/views';
import { AirlockError } from '../errors';
import type { ShellIdentity } from '../ipc/shell-identity';
import type { AirlockStore } from '../store/store';

export interface AppRoomDeps {
  version: string;
  dataDir: string;
  store: Pick<AirlockStore, 'read'>;
  /** Checks whether the OS sandbox can run here (tests pass one without bwrap); `fresh`: ask the OS again, not a cached answer. */
  checkSandbox(check?: { fresh?: boolean }): SandboxSupport;
  /** Start-up problems the person must see, from every room that has some. */
  notices(): AppNotice[];
  /** The audit log's flush window (ms), for the settings page. */
  flushWindowMs(): number;
  /** The mode as it holds (strict when the organisation's policy locks it). */
  effectiveMode?(mode: PolicyMode): PolicyMode;
  emit: EmitEvent;
  /** The shell's file picker (the Electron app); absent elsewhere. */
  pickFile?(purpose: FilePickPurpose): Promise<string | undefined>;
  /** Opens an https link in the system browser (the Electron app); absent elsewhere. */
  openExternal?(url: string): Promise<void>;
}

export class AppRoom {
  #sandbox: SandboxSupport;

  constructor(private readonly deps: AppRoomDeps) {
    this.#sandbox = deps.checkSandbox();
  }

  info(): AppInfo {
    return {
      name: 'Airlock',
      version: this.deps.version,
      platform: process.platform,
      dataDir: this.deps.dataDir,
      notices: this.deps.notices(),
      canPickFiles: this.deps.pickFile !== undefined,
    };
  }

  /** Whether servers can be sandboxed here, as last checked. */
  get sandbox(): SandboxSupport {
    return this.#sandbox;
  }

  /** Checks the sandbox again (after the person installed what was missing) and tells every shell. */
  recheckSandbox(): SandboxSupport {
    this.#sandbox = this.deps.checkSandbox({ fresh: true });
    this.deps.emit('sandbox.didChange', this.#sandbox);
    return this.#sandbox;
  }

  /** The settings a person can change (Settings, `airlock settings`). */
  settings(): SettingsView {
    const { settings } = this.deps.store.read();
    return { policyMode: this.deps.effectiveMode?.(settings.policyMode) ?? settings.policyMode, strictDurability: settings.strictDurability === true, flushWindowMs: this.deps.flushWindowMs(), runtimes: { ...settings.runtimes } };
  }

  /** The app's channels. Links and the file picker are this process's shell's own (the Electron wiring replaces them with the window's). */
  ipcHandlers(_shell: ShellIdentity): Pick<IpcHandlers, 'app.info' | 'sandbox.status' | 'sandbox.recheck' | 'settings.get' | 'links.open' | 'dialog.openFile'> {
    return {
      'app.info': () => this.info(),
      'sandbox.status': () => this.#sandbox,
      'sandbox.recheck': () => this.recheckSandbox(),
      'settings.get': () => this.settings(),
      'links.open': async ({ url }) => {
        if (!this.deps.openExternal) throw new AirlockError('unavailable', 'Links open only in the Airlock app.');
        await this.deps.openExternal(url);
        return {};
      },
      'dialog.openFile': async ({ purpose }) => {
        const path = await this.deps.pickFile?.(purpose);
        return path ? { path } : {};
      },
    };
  }
}

/**
 * The sandbox-plan room: what this computer's sandbox guarantees, row by
 * row (the server's Permissions page, Settings), and the exact plan of one
 * server's launch on this or another platform (`airlock show NAME
 * --sandbox-plan [--platform …]`). Reading only: nothing starts, nothing
 * is made or changed, and no secret's value leaves (they are shown as
 * placeholders, as is the proxy's per-launch credential). Any shell may
 * read it: it tells the person what holds, never changes what does.
 */
import { ownEntry, type ServerRecord } from '../../../shared/domain';
import type { IpcHandlers } from '../../../shared/ipc';
import type { SandboxGuaranteesView, SandboxPlanView, SandboxPlatformName } from '../../../shared/sandbox-views';
import { AirlockError } from '../errors';
import { loadSandboxLibrary } from '../sandbox';
import type { AirlockSandboxLauncher } from '../sandbox/sandbox-launcher';
import type { ShellIdentity } from '../ipc/shell-identity';

export interface SandboxPlanRoomDeps {
  records(): Record<string, ServerRecord>;
  launcher: Pick<AirlockSandboxLauncher, 'describe' | 'guarantees' | 'weakerThanLinux' | 'support' | 'mechanism' | 'verifiedOnRealMachine' | 'platform'>;
  /** Airlock's data folder, and a server's own data folder in it. */
  dataDir: string;
  serverDataDir(server: string): string;
}

export class SandboxPlanRoom {
  constructor(private readonly deps: SandboxPlanRoomDeps) {}

  /** What this computer's sandbox guarantees, row by row. */
  guarantees(): SandboxGuaranteesView {
    const support = this.deps.launcher.support();
    const guarantees = this.deps.launcher.guarantees();
    return {
      platform: support.platform,
      ...(this.deps.launcher.mechanism() ? { mechanism: this.deps.launcher.mechanism()! } : {}),
      supported: support.supported,
      guarantees,
      weakerThanLinux: this.deps.launcher.weakerThanLinux(),
      unverified: guarantees.length > 0 && !this.deps.launcher.verifiedOnRealMachine(),
    };
  }

  /** One server's plan on `platform` (default: this one). */
  async plan(name: string, platform?: SandboxPlatformName): Promise<SandboxPlanView> {
    // A plan for another platform may need its sandbox library (Windows'), loaded only now.
    await loadSandboxLibrary(platform ?? this.deps.launcher.platform);
    const record = ownEntry(this.deps.records(), name);
    if (!record) throw new AirlockError('not-found', `There is no server named ${name}.`);
    if (record.spec.remote) {
      throw new AirlockError('invalid-request', `${name} runs on another computer: Airlock has no sandbox around it, so there is no plan to show.`);
    }
    const context = { serverName: name, airlockDataDir: this.deps.dataDir, serverDataDir: this.deps.serverDataDir(name), secrets: {} };
    const plan = this.deps.launcher.describe(record.spec, record.profile, context, platform);
    return {
      server: name,
      platform: plan.platform,
      backend: plan.backend,
      guarantees: plan.guarantees,
      files: plan.files,
      network: plan.network,
      limits: plan.limits,
      launch: plan.launch,
      ...(plan.profileText !== undefined ? { profileText: plan.profileText } : {}),
      notes: plan.notes,
      ...(plan.atStart?.length ? { atStart: plan.atStart } : {}),
      foreign: plan.platform !== this.deps.launcher.platform,
    };
  }

  ipcHandlers(_shell: ShellIdentity): Pick<IpcHandlers, 'sandbox.guarantees' | 'servers.sandboxPlan'> {
    return {
      'sandbox.guarantees': () => this.guarantees(),
      'servers.sandboxPlan': ({ name, platform }) => this.plan(name, platform),
    };
  }
}

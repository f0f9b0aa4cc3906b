/**
 * How the host wires the app room: the notices every room has for the person
 * (the store's, the audit log's, the organisation's), the audit log's flush
 * window for the settings page, the mode as the organisation's policy lets it
 * hold, and the shell's picker and browser when it has them. The rooms it
 * reads are bound late (`rooms()`).
 */
import type { SandboxSupport } from '../../../shared/domain';
import type { AuditLog } from '../audit';
import type { AuditRoom } from '../audit/audit-room';
import type { HostHooks } from '../host-options';
import type { ManagedPolicyRoom } from '../managed-policy/managed-policy-room';
import type { AirlockStore } from '../store/store';
import type { AirlockSandboxLauncher } from '../sandbox/sandbox-launcher';
import type { AuditExportRoom } from '../audit-export/audit-export-room';
import { AppRoom, type AppRoomDeps } from './app-room';

/** What the app room is wired to. */
export type AppWiring = Omit<AppRoomDeps, 'checkSandbox' | 'notices' | 'flushWindowMs' | 'effectiveMode' | 'pickFile' | 'openExternal' | 'store'> & {
  store: Pick<AirlockStore, 'read' | 'notices'>;
  audit: Pick<AuditLog, 'flushWindowMs'>;
  /** Checks whether the OS sandbox can run here (default: what the launcher's backend says of this machine). */
  checkSandbox?: ((check?: { fresh?: boolean }) => SandboxSupport) | undefined;
  launcher: Pick<AirlockSandboxLauncher, 'support'>;
  hooks: Pick<HostHooks, 'pickFile' | 'openExternal'>;
};

/** The rooms it reads. */
export interface AppRooms {
  readonly activity: Pick<AuditRoom, 'notices'>;
  readonly organisation: Pick<ManagedPolicyRoom, 'notices' | 'effectiveMode'>;
  readonly auditExport: Pick<AuditExportRoom, 'notices'>;
}

export function composeApp(wiring: AppWiring, rooms: () => AppRooms): AppRoom {
  const { hooks, store } = wiring;
  return new AppRoom({
    ...wiring,
    // What the launcher's backend says of this machine (the same answer the refusal to start reads).
    checkSandbox: wiring.checkSandbox ?? ((check) => wiring.launcher.support(check)),
    notices: () => [...store.notices, ...rooms().activity.notices, ...rooms().organisation.notices, ...rooms().auditExport.notices],
    flushWindowMs: () => wiring.audit.flushWindowMs,
    effectiveMode: (mode) => rooms().organisation.effectiveMode(mode),
    ...(hooks.pickFile ? { pickFile: hooks.pickFile } : {}),
    ...(hooks.openExternal ? { openExternal: hooks.openExternal } : {}),
  });
}

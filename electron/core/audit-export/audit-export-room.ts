/**
 * The audit-export room: streaming the audit log to the OpenTelemetry
 * collector an organisation already runs (see audit-exporter.ts), for the
 * host to compose. It decides where to (the organisation's policy first,
 * then the person's setting, then the OTEL_EXPORTER_OTLP_* variables),
 * keeps the person's setting (header values sealed in the secret store,
 * never shown back), and owns the `auditExport.*` channels.
 */
import type { AppNotice, IpcHandlers } from '../../../shared/ipc';
import type { AuditExportView, OrganisationLockView } from '../../../shared/views';
import { AirlockError, messageOf } from '../errors';
import type { ShellIdentity } from '../ipc/shell-identity';
import type { OtlpTarget } from '../managed-policy/policy-schema';
import type { ChangeRecorder } from '../audit/change-record';
import type { AirlockStore } from '../store/store';
import { AuditExporter, type ExportStatus } from './audit-exporter';
import { resolveTarget, type ExportSetting, type ExportTarget, type NoTarget } from './otlp-target';

/** The secret store's entry for the collector's header values (not a server name, so it can never be one's). */
export const EXPORT_SECRETS = '@audit-export';

export interface AuditExportRoomDeps {
  auditDir: string;
  stateFile: string;
  version: string;
  store: Pick<AirlockStore, 'read' | 'update'>;
  secrets: { set(owner: string, name: string, value: string): void; delete(owner: string, name: string): void; values(owner: string, names: readonly string[]): Record<string, string> };
  /** What the organisation's policy says (`audit.otlp`), and its lock as the views show it. */
  organisation: { otlpTarget(): OtlpTarget | undefined; exportPaused(): string | undefined; view(): { locks: readonly OrganisationLockView[] }; refuse(setting: 'otlp', what: string): void };
  changes: Pick<ChangeRecorder, 'record'>;
  env: Readonly<Record<string, string | undefined>>;
  log?(message: string, error?: unknown): void;
  /** Exporter tuning (tests: short backoff, fast polling). */
  tuning?: { pollMs?: number; batchDelayMs?: number; backoff?: { initialMs: number; maxMs: number }; batchSize?: number; timeoutMs?: number; backlogWarning?: { entries: number; ageMs: number } };
}

export class AuditExportRoom {
  readonly exporter: AuditExporter;

  constructor(private readonly deps: AuditExportRoomDeps) {
    this.exporter = new AuditExporter({
      auditDir: deps.auditDir,
      stateFile: deps.stateFile,
      version: deps.version,
      target: () => this.target(),
      ...(deps.tuning?.pollMs !== undefined ? { pollMs: deps.tuning.pollMs } : {}),
      ...(deps.tuning?.batchDelayMs !== undefined ? { batchDelayMs: deps.tuning.batchDelayMs } : {}),
      ...(deps.tuning?.backoff ? { backoff: deps.tuning.backoff } : {}),
      ...(deps.tuning?.batchSize ? { batchSize: deps.tuning.batchSize } : {}),
      ...(deps.tuning?.timeoutMs ? { timeoutMs: deps.tuning.timeoutMs } : {}),
      ...(deps.tuning?.backlogWarning ? { backlogWarning: deps.tuning.backlogWarning } : {}),
      ...(deps.log ? { log: deps.log } : {}),
    });
  }

  /** The target in force now (or why the environment's is not usable). */
  target(): ExportTarget | NoTarget | undefined {
    const setting = this.deps.store.read().settings.auditExport;
    return resolveTarget({
      paused: this.deps.organisation.exportPaused(),
      policy: this.deps.organisation.otlpTarget(),
      setting,
      settingHeaders: () => this.deps.secrets.values(EXPORT_SECRETS, setting?.headerNames ?? []),
      env: this.deps.env,
    });
  }

  start(): void {
    this.exporter.start();
  }

  /** After an append, or a change of the target: look for entries to send now. */
  nudge(): void {
    this.exporter.nudge();
  }

  stop(): Promise<void> {
    return this.exporter.stop();
  }

  /** What the person must see about the export (a backlog past its threshold), for the app's notices. */
  get notices(): AppNotice[] {
    const warning = this.exporter.status().warning;
    return warning ? [{ level: 'warning', message: warning }] : [];
  }

  view(): AuditExportView {
    return toView(this.exporter.status(), this.deps.organisation.view().locks.find((lock) => lock.setting === 'otlp'));
  }

  /** Saves the person's setting (null: off). Refused when the organisation's policy sets the export. */
  configure(request: { endpoint: string | null; protocol?: 'http/protobuf' | 'http/json'; headers?: Record<string, string> }, by: 'window' | 'command-line'): AuditExportView {
    this.deps.organisation.refuse('otlp', request.endpoint === null ? 'turn off streaming the audit log' : `stream the audit log to ${request.endpoint}`);
    const before = this.deps.store.read().settings.auditExport;
    const names = Object.keys(request.headers ?? {});
    for (const old of before?.headerNames ?? []) if (!names.includes(old)) this.deps.secrets.delete(EXPORT_SECRETS, old);
    for (const [name, value] of Object.entries(request.headers ?? {})) this.deps.secrets.set(EXPORT_SECRETS, name, value);
    const setting: ExportSetting = request.endpoint === null ? { enabled: false } : { enabled: true, endpoint: request.endpoint, protocol: request.protocol ?? 'http/protobuf', headerNames: names };
    this.deps.store.update((data) => ({ ...data, settings: { ...data.settings, auditExport: setting } }));
    this.deps.changes.record({
      change: 'audit-export',
      by,
      changes: [request.endpoint === null ? 'audit log streaming: off' : `audit log streaming: ${request.endpoint} (${setting.protocol}${names.length ? `, headers ${names.join(', ')}` : ''})`],
    });
    this.nudge();
    return this.view();
  }

  /** The room's channels. Changing where the log goes is the person's (window or their own terminal). */
  ipcHandlers(shell: ShellIdentity): Pick<IpcHandlers, 'audit.exportStatus' | 'audit.setExport' | 'audit.exportRange'> {
    const by = shell.kind === 'window' ? 'window' : 'command-line';
    return {
      'audit.exportStatus': () => this.view(),
      'audit.setExport': (request) => this.configure(request, by),
      'audit.exportRange': async ({ from, to }) => {
        const head = this.exporter.status().head;
        try {
          const result = await this.exporter.sendRange(from ?? 1, to ?? head);
          return { sent: result.sent, ...(result.first !== undefined ? { first: result.first } : {}), ...(result.last !== undefined ? { last: result.last } : {}), endpoint: result.url };
        } catch (error) {
          throw new AirlockError('unavailable', `The entries were not sent: ${messageOf(error)}`);
        }
      },
    };
  }
}

function toView(status: ExportStatus, lock: OrganisationLockView | undefined): AuditExportView {
  const target = status.target;
  return {
    state: status.state,
    ...(target ? { from: target.from, endpoint: target.url, protocol: target.protocol } : {}),
    headerNames: target ? Object.keys(target.headers) : [],
    acknowledged: status.acknowledged,
    head: status.head,
    backlog: status.backlog,
    ...(status.oldestWaitingAt ? { oldestWaitingAt: status.oldestWaitingAt } : {}),
    ...(status.warning ? { warning: status.warning } : {}),
    ...(status.lastError ? { lastError: status.lastError } : {}),
    ...(status.lastSuccessAt ? { lastSuccessAt: new Date(status.lastSuccessAt).toISOString() } : {}),
    ...(status.nextRetryAt ? { nextRetryAt: new Date(status.nextRetryAt).toISOString() } : {}),
    ...(lock ? { lock } : {}),
  };
}

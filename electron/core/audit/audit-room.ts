/**
 * The audit room: the one log of every decision and outcome, as the rest of
 * Airlock uses it — the log itself with the key that anchors its end, the
 * recorders of network decisions and of changes, the "log grew" notices to
 * the shells, the problems the person must see (an unreadable key, an
 * outcome that could not be written), and the Activity channels.
 *
 * SECURITY: invariant 1 — every decision is written here before its call is
 * sent (the call pipeline waits on `log.appendDecision`); invariant 5 — the
 * log hides every value the person gave a server (`secretValues`).
 */
import { join } from 'node:path';
import type { AppNotice, EmitEvent, IpcHandlers } from '../../../shared/ipc';
import type { AuditEntryView } from '../../../shared/views';
import { messageOf } from '../errors';
import type { ShellIdentity } from '../ipc/shell-identity';
import type { NetworkDecision } from '../sandbox/network-proxy';
import { coalescedAppendNotices } from './append-notices';
import type { AuditFileSystem } from './audit-fs';
import { defaultAuditKeyPath, fileAuditKey, type AuditKey } from './audit-key';
import { AuditLog } from './audit-log';
import { ChangeRecorder } from './change-record';
import { NetworkDecisionRecorder } from './network-record';
import { SandboxRefusalRecorder } from './sandbox-refusal-record';
import { toActivityViews, toAuditVerifyView } from './views';

/** Said first in the notice when a call's outcome could not be written to the audit log. */
const OUTCOME_NOT_RECORDED = 'A call finished, but the audit log could not record how it ended (Activity shows it without an outcome).';

export interface AuditRoomDeps {
  dataDir: string;
  homeDir?: string;
  /** The key (null: none; absent: one file outside every data folder, see audit-key.ts) and the file operations (tests). */
  options?: { key?: AuditKey | null; fs?: AuditFileSystem };
  /** Every value the person gave a server (throws when unreadable; see redaction/server-secrets.ts). */
  secretValues(server: string): readonly string[];
  emit: EmitEvent;
  log?(message: string, error?: unknown): void;
  /** Told once per turn that the log grew (the audit export catches up). */
  onDidAppend?(): void;
}

export class AuditRoom {
  readonly log: AuditLog;
  /** Rule, grant, trust and setting changes, as audit entries (off the call path; see change-record.ts). */
  readonly changes: ChangeRecorder;
  /** "The log grew", told to the shells once per turn (a call writes two entries; see append-notices.ts). */
  readonly appendNotices: (seq: number) => void;
  /** The file holding the log's key, when it is kept in one (every sandbox hides it). */
  readonly keyFile: string | undefined;
  readonly #network: NetworkDecisionRecorder;
  /** Refusals the OS's sandbox reported (macOS), as audit entries. */
  readonly #refusals: SandboxRefusalRecorder;
  readonly #notices: AppNotice[] = [];

  constructor(private readonly deps: AuditRoomDeps) {
    const { key, keyFile } = this.#key();
    this.keyFile = keyFile;
    this.log = new AuditLog({ dir: join(deps.dataDir, 'audit'), key, ...(deps.options?.fs ? { fs: deps.options.fs } : {}), secretValues: deps.secretValues });
    // A crashed predecessor's unfinished calls get their outcome (unknown) now, not at the next call.
    this.log.recoverInterrupted().catch((error: unknown) => deps.log?.('audit take-over failed', error));
    this.#network = new NetworkDecisionRecorder(this.log, () => Date.now(), (error) => deps.log?.('could not record a network decision', error));
    this.#refusals = new SandboxRefusalRecorder(this.log, () => Date.now(), (error) => deps.log?.("could not record the sandbox's refusal", error));
    this.changes = new ChangeRecorder(this.log, (error) => {
      deps.log?.('could not record a change in the audit log', error);
      this.#notices.push({ level: 'error', message: `A change was saved, but the audit log could not record it: ${messageOf(error)}` });
    });
    this.appendNotices = coalescedAppendNotices((seq) => {
      deps.emit('audit.didAppend', { seq });
      deps.onDidAppend?.();
    });
  }

  /** Problems with the log the person must see (an unreadable key, an outcome not written). */
  get notices(): readonly AppNotice[] {
    return this.#notices;
  }

  /** Records a network decision of a server's proxy (never throws; the verdict does not depend on it). */
  recordNetwork(decision: NetworkDecision): void {
    this.#network.record(decision);
  }

  /** Notes that a person answered a network question in `by`, for the entry that records its decision. */
  noteNetworkAnswer(server: string, host: string, port: number, by: string): void {
    this.#network.noteAnswer(server, host, port, by);
  }

  /** Records a refusal the OS's sandbox reported for a server (macOS's log stream). */
  recordSandboxRefusal(server: string, text: string): void {
    this.#refusals.record(server, text);
  }

  /** An outcome could not be written: one notice, however many (the person's fix is the same). */
  outcomeNotRecorded(message: string): void {
    this.deps.log?.('could not record a call outcome', message);
    if (!this.#notices.some((notice) => notice.message.startsWith(OUTCOME_NOT_RECORDED))) this.#notices.push({ level: 'error', message: `${OUTCOME_NOT_RECORDED} ${message}` });
  }

  /** Something happened that the audit log could not record: one notice per message. */
  notRecorded(message: string): void {
    this.deps.log?.('could not record an entry', message);
    if (!this.#notices.some((notice) => notice.message === message)) this.#notices.push({ level: 'error', message });
  }

  /** Activity: the latest decisions with their outcomes, network requests and changes. */
  async entries(query: { server?: string; tool?: string; verdict?: 'allow' | 'ask' | 'deny'; limit?: number }): Promise<AuditEntryView[]> {
    const records = await this.log.readActivity({
      ...(query.server ? { server: query.server } : {}),
      ...(query.tool ? { tool: query.tool } : {}),
      ...(query.verdict ? { decision: query.verdict } : {}),
      limit: query.limit ?? 200,
    });
    return records.flatMap(toActivityViews);
  }

  /** The Activity channels: reading the log and verifying it are the same for every shell. */
  ipcHandlers(_shell: ShellIdentity): Pick<IpcHandlers, 'audit.list' | 'audit.verify'> {
    return {
      'audit.list': (query) => this.entries(query),
      'audit.verify': async ({ scope }) => toAuditVerifyView(scope === 'new' ? await this.log.verifyNew() : { ...(await this.log.verify()), scope: 'all' }),
    };
  }

  /** Writes what is still counted or pending, then closes the log. */
  async close(): Promise<void> {
    await this.#network.flush();
    await this.#refusals.flush();
    await this.changes.settled();
    await this.log.close();
  }

  // The key that anchors the log's end; without one the log still records every call and says it cannot confirm its end.
  #key(): { key: AuditKey | undefined; keyFile?: string } {
    const given = this.deps.options?.key;
    if (given !== undefined) return { key: given ?? undefined };
    let keyFile: string | undefined;
    try {
      keyFile = defaultAuditKeyPath(process.env, this.deps.homeDir);
      return { key: fileAuditKey(keyFile, this.deps.dataDir), keyFile };
    } catch (error) {
      this.#notices.push({ level: 'error', message: messageOf(error) });
      return { key: undefined, ...(keyFile ? { keyFile } : {}) };
    }
  }
}

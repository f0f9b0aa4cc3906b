/**
 * The install room: the install channels over the install flow (prepare,
 * inspect, preview, commit, cancel), and the change entry a commit leaves in
 * the audit log — a server added or updated, where it came from and what it
 * was granted — said as the shell that committed it.
 */
import { ownEntry, type ServerRecord } from '../../../shared/domain';
import type { IpcHandlers } from '../../../shared/ipc';
import type { ServerSummary } from '../../../shared/views';
import type { ChangeActor } from '../audit';
import { grantedLines, profileChanges, sourceWords, type ChangeRecorder } from '../audit/change-record';
import { changeActorOf, type ShellIdentity } from '../ipc/shell-identity';
import { screenGrantChanges } from '../screens/screen-room';
import type { AirlockStore } from '../store/store';
import type { InstallFlow } from './install-flow';

export interface InstallRoomDeps {
  flow: InstallFlow;
  store: Pick<AirlockStore, 'read'>;
  changes: Pick<ChangeRecorder, 'record' | 'once'>;
  summary(record: ServerRecord): ServerSummary;
}

export class InstallRoom {
  constructor(private readonly deps: InstallRoomDeps) {}

  /** Commits an install (a new server, or an update of one), and records it in the audit log. */
  async commit(request: Parameters<InstallFlow['commit']>[0], by: ChangeActor = 'window'): Promise<ServerSummary> {
    const existing = ownEntry(this.deps.store.read().servers, request.name);
    const record = await this.deps.flow.commit(request);
    const saved = ownEntry(this.deps.store.read().servers, record.name) ?? record;
    const changes = existing ? profileChanges(existing.profile, saved.profile) : grantedLines(saved.profile, saved.trusted);
    if (existing && existing.trusted !== saved.trusted) changes.push(`trusted: ${saved.trusted ? 'on' : 'off'} (was ${existing.trusted ? 'on' : 'off'})`);
    // What its screens may use is a grant like the others: allowed at install, kept or dropped by an update.
    changes.push(...screenGrantChanges(existing?.screens, saved.screens));
    this.deps.changes.record({ change: existing ? 'server-updated' : 'server-added', by, server: record.name, changes: [`source: ${sourceWords(saved)}`, ...changes] });
    return this.deps.summary(saved);
  }

  /** The install channels; a commit is recorded as the calling shell's (the window, or the command line). */
  ipcHandlers(shell: ShellIdentity): Pick<IpcHandlers, 'install.prepare' | 'install.scanImports' | 'install.probe' | 'install.preview' | 'install.commit' | 'install.cancel'> {
    const { flow } = this.deps;
    return {
      'install.prepare': ({ source }) => flow.prepare(source),
      'install.scanImports': (request) => flow.scanImports(request),
      'install.probe': ({ draftId, userConfig, profile, env, trusted, secrets }) =>
        flow.probe(draftId, userConfig, profile, { ...(env ? { env } : {}), ...(trusted !== undefined ? { trusted } : {}), ...(secrets ? { secrets } : {}) }),
      'install.preview': ({ draftId, profile, trusted }) => flow.preview(draftId, profile, trusted),
      'install.commit': (request) => this.deps.changes.once(this.commit(request, changeActorOf(shell))),
      'install.cancel': async ({ draftId }) => (await flow.cancel(draftId), {}),
    };
  }
}

/**
 * The policy room: the standing rules ("always allow" or "always deny" a
 * tool, for the definition the person reviewed) and the policy settings
 * (the mode, strict durability), for the host to compose. Every change is
 * saved first, then recorded in the audit log as a change entry and told
 * to the window.
 */
import { ownEntry, type PolicyMode, type Provenance, type Rule, type ServerRecord } from '../../../shared/domain';
import type { RuleView } from '../../../shared/views';
import type { SessionGrants } from '../approvals';
import type { ChangeActor } from '../audit';
import type { ChangeRecorder } from '../audit/change-record';
import type { IpcHandlers } from '../../../shared/ipc';
import type { ServerDetail, SettingsView } from '../../../shared/views';
import { changeActorOf, type ShellIdentity } from '../ipc/shell-identity';
import { AirlockError } from '../errors';
import type { IndexedTool } from '../servers/tool-index';
import type { AirlockStore } from '../store/store';
import { readTool } from '../policy/annotations';
import { claimsFactsOf, usableAnnotations } from '../claims/claim-state';
import type { OrganisationGuard } from '../managed-policy/managed-policy-room';
import type { CodeChange } from '../policy/decide';

export interface PolicyRoomDeps {
  store: Pick<AirlockStore, 'read' | 'update'>;
  /** The live listing of a running server's tools. */
  lookupTool(server: string, tool: string): IndexedTool | undefined;
  /** Starts a server (resolves once it runs and is listed, or failed). */
  startServer(server: string): Promise<void>;
  /** A local server's code change since it was approved, as of its last start; null when none. */
  codeChangeOf(server: string, provenance: Provenance): CodeChange | null;
  /** A server's record; throws `not-found` when there is none. */
  record(server: string): ServerRecord;
  changes: Pick<ChangeRecorder, 'record' | 'once'>;
  /** The server's page as it is now (the answer to a revoke). */
  detail(server: string): Promise<ServerDetail>;
  /** The settings page as it is now (the answer to a settings change). */
  settings(): SettingsView;
  sessionGrants: Pick<SessionGrants, 'revoke'>;
  /** Forgets what a server's own requests (sampling, questions) were allowed for the session. */
  revokeRequestSession(server: string): void;
  /** Told after every change (the window's list of servers shows rules). */
  didChange(): void;
  /** The organisation's policy: refuses what it locks (the mode, "always" for destructive tools), naming the key. */
  organisation?: OrganisationGuard;
}

export class PolicyRoom {
  constructor(private readonly deps: PolicyRoomDeps) {}

  /** Every rule, and whether it still holds for the tool's definition (and code) now. */
  rules(): RuleView[] {
    const data = this.deps.store.read();
    return data.rules.map((rule) => {
      // The live listing when the server runs; otherwise the definition the user approved.
      const record = ownEntry(data.servers, rule.server);
      const current = this.deps.lookupTool(rule.server, rule.tool)?.fingerprint ?? ownEntry(record?.approvedTools, rule.tool)?.fingerprint;
      // An allow made before a code change does not count (approving the new code removes it); a deny still denies.
      const codeChanged = record !== undefined && this.deps.codeChangeOf(rule.server, record.provenance) !== null;
      // An allow made before the tool contradicted its claims does not count while they are withdrawn.
      const claims = record ? claimsFactsOf(record, rule.tool) : undefined;
      const suspended = claims !== undefined && rule.effect === 'allow' && !(Date.parse(rule.createdAt) >= claims.since);
      return { server: rule.server, tool: rule.tool, effect: rule.effect, createdAt: rule.createdAt, fingerprint: rule.fingerprint, current: current === rule.fingerprint && !(codeChanged && rule.effect === 'allow') && !suspended };
    });
  }

  /**
   * Saves a standing rule for the definition the person reviewed. An "always
   * allow" for a destructive tool needs the second confirmation.
   */
  async addRule(request: { server: string; tool: string; effect: 'allow' | 'deny'; fingerprint: string; confirmDestructive?: boolean }, by: ChangeActor = 'window'): Promise<RuleView> {
    const record = this.deps.record(request.server);
    if (record.enabled) await this.deps.startServer(request.server).catch(() => {}); // Started only to list its tools; a tool it does not list gets no rule (refused below).
    const listed = this.deps.lookupTool(request.server, request.tool);
    const definition = listed?.definition ?? ownEntry(record.approvedTools, request.tool)?.definition;
    const fingerprint = listed?.fingerprint ?? ownEntry(record.approvedTools, request.tool)?.fingerprint;
    if (!definition || !fingerprint) throw new AirlockError('not-found', `${request.server} does not offer a tool named ${request.tool}.`);
    if (fingerprint !== request.fingerprint) throw new AirlockError('conflict', `${request.tool} changed since you reviewed it; review it again.`);
    // A tool whose claims are withdrawn is read as claiming nothing: destructive.
    const reading = readTool(usableAnnotations(record, request.tool, definition.annotations));
    if (request.effect === 'allow' && reading.toolClass === 'destructive') {
      this.deps.organisation?.refuse('alwaysForDestructive', `always allow ${request.tool}, a tool that may delete or overwrite things`, request.server);
    }
    if (request.effect === 'allow' && reading.toolClass === 'destructive' && !request.confirmDestructive) {
      throw new AirlockError('invalid-request', `${request.tool} may delete or overwrite things: always allowing it needs a second, explicit confirmation.`);
    }
    const rule: Rule = { server: request.server, tool: request.tool, fingerprint, effect: request.effect, createdAt: new Date().toISOString() };
    this.saveRule(rule, by);
    return { ...rule, current: true };
  }

  removeRule(server: string, tool: string, by: ChangeActor = 'window'): void {
    const existing = this.deps.store.read().rules.find((rule) => rule.server === server && rule.tool === tool);
    if (!existing) {
      throw new AirlockError('not-found', `There is no rule for ${server} › ${tool}; nothing was removed. \`airlock rules\` lists the rules there are.`);
    }
    this.deps.store.update((data) => ({ ...data, rules: data.rules.filter((rule) => !(rule.server === server && rule.tool === tool)) }));
    this.deps.changes.record({ change: 'rule-removed', by, server, tool, changes: [`rule removed: always ${existing.effect} ${tool}`] });
    this.deps.didChange();
  }

  /** Saves a rule (replacing any other rule for the same tool); `via` a confirmation's "always" answer, or a plain command. */
  saveRule(rule: Rule, by: ChangeActor = 'window', via?: 'confirmation'): void {
    const replaced = this.deps.store.read().rules.find((existing) => existing.server === rule.server && existing.tool === rule.tool);
    this.deps.store.update((data) => ({
      ...data,
      rules: [...data.rules.filter((existing) => !(existing.server === rule.server && existing.tool === rule.tool)), rule],
    }));
    this.deps.changes.record({
      change: 'rule-added',
      by,
      ...(via ? { via } : {}),
      server: rule.server,
      tool: rule.tool,
      changes: [`rule added: always ${rule.effect} ${rule.tool} (definition ${rule.fingerprint.slice(0, 12)})${replaced ? `, replacing always ${replaced.effect}` : ''}`],
    });
    this.deps.didChange();
  }

  /** Removes every rule and session permission for a server's tools (and what its own requests were allowed for the session). */
  revokeRules(server: string, by: ChangeActor = 'window'): void {
    this.deps.record(server);
    const removed = this.deps.store.read().rules.filter((rule) => rule.server === server);
    this.deps.store.update((data) => ({ ...data, rules: data.rules.filter((rule) => rule.server !== server) }));
    this.deps.sessionGrants.revoke(server);
    this.deps.revokeRequestSession(server);
    this.deps.changes.record({
      change: 'rules-revoked',
      by,
      server,
      changes: [...removed.map((rule) => `rule removed: always ${rule.effect} ${rule.tool}`), 'session permissions removed'],
    });
    this.deps.didChange();
  }

  mode(): PolicyMode {
    return this.deps.store.read().settings.policyMode;
  }

  setMode(mode: PolicyMode, by: ChangeActor = 'window'): void {
    const was = this.mode();
    if (mode !== 'strict') this.deps.organisation?.refuse('mode', `switch to the ${mode} mode`);
    this.deps.store.update((data) => ({ ...data, settings: { ...data.settings, policyMode: mode } }));
    if (was !== mode) this.deps.changes.record({ change: 'policy-mode', by, changes: [`policy mode: ${mode} (was ${was})`] });
    this.deps.didChange();
  }

  /** Strict durability: every decision flushed to disk before its call is sent (default: within the audit log's window). */
  setStrictDurability(strict: boolean, by: ChangeActor = 'window'): void {
    const was = this.deps.store.read().settings.strictDurability === true;
    this.deps.store.update((data) => ({ ...data, settings: { ...data.settings, strictDurability: strict } }));
    if (was !== strict) this.deps.changes.record({ change: 'strict-durability', by, changes: [`strict durability: ${strict ? 'on' : 'off'} (was ${was ? 'on' : 'off'})`] });
  }

  /** The rules and policy settings channels; each change is recorded as the calling shell's. */
  ipcHandlers(shell: ShellIdentity): Pick<IpcHandlers, 'rules.list' | 'rules.add' | 'rules.remove' | 'servers.revokeRules' | 'settings.setPolicyMode' | 'settings.setStrictDurability'> {
    const by = changeActorOf(shell);
    const { changes } = this.deps;
    return {
      'rules.list': () => this.rules(),
      'rules.add': (request) => changes.once(this.addRule(request, by)),
      'rules.remove': ({ server, tool }) => changes.once((this.removeRule(server, tool, by), {})),
      'servers.revokeRules': ({ name }) => changes.once((this.revokeRules(name, by), this.deps.detail(name))),
      'settings.setPolicyMode': ({ mode }) => changes.once((this.setMode(mode, by), this.deps.settings())),
      'settings.setStrictDurability': ({ strict }) => changes.once((this.setStrictDurability(strict, by), this.deps.settings())),
    };
  }
}

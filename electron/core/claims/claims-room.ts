/**
 * The claims room: what a tool did during its calls, set against what it
 * claims (`readOnlyHint`, `destructiveHint`, `openWorldHint`), and trust
 * withdrawn when they disagree.
 *
 * - Observe: the sandbox launcher attaches each launch Airlock can observe
 *   (a network proxy, or write grants watched by grant-watch.ts); the call
 *   pipeline tells it which call is running (`begin`/`finish`). What the
 *   server does while calls run is attributed to every one of them
 *   (call-watch.ts); what it does between calls is nobody's.
 * - Compare: after each call, compare-claims.ts (pure).
 * - Act: a contradiction is a `claims-contradicted` audit entry with its
 *   evidence; the tool's claims are withdrawn (claim-state.ts: the policy
 *   reads it as claiming nothing, and "always allow" made before asks
 *   again) until the person reviews it — keep trusting, or not — which is a
 *   change entry. The person is told at once (`claims.didContradict`, the
 *   server's log, the Servers list).
 * - Grants last used: grant-use.ts, from the same observations.
 *
 * SECURITY: behaviour only ever withdraws trust. Nothing here makes a call
 * ask less than its claims alone would; a review can only give back what the
 * claims gave before.
 */
import type { ClaimEvidence, ServerRecord, ToolAnnotations } from '../../../shared/domain';
import type { EmitEvent, IpcHandlers } from '../../../shared/ipc';
import type { ClaimsCheckView, GrantUseView, ServerDetail } from '../../../shared/views';
import type { ChangeActor } from '../audit';
import type { ClaimsContradictedInput } from '../audit/claims-entries';
import type { ChangeRecorder } from '../audit/change-record';
import { AirlockError, messageOf } from '../errors';
import { changeActorOf, type ShellIdentity } from '../ipc/shell-identity';
import { matchesGrant, type GrantChange, type LaunchObserver, type NetworkDecision } from '../sandbox';
import { CallObservations, type CallWatch } from './call-watch';
import { applyContradiction, claimCheckOf, claimsCheckView, CLAIM_WORDS, evidenceWords, type ContradictionEffect } from './claim-state';
import { compareClaims, refusedOperation, targetOf, type Contradiction } from './compare-claims';
import { GrantUse } from './grant-use';

export interface ClaimsRoomDeps {
  dataDir: string;
  /** A server's record; throws `not-found` when there is none. */
  record(server: string): ServerRecord;
  records(): readonly ServerRecord[];
  /** Saves a change to one server's record (throws `not-found`). */
  updateRecord(server: string, change: (record: ServerRecord) => ServerRecord): ServerRecord;
  audit: { appendClaimsContradicted(input: ClaimsContradictedInput): Promise<{ seq: number }> };
  changes: Pick<ChangeRecorder, 'record' | 'once'>;
  /** The server's page as it is now (the answer to a review). */
  detail(server: string): Promise<ServerDetail>;
  /** A line in the server's log. */
  note(server: string, text: string): void;
  emit: EmitEvent;
  /** Tells the window the servers changed. */
  emitServers(): void;
  /** Told after each audit append (the Activity page refreshes). */
  onDidAppend?(seq: number): void;
  /** Told when a contradiction could not be written to the audit log (its claims are withdrawn all the same). */
  onAuditError?(message: string): void;
  log?(message: string, error?: unknown): void;
}

/** What the call pipeline tells the room about one call it sends. */
export interface CallObserver {
  /**
   * The call is about to be sent; undefined when nothing about its server
   * can be observed. Send it once `watch.ready` resolves (what was queued
   * before it is then read, and not counted as its).
   */
  begin(input: { callId: string; server: string; tool: string; annotations: ToolAnnotations | undefined; fingerprint: string; secrets: readonly string[] }): CallWatch | undefined;
  /**
   * The call returned (or failed): compares what it did with its claims,
   * off the caller's path (one turn of the event loop later, when what its
   * server did just before answering has been read). Never rejects.
   */
  finish(watch: CallWatch): Promise<void>;
  /** The call was not sent after all (its decision could not be recorded, or the tool changed): forget it. */
  drop(watch: CallWatch): void;
  /**
   * Comparisons of this server's calls still under way (undefined: none).
   * The next call to it is decided only once they are done, so a tool whose
   * claims one of them withdraws is decided without them.
   */
  pending(server: string): Promise<void> | undefined;
}

export class ClaimsRoom {
  readonly #calls = new CallObservations();
  readonly #use: GrantUse;
  /** Comparisons under way, by server. */
  readonly #comparing = new Map<string, Set<Promise<void>>>();
  /** Told when a tool's claims are withdrawn or reviewed (the gateway lists tools to other apps again). */
  readonly #listeners = new Set<() => void>();

  constructor(private readonly deps: ClaimsRoomDeps) {
    this.#use = new GrantUse(deps.dataDir, () => deps.records(), undefined, (error) => deps.log?.('could not write when grants were last used', error));
  }

  /** Calls `listener` whenever a tool's claims are withdrawn, or reviewed by the person. */
  onDidChange(listener: () => void): { dispose(): void } {
    this.#listeners.add(listener);
    return { dispose: () => this.#listeners.delete(listener) };
  }

  #changed(): void {
    this.deps.emitServers();
    for (const listener of [...this.#listeners]) listener();
  }

  /** For the sandbox launcher (`SandboxLauncherOptions.observe`). */
  observeLaunch(server: string): LaunchObserver {
    const attached = this.#calls.attach(server);
    return {
      grantChange: (change: GrantChange) => {
        attached.grantChange(change);
        this.#use.noteWrite(server, change.grant);
      },
      settleWith: (settle) => attached.settleWith(settle),
      end: () => attached.end(),
    };
  }

  /** Whether a running launch of the server is observed (tests and the bench read it). */
  observing(server: string): boolean {
    return this.#calls.observing(server);
  }

  /** Every decision of a server's proxy: an attempt during a call is evidence; one let through on a grant is a use of it. */
  observeNetwork(decision: NetworkDecision): void {
    // A connection without the server's credential is another program's, not this server's.
    if (decision.reason === 'no-credential') return;
    this.#calls.noteNetwork(decision.serverName, decision.host, decision.port, decision.allowed);
    if (decision.allowed && decision.reason === 'granted') {
      let record: ServerRecord | undefined;
      try {
        record = this.deps.record(decision.serverName);
      } catch {
        return; // removed meanwhile: nothing to note
      }
      const grant = record.profile.network.allowedDomains.find((candidate) => matchesGrant(decision.host, decision.port, candidate));
      if (grant) this.#use.noteDomain(decision.serverName, grant);
    }
  }

  /** A refusal the OS sandbox reported for a server (macOS): evidence for the calls running as Airlock hears of it. */
  observeRefusal(server: string, line: string): void {
    this.#calls.noteRefusal(server, refusedOperation(line), line);
  }

  /** For the call pipeline. */
  readonly observer: CallObserver = {
    begin: (input) => {
      if (input.secrets.length > 0) this.#use.noteCall(input.server, input.secrets);
      return this.#calls.begin(input);
    },
    finish: (watch) => {
      const comparing = this.#compare(watch);
      const set = this.#comparing.get(watch.server) ?? new Set<Promise<void>>();
      this.#comparing.set(watch.server, set);
      set.add(comparing);
      void comparing.finally(() => {
        set.delete(comparing);
        if (set.size === 0 && this.#comparing.get(watch.server) === set) this.#comparing.delete(watch.server);
      });
      return comparing;
    },
    drop: (watch) => this.#calls.drop(watch),
    pending: (server) => {
      const set = this.#comparing.get(server);
      return set && set.size > 0 ? Promise.all(set).then(() => undefined) : undefined;
    },
  };

  /** Resolves once every comparison under way is done (before the audit log closes; tests). */
  async settled(): Promise<void> {
    while (this.#comparing.size > 0) await Promise.all([...this.#comparing.values()].flatMap((set) => [...set]));
  }

  async #compare(watch: CallWatch): Promise<void> {
    try {
      const seen = await this.#calls.end(watch);
      if (!watch.checked || seen.effects.length === 0) return;
      const contradictions = compareClaims(watch.annotations, seen.effects);
      if (contradictions.length > 0) await this.#contradicted(watch, contradictions, seen.dropped);
    } catch (error) {
      // The call's result stands; what could not be compared is said in the log.
      this.deps.log?.('could not compare a call with its claims', error);
    }
  }

  /** A tool's row: what it did against its claims (undefined: nothing seen). */
  view(record: ServerRecord, tool: string): ClaimsCheckView | undefined {
    const check = claimCheckOf(record, tool);
    if (!check) return undefined;
    return claimsCheckView(check);
  }

  /** A server's grants with when each was last used. */
  grants(record: ServerRecord): GrantUseView[] {
    return this.#use.views(record);
  }

  /**
   * The person's decision about a tool that contradicted its claims: keep
   * trusting them (for the definition it had), or not. `last` is the
   * contradiction they saw; a newer one is refused, to be seen first.
   */
  async review(name: string, tool: string, decision: 'keep' | 'distrust', last: string, by: ChangeActor = 'window'): Promise<ServerDetail> {
    const record = this.deps.record(name);
    const check = claimCheckOf(record, tool);
    if (!check) throw new AirlockError('not-found', `${name} › ${tool} has not done anything its claims say it does not; there is nothing to review.`);
    if (check.last !== last) throw new AirlockError('conflict', `${tool} did something else against its claims since you looked; review the new evidence first.`);
    const reviewed = { at: new Date().toISOString(), by: by === 'command-line' ? ('command-line' as const) : ('window' as const) };
    const was = check.state;
    this.deps.updateRecord(name, (current) => {
      const now = claimCheckOf(current, tool);
      if (!now || now.last !== last) throw new AirlockError('conflict', `${tool} did something else against its claims since you looked; review the new evidence first.`);
      return { ...current, claimChecks: { ...current.claimChecks, [tool]: { ...now, state: decision === 'keep' ? 'kept' : 'distrusted', reviewed } } };
    });
    const claims = check.claims.map((claim) => `“${CLAIM_WORDS[claim]}”`).join(', ');
    this.deps.changes.record({
      change: 'claims-reviewed',
      by,
      server: name,
      tool,
      changes: [
        decision === 'keep'
          ? `claims of ${tool} trusted again (${claims}), for its definition ${check.fingerprint.slice(0, 12)}, after reviewing what it did (was ${was})`
          : `claims of ${tool} not trusted (${claims}): it is treated as claiming nothing (was ${was})`,
      ],
    });
    this.#changed();
    return this.deps.detail(name);
  }

  /** The review channel; the decision is recorded as the calling shell's (the window, or the command line). */
  ipcHandlers(shell: ShellIdentity): Pick<IpcHandlers, 'servers.reviewClaims'> {
    const by = changeActorOf(shell);
    return {
      'servers.reviewClaims': ({ name, tool, decision, last }) => this.deps.changes.once(this.review(name, tool, decision, last, by)),
    };
  }

  /** Writes when grants were last used. */
  close(): void {
    this.#use.close();
  }

  async #contradicted(watch: CallWatch, contradictions: readonly Contradiction[], dropped: number): Promise<void> {
    const at = new Date().toISOString();
    const evidence: ClaimEvidence[] = contradictions.map(({ claim, did, effect }) => ({
      claim,
      did,
      target: targetOf(effect).slice(0, 1200),
      at: new Date(effect.at).toISOString(),
      callId: watch.callId,
      ...(effect.alongside?.length ? { alongside: effect.alongside.slice(0, 20).map((tool) => tool.slice(0, 200)) } : {}),
      ...(effect.kind === 'network' ? { allowed: effect.allowed } : {}),
    }));
    const claims = [...new Set(contradictions.map((c) => c.claim))];
    let effect = 'withdrawn' as ContradictionEffect;
    let saved = false;
    try {
      this.deps.updateRecord(watch.server, (record) => {
        const applied = applyContradiction(claimCheckOf(record, watch.tool), { claims, evidence, fingerprint: watch.fingerprint, at });
        effect = applied.effect;
        return { ...record, claimChecks: { ...record.claimChecks, [watch.tool]: applied.check } };
      });
      saved = true;
    } catch (error) {
      // The server was removed meanwhile: nothing left to withdraw; the entry below still records what it did.
      this.deps.log?.('could not save a contradiction of claims', error);
    }
    try {
      const entry = await this.deps.audit.appendClaimsContradicted({
        callId: watch.callId,
        server: watch.server,
        tool: watch.tool,
        fingerprint: watch.fingerprint,
        claims,
        evidence: evidence.map(({ callId: _callId, ...item }) => item),
        ...(dropped ? { more: dropped } : {}),
        effect,
      });
      this.deps.onDidAppend?.(entry.seq);
    } catch (error) {
      this.deps.onAuditError?.(`A tool did something its claims say it does not (${watch.server} › ${watch.tool}); its claims were withdrawn, but the audit log could not record it: ${messageOf(error)}`);
    }
    const first = evidenceWords(evidence[0]!);
    if (!saved) return;
    if (effect === 'withdrawn') {
      const message = `${watch.server} › ${watch.tool} did something its claims say it does not. ${first} Airlock no longer relies on its claims — it asks before each call, as for a tool that says nothing about itself — until you review what it did on the server's page.`;
      this.deps.note(watch.server, message);
      this.deps.emit('claims.didContradict', { server: watch.server, tool: watch.tool, message });
    } else {
      this.deps.note(watch.server, `${watch.tool} again did something its claims say it does not. ${first}`);
    }
    this.#changed();
  }
}

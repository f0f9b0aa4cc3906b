/**
 * Which call was running when a server did something. A server's launch
 * that Airlock can observe (it has a network proxy, or write grants) is
 * attached here; while a call to it runs, everything it does — its network
 * attempts, the changes in its write grants, the OS sandbox's refusals — is
 * attributed to that call, and when several calls to one server run at once,
 * to each of them, each saying which others were running. What a server
 * does between calls is its own, never a tool's: it is not attributed.
 *
 * Cost: a server with nothing to observe (no proxy, no write grant) has no
 * entry here, and a call to it costs one map lookup. For the others, a call
 * costs a small record; when its write grants are watched and the tool's
 * claims could be contradicted by a change in a file, two turns of the
 * event loop before it is sent (so a change made just before is read first,
 * and not counted as its) and one after it answered, off the caller's path
 * (so a change made just before the answer is not missed).
 */
import type { ToolAnnotations } from '../../../shared/domain';
import type { GrantChange, SeenEntry } from '../sandbox';
import { claimsAnything, statedClaims, type Effect } from './compare-claims';

/** Effects kept per call, and distinct targets; more are counted (the first ones are the evidence). */
export const MAX_EFFECTS_PER_CALL = 200;

/** One call being watched. */
export interface CallWatch {
  readonly callId: string;
  readonly server: string;
  readonly tool: string;
  readonly annotations: ToolAnnotations | undefined;
  readonly fingerprint: string;
  /** `performance.now()` when it was sent: what a grant held before this was there before the call. */
  readonly started: number;
  /** Whether its claims say anything a behaviour could contradict (if not, nothing is compared at its end). */
  readonly checked: boolean;
  /** Whether a change in a file could contradict them (it says it only reads, or that it is not destructive). */
  readonly fileClaims: boolean;
  effects: Effect[];
  /** Effects past the cap, counted. */
  dropped: number;
  /** Per path: the size it had before the call (the first change seen to it says), for "it got shorter". */
  sizes: Map<string, number | undefined>;
  /** Paths this call made: writing to them again is part of making them. */
  made: Set<string>;
  keys: Set<string>;
  /** False until the events already queued before it was sent are read (they are not its). */
  armed: boolean;
  /** Resolves once it is armed: send the call only then. */
  ready: Promise<void>;
}

/** What a call did, once it ended. */
export interface WatchedCall {
  effects: readonly Effect[];
  dropped: number;
}

interface ServerWatch {
  /** Observed launches running (a restart overlaps briefly). */
  launches: number;
  /** Calls in flight. */
  calls: Set<CallWatch>;
  /** Flushes of its grant watchers (a move's first half held back until the end of its batch). */
  settles: Set<() => void>;
}

/** Attributes what servers do to the calls in flight. */
export class CallObservations {
  readonly #servers = new Map<string, ServerWatch>();

  /** A launch of `server` that can be observed started; returns how it reports, and ends. */
  attach(server: string): { grantChange(change: GrantChange): void; settleWith(settle: () => void): void; end(): void } {
    const watch = this.#servers.get(server) ?? { launches: 0, calls: new Set<CallWatch>(), settles: new Set<() => void>() };
    this.#servers.set(server, watch);
    watch.launches += 1;
    let settle: (() => void) | undefined;
    let ended = false;
    return {
      grantChange: (change) => this.noteGrantChange(server, change),
      settleWith: (fn) => {
        settle = fn;
        watch.settles.add(fn);
      },
      end: () => {
        if (ended) return;
        ended = true;
        if (settle) watch.settles.delete(settle);
        watch.launches -= 1;
        if (watch.launches <= 0 && watch.calls.size === 0) this.#servers.delete(server);
      },
    };
  }

  /** Whether anything the server does can be observed now. */
  observing(server: string): boolean {
    return (this.#servers.get(server)?.launches ?? 0) > 0;
  }

  /** A call is being sent: watch it (undefined when nothing about its server can be observed). */
  begin(input: { callId: string; server: string; tool: string; annotations: ToolAnnotations | undefined; fingerprint: string }): CallWatch | undefined {
    const server = this.#servers.get(input.server);
    if (!server || server.launches <= 0) return undefined;
    const stated = statedClaims(input.annotations);
    const watch: CallWatch = {
      ...input,
      started: performance.now(),
      checked: claimsAnything(input.annotations),
      fileClaims: stated.readOnly || stated.notDestructive,
      effects: [],
      dropped: 0,
      sizes: new Map(),
      made: new Set(),
      keys: new Set(),
      armed: true,
      ready: Promise.resolve(),
    };
    if (watch.fileClaims && server.settles.size > 0) {
      // File events the kernel queued before this call was sent (a change made between calls) may not
      // have been read yet: two turns of the event loop take at least one full read of them; the
      // call is sent after, and only what comes then is its. (A tool whose claims no file change can
      // contradict does not wait: nothing queued before could be held against it.)
      watch.armed = false;
      watch.ready = new Promise<void>((resolve) =>
        setImmediate(() =>
          setImmediate(() => {
            for (const settle of server.settles) settle();
            watch.armed = true;
            resolve();
          }),
        ),
      );
    }
    server.calls.add(watch);
    return watch;
  }

  /**
   * The call returned: what it did. For a server whose grants are watched,
   * waits one turn of the event loop first, so that file events read in
   * the same batch as the server's answer are counted.
   */
  async end(watch: CallWatch): Promise<WatchedCall> {
    const server = this.#servers.get(watch.server);
    // Only file events can trail the answer (a network decision is taken before the server gets its connection).
    if (watch.fileClaims && server && server.settles.size > 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (const settle of server.settles) settle();
    }
    server?.calls.delete(watch);
    if (server && server.launches <= 0 && server.calls.size === 0) this.#servers.delete(watch.server);
    return { effects: watch.effects, dropped: watch.dropped };
  }

  /** A call that was not sent after all: no longer in flight, nothing compared. */
  drop(watch: CallWatch): void {
    const server = this.#servers.get(watch.server);
    server?.calls.delete(watch);
    if (server && server.launches <= 0 && server.calls.size === 0) this.#servers.delete(watch.server);
  }

  /** A change in one of the server's write grants. */
  noteGrantChange(server: string, change: GrantChange): void {
    const calls = this.#servers.get(server)?.calls;
    if (!calls || calls.size === 0) return; // between calls: the server's, not a tool's
    const at = Date.now();
    for (const watch of calls) add(watch, fileEffect(watch, change, at), calls);
  }

  /** A network attempt through the server's proxy. */
  noteNetwork(server: string, host: string, port: number, allowed: boolean): void {
    const calls = this.#servers.get(server)?.calls;
    if (!calls || calls.size === 0) return;
    const at = Date.now();
    for (const watch of calls) add(watch, { kind: 'network', host, port, allowed, at }, calls);
  }

  /** Something the OS sandbox refused and reported, while a call ran (as Airlock heard of it). */
  noteRefusal(server: string, operation: 'write' | 'read' | 'network' | 'other', detail: string): void {
    const calls = this.#servers.get(server)?.calls;
    if (!calls || calls.size === 0) return;
    const at = Date.now();
    for (const watch of calls) add(watch, { kind: 'refused', operation, detail, at }, calls);
  }
}

/** Adds an effect to a call, naming the other calls in flight; the same target and kind once. */
function add(watch: CallWatch, effect: Effect, calls: ReadonlySet<CallWatch>): void {
  if (!watch.armed) return;
  // Writing to what this call made is part of making it.
  if (effect.kind === 'modified' && watch.made.has(effect.path)) return;
  if (effect.kind === 'created') watch.made.add(effect.path);
  if (effect.kind === 'renamed') watch.made.add(effect.to);
  const key = `${effect.kind}\u0000${effectTarget(effect)}`;
  const alongside = calls.size > 1 ? [...calls].filter((other) => other !== watch && other.armed).map((other) => other.tool) : undefined;
  const withOthers = alongside?.length ? { ...effect, alongside } : effect;
  if (watch.keys.has(key)) {
    // A file changed again: "it got shorter" is against its size before the call.
    if (effect.kind === 'modified' && effect.shrank) {
      const index = watch.effects.findIndex((e) => e.kind === 'modified' && e.path === effect.path);
      if (index >= 0) watch.effects[index] = { ...(watch.effects[index] as Extract<Effect, { kind: 'modified' }>), shrank: true };
    }
    return;
  }
  if (watch.effects.length >= MAX_EFFECTS_PER_CALL) {
    watch.dropped += 1;
    return;
  }
  watch.keys.add(key);
  watch.effects.push(withOthers);
}

function effectTarget(effect: Effect): string {
  switch (effect.kind) {
    case 'renamed':
      return `${effect.path}\u0000${effect.to}`;
    case 'network':
      return `${effect.host}\u0000${effect.port}`;
    case 'refused':
      return effect.detail;
    default:
      return effect.path;
  }
}

/** A grant change as this call sees it: was what it touched there before the call? */
function fileEffect(watch: CallWatch, change: GrantChange, at: number): Effect {
  const before = (entry: SeenEntry | undefined) => entry !== undefined && entry.since < watch.started;
  switch (change.kind) {
    case 'created':
      return { kind: 'created', path: change.path, replacedExisting: before(change.replaced), at };
    case 'deleted':
      return { kind: 'deleted', path: change.path, existedBefore: before(change.before), at };
    case 'renamed':
      return { kind: 'renamed', path: change.path, to: change.to ?? change.path, existedBefore: before(change.before), replacedExisting: before(change.replaced), at };
    case 'modified': {
      // The size before the call: the first change seen to this path during it says.
      if (!watch.sizes.has(change.path)) watch.sizes.set(change.path, before(change.before) ? change.before!.size : undefined);
      const original = watch.sizes.get(change.path);
      return {
        kind: 'modified',
        path: change.path,
        existedBefore: original !== undefined,
        shrank: original !== undefined && change.size !== undefined && change.size < original,
        at,
      };
    }
  }
}

/**
 * When each grant was last used, from the same observations the claims are
 * checked with: a write grant when a change was seen in it, a domain when
 * the server's proxy let a connection through on its grant, a secret when
 * the server handled a call while it held it (Airlock cannot see a secret
 * read, only the server's work). A read grant cannot be seen used (no
 * event tells a read): it is shown as such, and never suggested for removal.
 *
 * Kept in `grant-use.json` in the data folder, at the precision that
 * matters (an hour): in memory as it happens, written at most every few
 * seconds when something changed, merged with what another Airlock process
 * wrote (the later time wins). A grant unused for 30 days (or never used in
 * the 30 days since Airlock began keeping track of it) is suggested for
 * removal — never removed: only the person removes grants.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { ServerRecord } from '../../../shared/domain';
import type { GrantUseView } from '../../../shared/views';

/** Unused this long: suggested for removal. */
export const UNUSED_AFTER_MS = 30 * 24 * 60 * 60 * 1000;
/** Times closer than this to the one written are not written again. */
const PRECISION_MS = 60 * 60 * 1000;
/** How long a change waits before it is written (several land in one write). */
const WRITE_DELAY_MS = 5_000;

export const GRANT_USE_FILE = 'grant-use.json';

type GrantKind = GrantUseView['kind'];

const UseSchema = z.object({ seen: z.string(), used: z.string().optional() });
const FileSchema = z.object({
  v: z.literal(1),
  /** server → "kind\nvalue" → times. */
  servers: z.record(z.string(), z.record(z.string(), UseSchema)),
});
type UseFile = z.infer<typeof FileSchema>;

const keyOf = (kind: GrantKind, value: string) => `${kind}\n${value}`;
/** A member by own entry (a server may be named `constructor`: names are data). */
const own = <V>(record: Record<string, V>, key: string): V | undefined => (Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined);

/** Every grant of a record, as (kind, value). */
export function grantsOf(record: ServerRecord): Array<{ kind: GrantKind; value: string }> {
  if (record.spec.remote) return record.profile.secrets.map((value) => ({ kind: 'secret' as const, value }));
  return [
    ...record.profile.filesystem.read.map((value) => ({ kind: 'read' as const, value })),
    ...record.profile.filesystem.write.map((value) => ({ kind: 'write' as const, value })),
    ...record.profile.network.allowedDomains.map((value) => ({ kind: 'domain' as const, value })),
    ...record.profile.secrets.map((value) => ({ kind: 'secret' as const, value })),
  ];
}

export class GrantUse {
  readonly #file: string;
  /** Uses seen in this process, not yet written: server → key → epoch ms. */
  readonly #pending = new Map<string, Map<string, number>>();
  /** The last use this process noted, per server and grant (a use within the hour of it says nothing new). */
  readonly #noted = new Map<string, number>();
  /** The file as last read, and its stamp. */
  #cache: { stamp: string; data: UseFile } | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    dataDir: string,
    private readonly records: () => readonly ServerRecord[],
    private readonly now: () => number = () => Date.now(),
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.#file = join(dataDir, GRANT_USE_FILE);
  }

  /** A write grant of `server` saw a change. */
  noteWrite(server: string, grant: string): void {
    this.#note(server, keyOf('write', grant));
  }

  /** A domain grant let a connection through. */
  noteDomain(server: string, grant: string): void {
    this.#note(server, keyOf('domain', grant));
  }

  /** The server handled a call: its secrets (as it holds them now) were in its hands. */
  noteCall(server: string, secrets: readonly string[]): void {
    for (const secret of secrets) this.#note(server, keyOf('secret', secret));
  }

  /** The grants of a server with when each was last used, and what to suggest. */
  views(record: ServerRecord): GrantUseView[] {
    const now = this.now();
    const stored = own(this.#read().servers, record.name) ?? {};
    return grantsOf(record).map(({ kind, value }) => {
      const key = keyOf(kind, value);
      const entry = own(stored, key);
      const pending = this.#pending.get(record.name)?.get(key);
      const usedMs = Math.max(pending ?? 0, entry?.used ? Date.parse(entry.used) || 0 : 0) || undefined;
      const sinceMs = entry ? Date.parse(entry.seen) || now : now;
      const observable = kind !== 'read';
      const idle = now - (usedMs ?? sinceMs);
      const suggestRemoval = observable && idle >= UNUSED_AFTER_MS;
      return {
        kind,
        value,
        ...(usedMs ? { lastUsed: new Date(usedMs).toISOString() } : {}),
        ...(entry ? { since: entry.seen } : {}),
        observable,
        note: noteFor(kind, usedMs, sinceMs, now, entry !== undefined),
        suggestRemoval,
      };
    });
  }

  /** Writes what is pending now (and starts keeping track of grants not yet known). */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    try {
      const data = this.#read(true);
      const now = new Date(this.now()).toISOString();
      let changed = false;
      const records = this.records();
      const live = new Set(records.map((record) => record.name));
      for (const name of Object.keys(data.servers)) {
        if (!live.has(name)) {
          delete data.servers[name];
          changed = true;
        }
      }
      for (const record of records) {
        const stored = own(data.servers, record.name) ?? (data.servers[record.name] = {});
        const keys = new Set<string>();
        for (const { kind, value } of grantsOf(record)) {
          const key = keyOf(kind, value);
          keys.add(key);
          let entry = own(stored, key);
          if (!entry) {
            entry = stored[key] = { seen: now };
            changed = true;
          }
          const used = this.#pending.get(record.name)?.get(key);
          const was = entry.used ? Date.parse(entry.used) : 0;
          if (used !== undefined && used > was) {
            entry.used = new Date(used).toISOString();
            changed = true;
          }
        }
        // A grant taken away is forgotten (given again, it starts afresh).
        for (const key of Object.keys(stored)) {
          if (!keys.has(key)) {
            delete stored[key];
            changed = true;
          }
        }
      }
      this.#pending.clear();
      if (!changed) return;
      mkdirSync(dirname(this.#file), { recursive: true, mode: 0o700 });
      const temp = `${this.#file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(data), { mode: 0o600 });
      renameSync(temp, this.#file);
      this.#cache = { stamp: stampOf(this.#file), data };
    } catch (error) {
      // What was lost is when a grant was last used, never a grant: the next use is noted again.
      this.onError(error);
    }
  }

  /** Writes soon (several uses land in one write). */
  flushSoon(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.flush(), WRITE_DELAY_MS);
    this.#timer.unref();
  }

  close(): void {
    this.flush();
  }

  // On the call path for a server with secrets: one map lookup when nothing new is to be said.
  #note(server: string, key: string): void {
    const now = this.now();
    const id = `${server}\u0000${key}`;
    const last = this.#noted.get(id);
    if (last !== undefined && now - last < PRECISION_MS) return;
    this.#noted.set(id, now);
    if (this.#noted.size > 10_000) this.#noted.delete(this.#noted.keys().next().value!);
    let uses = this.#pending.get(server);
    if (!uses) this.#pending.set(server, (uses = new Map()));
    uses.set(key, now);
    this.flushSoon();
  }

  /** The file as it is (read again when it changed on disk); a fresh copy when it will be changed. */
  #read(forWrite = false): UseFile {
    const stamp = stampOf(this.#file);
    if (!this.#cache || this.#cache.stamp !== stamp) {
      let data: UseFile = { v: 1, servers: {} };
      try {
        const parsed = FileSchema.safeParse(JSON.parse(readFileSync(this.#file, 'utf8')));
        // An unreadable file holds only times: starting afresh loses no grant.
        if (parsed.success) data = parsed.data;
      } catch {
        // Absent (nothing tracked yet) or unreadable: start afresh, as above.
      }
      this.#cache = { stamp, data };
    }
    return forWrite ? (JSON.parse(JSON.stringify(this.#cache.data)) as UseFile) : this.#cache.data;
  }
}

function stampOf(file: string): string {
  try {
    const info = statSync(file);
    return `${info.ino}:${info.size}:${info.mtimeMs}`;
  } catch {
    return 'absent';
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

function ago(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  if (days >= 2) return `${days} days ago`;
  if (days === 1) return 'yesterday';
  return 'today';
}

function noteFor(kind: GrantKind, usedMs: number | undefined, sinceMs: number, now: number, tracked: boolean): string {
  if (kind === 'read') return 'Airlock cannot see reads, so it cannot tell when this was last used.';
  const how = kind === 'secret' ? ' (when the server last handled a call holding it)' : '';
  if (usedMs !== undefined) return `Last used ${ago(now - usedMs)}${how}.`;
  if (!tracked) return 'Not seen used yet.';
  const days = Math.floor((now - sinceMs) / DAY_MS);
  return days >= 1 ? `Not used in the ${days} day${days === 1 ? '' : 's'} Airlock has kept track of it.` : 'Not seen used yet.';
}

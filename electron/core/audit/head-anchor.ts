/**
 * Head anchoring: the head (`audit.head.json`) records where the log ends —
 * the last entry's seq and hash, how far it is known flushed, keyed with the
 * log's key — so entries cut from the end are found (a hash chain alone only
 * finds edits). `HeadWriter` rewrites it in place under the log's lock;
 * `anchorFinding` is what a writer taking over reads from it: the end it
 * found against the end the head records, as an `anchor` entry to write.
 *
 * SECURITY: issue 9.6 — an unkeyed checksum proves nothing about the end; the
 * head is keyed (audit-key.ts), and a head the key does not verify is noted.
 */
import { join } from 'node:path';
import type { AuditFileSystem } from './audit-fs';
import type { AuditKey } from './audit-key';
import { HEAD_BYTES, HEAD_FILE, checkHead, headBytes, type AnchorFinding } from './entries';
import { closeQuietly, readHeadText, type Tail } from './log-files';

/** What the head writer needs from the log. */
export interface HeadWriterDeps {
  files: AuditFileSystem;
  dir: string;
  key: AuditKey | undefined;
  /** True while this process holds the log's lock: a head left due is written only then. */
  holdsLock(): boolean;
  /** The head file was created: the folder changed, and its fsync is due. */
  created(): void;
}

/**
 * Writes the head in place. It is a record, not the entry itself: a failure
 * here does not undo a batch (the next take-over notes it).
 */
export class HeadWriter {
  readonly #deps: HeadWriterDeps;
  #fd: number | null = null;
  #ino = -1;
  /** The end the head must record, written by `writeDue` (see the writer's batches). */
  #due: { tail: Tail; check: boolean } | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** The last entry known to be flushed to disk (recorded in the head as `durable`). */
  durableSeq = 0;

  constructor(deps: HeadWriterDeps) {
    this.#deps = deps;
  }

  /** The open head file, if any (flushed after the log). */
  get fd(): number | null {
    return this.#fd;
  }

  /** Writes the head for `tail` now; with `check`, first makes sure the open file is still the one at the path. */
  write(tail: Tail, check = true): void {
    const files = this.#deps.files;
    const path = join(this.#deps.dir, HEAD_FILE);
    if (this.#due && this.#due.tail.seq <= tail.seq) this.#due = null;
    try {
      // Still the file at the path (not deleted or replaced since)? Checked with the others.
      const stat = check || this.#fd === null ? files.stat(path) : { ino: this.#ino, size: HEAD_BYTES };
      if (this.#fd !== null && (!stat || stat.ino !== this.#ino)) this.close();
      if (this.#fd === null) {
        this.#fd = files.openInPlace(path);
        this.#ino = files.fstat(this.#fd).ino;
        if (!stat) this.#deps.created();
      }
      const record = headBytes(tail.seq, tail.hash, Math.min(this.durableSeq, tail.seq), this.#deps.key);
      files.write(this.#fd, record, 0, HEAD_BYTES, 0);
    } catch {
      // Not written: the next take-over finds the head behind the log and notes it.
      this.close();
    }
  }

  /** Leaves the head for `tail` due: written by `writeDue`, or by a timer `ms` later. */
  later(tail: Tail, ms: number): void {
    this.#due = { tail, check: false };
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.writeDue();
    }, ms);
    this.#timer.unref?.();
  }

  /** Writes the head a batch left due, if this process still holds the lock it wrote under. */
  writeDue(): void {
    const due = this.#due;
    if (!due) return;
    this.#due = null;
    if (this.#deps.holdsLock()) this.write(due.tail, due.check);
  }

  /** Another process writes now: a head left due would overwrite its. */
  forgetDue(): void {
    this.#due = null;
  }

  stopTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  close(): void {
    if (this.#fd !== null) closeQuietly(this.#deps.files, this.#fd);
    this.#fd = null;
  }
}

/**
 * What the head says about the end, against the tail a writer taking over
 * just read: an `anchor` entry's body when they disagree (or the head cannot
 * be trusted), and the durable point the head recorded, when it can be.
 */
export function anchorFinding(files: AuditFileSystem, dir: string, key: AuditKey | undefined, tail: Tail): { note?: Record<string, unknown>; durableSeq?: number } {
  const check = checkHead(readHeadText(files, join(dir, HEAD_FILE)), key);
  const note = (finding: AnchorFinding, detail: string, headSeq?: number) => ({ note: { type: 'anchor', callId: '', server: '', tool: '', finding, detail, ...(headSeq !== undefined ? { headSeq } : {}) } });
  switch (check.status) {
    case 'missing':
      return tail.seq === 0 ? {} : note('head-missing', `The record of where the log ended (${HEAD_FILE}) was missing: Airlock cannot confirm that no entries after entry ${tail.seq} were cut off.`);
    case 'malformed':
    case 'forged':
      return note('head-forged', `The record of where the log ended does not verify with Airlock's key: it was changed outside Airlock. Entries after entry ${tail.seq} may have been cut off.`);
    case 'other-key':
      return note('head-other-key', `The record of where the log ended was made with another key (an Airlock process that does not share this one's key, or forged): Airlock cannot confirm that no entries after entry ${tail.seq} were cut off.`, check.head.seq);
    case 'unkeyed':
      // After an entry this version wrote (v2), a head without a key was put there by someone else.
      if (tail.v === 2) {
        return note('head-forged', `The record of where the log ended carried no key, though Airlock keys it: it was replaced outside Airlock. Entries after entry ${tail.seq} may have been cut off.`, check.head.seq);
      }
      return note('head-unkeyed', `The record of where the log ended carried no key (written by an older Airlock): the end up to entry ${tail.seq} is taken as found.`, check.head.seq);
    case 'valid':
    case 'unchecked': {
      const { head } = check;
      const durableSeq = Math.min(head.durable ?? 0, tail.seq);
      if (head.seq > tail.seq) {
        const unflushed = tail.seq >= (head.durable ?? 0);
        return {
          durableSeq,
          ...note(
            'truncated',
            `The log ended at entry ${tail.seq}, but Airlock had written up to entry ${head.seq}: entries ${tail.seq + 1}–${head.seq} were ${unflushed ? 'lost (they were not yet flushed to disk when the machine stopped) or cut off' : 'cut off'}.`,
            head.seq,
          ),
        };
      }
      if (head.seq === tail.seq && head.hash !== tail.hash) {
        return { durableSeq, ...note('rewritten', `The log's last entry (${tail.seq}) is not the one Airlock wrote there: the end was rewritten.`, head.seq) };
      }
      if (head.seq < tail.seq) {
        return { durableSeq, ...note('unanchored-entries', `Entries ${head.seq + 1}–${tail.seq} came after the recorded end (written just before a crash, or added by hand).`, head.seq) };
      }
      return { durableSeq };
    }
  }
}

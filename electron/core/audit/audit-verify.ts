/**
 * Verifying the audit log: every line once, streaming a file at a time
 * (bounded memory at any size), each entry's hash, its link to the one
 * before, its place in the sequence, a sealed torn write accepted only with a
 * repair entry naming exactly its bytes — then the end against the keyed head.
 *
 * A clean check leaves a mark of where the chain it checked ended; given that
 * mark, the next check reads only the lines appended since (the Activity
 * page's check after each append), and checks everything again whenever the
 * files before the mark are not exactly the ones it checked (so a rotation, a
 * truncation, or a replaced last entry falls back to the whole check).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { ACTIVE_FILE, FAILING_FINDINGS, GENESIS_HASH, HEAD_FILE, checkHead, damagedRunBytes, lineHashMatches, type AuditEntry, type HeadCheck } from './entries';
import { closeAll, forEachLine, openFile, parseEntry, snapshot, type ReaderContext, type SnapshotFile } from './log-snapshot';

/** Where verification failed. `line` is 1-based within `file`. */
export interface AuditProblem {
  file: string;
  line: number;
  kind: 'malformed' | 'edited' | 'removed' | 'reordered' | 'broken-chain' | 'truncated' | 'end-unconfirmed' | 'head-tampered';
  message: string;
}

/** Something worth showing that is not tampering (a repaired write, a note Airlock wrote on taking over). */
export interface AuditNote {
  file: string;
  line: number;
  message: string;
}

/** The result of `verify()`. */
export interface VerifyResult {
  ok: boolean;
  entries: number;
  files: string[];
  problem?: AuditProblem;
  /** Incomplete writes sealed by a repair entry (not tampering, but worth showing). */
  repaired: { file: string; line: number }[];
  /** Findings worth showing that do not fail verification. */
  notes: AuditNote[];
  /**
   * The end of the log: `confirmed` by the keyed head (or `empty`);
   * `unchecked` when no key was given (the head is only a hint).
   */
  end: 'confirmed' | 'empty' | 'unchecked' | 'unconfirmed' | 'tampered' | 'truncated';
}

/** A verification, with how much it read and where the next may start. */
export interface ChainCheck extends VerifyResult {
  /** `all`: every line was checked; `new`: only the lines after a previous check's mark (see `VerifiedMark`). */
  scope: 'all' | 'new';
  /** Where the chain this check saw ended cleanly (absent when a line failed): what the next check may start from. */
  mark?: VerifiedMark;
}

/**
 * Where a clean check of the chain ended: the files it read (identity and
 * size), the last entry's line, and the chain's state after it. Held in
 * memory only; a check that starts from it reads no byte before it.
 */
export interface VerifiedMark {
  files: Array<{ name: string; ino: number; size: number }>;
  /** The last entry's line: the file (by inode), where the line ends, and its length with the newline. */
  lastLine?: { ino: number; end: number; length: number };
  /** Lines in the last file (line numbers go on from here). */
  lineNo: number;
  expectedPrev: string;
  expectedSeq: number;
  entries: number;
  lastVersion?: number;
  last: { file: string; line: number };
  repaired: { file: string; line: number }[];
  notes: AuditNote[];
}

// True when `entry` is a well-formed repair entry for exactly the damaged lines starting at `line`.
function repairs(entry: AuditEntry, line: number, damaged: Buffer[]): boolean {
  if (entry.type !== 'repair') return false;
  const r = entry;
  const run = damagedRunBytes(damaged);
  return (
    r.damagedLine === line &&
    (r.damagedLines ?? 1) === damaged.length &&
    r.damagedBytes === run.length &&
    r.damagedSha256 === createHash('sha256').update(run).digest('hex')
  );
}

const ANCHOR_KIND: Record<string, AuditProblem['kind']> = {
  'head-missing': 'end-unconfirmed',
  'head-other-key': 'end-unconfirmed',
  'head-forged': 'head-tampered',
  truncated: 'truncated',
  rewritten: 'edited',
};

/**
 * Where a check may start from `mark` in this snapshot: the files before the
 * mark's last one unchanged (name, inode, size), its last one still there
 * (renamed by a rotation, perhaps) and no shorter, and the last entry it
 * checked still at its place with the hash the chain goes on from. Anything
 * else: undefined (check everything).
 */
async function resumeFrom(dir: string, files: SnapshotFile[], mark: VerifiedMark): Promise<{ index: number; position: number; lineNo: number } | undefined> {
  const index = mark.files.length - 1;
  if (index < 0 || files.length < mark.files.length) return undefined;
  for (let i = 0; i < index; i += 1) {
    const was = mark.files[i]!;
    const is = files[i]!;
    if (is.name !== was.name || is.ino !== was.ino || is.size !== was.size) return undefined;
  }
  const was = mark.files[index]!;
  const is = files[index]!;
  if (is.ino !== was.ino || is.size < was.size) return undefined;
  if (mark.lastLine) {
    const line = mark.lastLine;
    const file = files.slice(0, index + 1).find((f) => f.ino === line.ino);
    if (!file || line.end > file.size || line.length < 2) return undefined;
    const handle = await openFile(dir, file);
    try {
      const bytes = Buffer.alloc(line.length);
      const { bytesRead } = await handle.read(bytes, 0, line.length, line.end - line.length);
      if (bytesRead !== line.length || bytes[line.length - 1] !== 0x0a || (line.end > line.length && !(await endsWithNewline(handle, line.end - line.length)))) return undefined;
      const parsed = parseEntry(bytes.subarray(0, line.length - 1));
      if (!parsed || parsed.entry.hash !== mark.expectedPrev || parsed.entry.seq !== mark.expectedSeq - 1 || !lineHashMatches(parsed.text, parsed.entry)) return undefined;
    } finally {
      if (!file.handle) await handle.close();
    }
  } else if (mark.expectedSeq !== 1) {
    return undefined;
  }
  return { index, position: was.size, lineNo: mark.lineNo };
}

// True when the byte before `at` is a newline (the line read starts a line).
async function endsWithNewline(handle: fs.FileHandle, at: number): Promise<boolean> {
  const byte = Buffer.alloc(1);
  const { bytesRead } = await handle.read(byte, 0, 1, at - 1);
  return bytesRead === 1 && byte[0] === 0x0a;
}

/**
 * Checks the chain and the end; see `AuditLog.verify`. With `mark` (from an
 * earlier clean check by the same process), only the lines after it, when
 * the files before it are exactly the ones that check read; else all of it.
 */
export async function verifyAudit(context: ReaderContext, mark?: VerifiedMark): Promise<ChainCheck> {
  const snap = await snapshot(context);
  const files = snap.files.map((f) => f.name);
  let resume: { index: number; position: number; lineNo: number } | undefined;
  try {
    resume = mark ? await resumeFrom(context.dir, snap.files, mark) : undefined;
  } catch (error) {
    await closeAll(snap.files);
    throw error;
  }
  const head = checkHead(snap.headText, context.key);
  const headRecord = 'head' in head ? head.head : undefined;
  // A head behind the mark names an entry this check will not read again: read everything.
  if (resume && mark && headRecord && headRecord.seq < mark.expectedSeq - 1) resume = undefined;
  const from = resume ? mark : undefined;
  const walk = new ChainWalk(from, files[0] ?? ACTIVE_FILE, head);
  // A rotation renamed the file the mark ends in: what was found in it is now under the new name.
  if (from && resume) walk.renamed(from.files[resume.index]!.name, snap.files[resume.index]!.name);

  try {
    for (let index = resume?.index ?? 0; index < snap.files.length; index += 1) {
      await walk.file(context.dir, snap.files[index]!, resume && index === resume.index ? { position: resume.position, lineNo: resume.lineNo } : undefined);
      if (walk.problem) break;
      if (index < snap.files.length - 1) walk.lineNo = 0;
    }
  } finally {
    await closeAll(snap.files);
  }
  const scope: ChainCheck['scope'] = resume ? 'new' : 'all';
  const { entries, repaired, notes } = walk;

  if (walk.problem) {
    const problem = walk.problem.kind === 'broken-chain' ? await classifyBreak(context.dir, snap.files, walk.problem, walk.expectedSeq) : walk.problem;
    return { ok: false, entries, files, problem, repaired, notes, end: 'unconfirmed', scope };
  }
  // The chain is clean to the end of the files: the next check may start here (the head is checked each time).
  return judgeEnd(walk, head, { files, scope, mark: walk.mark(snap.files) });
}

/** Lines that are not entries, from `line` on. */
interface Damaged {
  line: number;
  lines: Buffer[];
}

/** The chain as a check walks it: what it expects next, where it is, and what it found. */
class ChainWalk {
  expectedPrev: string;
  expectedSeq: number;
  entries: number;
  lastVersion: number | undefined;
  last: { file: string; line: number };
  readonly repaired: { file: string; line: number }[];
  readonly notes: AuditNote[];
  lastLine: VerifiedMark['lastLine'];
  lineNo: number;
  problem: AuditProblem | undefined;
  readonly #head: HeadCheck;
  /** Lines of the current file that are not entries, accepted only when a repair entry names exactly them next. */
  #damaged: Damaged | undefined;

  constructor(from: VerifiedMark | undefined, firstFile: string, head: HeadCheck) {
    this.expectedPrev = from?.expectedPrev ?? GENESIS_HASH;
    this.expectedSeq = from?.expectedSeq ?? 1;
    this.entries = from?.entries ?? 0;
    this.lastVersion = from?.lastVersion;
    this.last = from ? { ...from.last } : { file: firstFile, line: 0 };
    this.repaired = from ? [...from.repaired] : [];
    this.notes = from ? [...from.notes] : [];
    this.lastLine = from?.lastLine;
    this.lineNo = from?.lineNo ?? 0;
    this.#head = head;
  }

  /** The file `was` is now named `is` (a rotation since the mark). */
  renamed(was: string, is: string): void {
    if (was === is) return;
    const rename = <T extends { file: string }>(where: T): T => (where.file === was ? { ...where, file: is } : where);
    this.last = rename(this.last);
    this.repaired.splice(0, this.repaired.length, ...this.repaired.map(rename));
    this.notes.splice(0, this.notes.length, ...this.notes.map(rename));
  }

  /** Checks a file's lines (from `from`, when resuming), stopping at the first problem. */
  async file(dir: string, file: SnapshotFile, from?: { position: number; lineNo: number }): Promise<void> {
    const handle = await openFile(dir, file);
    this.#damaged = undefined;
    try {
      await forEachLine(handle, file.size, (bytes, lineNo, terminated) => this.#line(file, bytes, lineNo, terminated), from);
    } finally {
      if (!file.handle) await handle.close();
    }
    // Lines that are not entries at the end of a file: no repair followed them.
    const unsealed = this.#unsealed();
    if (!this.problem && unsealed) {
      this.problem = { file: file.name, line: unsealed.line, kind: 'malformed', message: 'This line is not an audit entry.' };
    }
  }

  #unsealed(): Damaged | undefined {
    return this.#damaged;
  }

  /** Where the chain ended cleanly, for the next check. */
  mark(files: readonly SnapshotFile[]): VerifiedMark {
    return {
      files: files.map((f) => ({ name: f.name, ino: f.ino, size: f.size })),
      ...(this.lastLine ? { lastLine: this.lastLine } : {}),
      lineNo: this.lineNo,
      expectedPrev: this.expectedPrev,
      expectedSeq: this.expectedSeq,
      entries: this.entries,
      ...(this.lastVersion !== undefined ? { lastVersion: this.lastVersion } : {}),
      last: { ...this.last },
      repaired: [...this.repaired],
      notes: [...this.notes],
    };
  }

  // One line: true to go on, false once a problem is found.
  #line(file: SnapshotFile, bytes: Buffer, lineNo: number, terminated: boolean): boolean {
    this.lineNo = lineNo;
    const where = { file: file.name, line: lineNo };
    const damaged = this.#damaged;
    if (!terminated) {
      this.problem = {
        ...(damaged ? { file: file.name, line: damaged.line } : where),
        kind: 'malformed',
        message: 'The last line is incomplete (a write was cut short, or the file was edited); the next append seals it.',
      };
      return false;
    }
    const parsed = parseEntry(bytes);
    if (!parsed) {
      // Accepted only when the next entry is a repair naming exactly these bytes.
      this.#damaged ??= { line: lineNo, lines: [] };
      this.#damaged.lines.push(bytes);
      return true;
    }
    const { entry, text } = parsed;
    if (damaged) {
      if (!repairs(entry, damaged.line, damaged.lines)) {
        this.problem = { file: file.name, line: damaged.line, kind: 'malformed', message: 'This line is not an audit entry.' };
        return false;
      }
      this.repaired.push({ file: file.name, line: damaged.line });
      this.#damaged = undefined;
    }
    if (!lineHashMatches(text, entry)) {
      this.problem = { ...where, kind: 'edited', message: 'This entry was changed after it was written.' };
      return false;
    }
    if (entry.prevHash !== this.expectedPrev || entry.seq !== this.expectedSeq) {
      this.problem = { ...where, kind: 'broken-chain', message: 'This entry does not follow the one before it.' };
      return false;
    }
    const head = this.#head;
    if ('head' in head && entry.seq === head.head.seq) {
      if (entry.hash !== head.head.hash && (head.status === 'valid' || head.status === 'unchecked')) {
        this.problem = { ...where, kind: 'edited', message: 'This entry differs from the one Airlock last recorded.' };
        return false;
      }
    }
    if (entry.type === 'anchor') {
      const anchor = entry;
      if (FAILING_FINDINGS.has(anchor.finding)) {
        this.problem = { ...where, kind: ANCHOR_KIND[anchor.finding] ?? 'end-unconfirmed', message: `Found by Airlock at ${anchor.time}: ${String(anchor.detail)}` };
        return false;
      }
      this.notes.push({ ...where, message: `Noted by Airlock at ${anchor.time}: ${String(anchor.detail)}` });
    }
    this.expectedPrev = entry.hash;
    this.expectedSeq = entry.seq + 1;
    this.lastVersion = entry.v;
    this.entries++;
    this.last = where;
    // Clean to here: every later line of this file is this entry's successor (or a problem), so it ends at the file's end if the check ends clean.
    this.lastLine = { ino: file.ino, end: file.size, length: bytes.length + 1 };
    return true;
  }
}

/** A chain clean to the end of its files, judged against the head. */
function judgeEnd(walk: ChainWalk, head: HeadCheck, check: { files: string[]; scope: ChainCheck['scope']; mark: VerifiedMark }): ChainCheck {
  const { entries, repaired, notes, last, lastVersion } = walk;
  const { files, scope, mark } = check;
  const lastSeq = walk.expectedSeq - 1;
  const fail = (kind: AuditProblem['kind'], message: string, status: VerifyResult['end']): ChainCheck => ({
    ok: false,
    entries,
    files,
    problem: { ...last, kind, message },
    repaired,
    notes,
    end: status,
    scope,
    mark,
  });
  switch (head.status) {
    case 'missing':
      if (lastSeq === 0) return { ok: true, entries, files, repaired, notes, end: 'empty', scope, mark };
      return fail('end-unconfirmed', `Airlock cannot confirm the end of the log: the record of where it ended (${HEAD_FILE}) is missing, so entries after entry ${lastSeq} could have been cut off.`, 'unconfirmed');
    case 'malformed':
    case 'forged':
      return fail('head-tampered', `The record of where the log ended (${HEAD_FILE}) does not verify with Airlock's key: it was changed outside Airlock, and entries after entry ${lastSeq} may have been cut off.`, 'tampered');
    case 'other-key':
      return fail('end-unconfirmed', `Airlock cannot confirm the end of the log: the record of where it ended was made with another key (an Airlock process that does not share this one's key, or forged).`, 'unconfirmed');
    case 'unkeyed':
      if (lastVersion === 2) {
        return fail('head-tampered', `The record of where the log ended (${HEAD_FILE}) carries no key, though Airlock keys it: it was replaced outside Airlock, and entries after entry ${lastSeq} may have been cut off.`, 'tampered');
      }
      return fail('end-unconfirmed', `Airlock cannot confirm the end of the log: the record of where it ended carries no key (written by an older Airlock). The next call Airlock records anchors it.`, 'unconfirmed');
    case 'valid':
    case 'unchecked': {
      const record = head.head;
      if (record.seq > lastSeq) {
        const lostInPowerCut = record.durable !== undefined && lastSeq >= record.durable;
        return fail(
          'truncated',
          `The log ends at entry ${lastSeq}, but Airlock wrote up to entry ${record.seq}: entries at the end were ${lostInPowerCut ? 'lost (they had not yet been flushed to disk when the machine stopped) or removed' : 'removed'}.`,
          'truncated',
        );
      }
      if (record.seq < lastSeq) {
        notes.push({ ...last, message: `Entries ${record.seq + 1}–${lastSeq} come after the last recorded end of the log (written just before Airlock stopped, or added by hand).` });
      }
      return { ok: true, entries, files, repaired, notes, end: lastSeq === 0 ? 'empty' : head.status === 'valid' ? 'confirmed' : 'unchecked', scope, mark };
    }
  }
}

// A link is broken: tell a moved entry from missing ones (a second pass, only on failure).
async function classifyBreak(dir: string, files: SnapshotFile[], problem: AuditProblem, expectedSeq: number): Promise<AuditProblem> {
  const present = new Set<number>();
  let found: AuditEntry | undefined;
  for (const file of files) {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(join(dir, file.name), 'r');
    } catch {
      continue;
    }
    try {
      await forEachLine(handle, file.size, (bytes, lineNo) => {
        const text = bytes.toString('utf8');
        const m = /"seq":(\d+)/.exec(text);
        if (m) present.add(Number(m[1]));
        if (file.name === problem.file && lineNo === problem.line) found = parseEntry(bytes)?.entry;
        return true;
      });
    } finally {
      await handle.close();
    }
  }
  const seq = found?.seq;
  if (typeof seq === 'number' && seq > expectedSeq && present.has(expectedSeq)) {
    return { ...problem, kind: 'reordered', message: `Entry ${seq} appears before entry ${expectedSeq}: entries were moved.` };
  }
  if (typeof seq === 'number' && seq > expectedSeq) {
    return {
      ...problem,
      kind: 'removed',
      message: seq - 1 === expectedSeq ? `Entry ${expectedSeq} is missing before this line.` : `Entries ${expectedSeq}–${seq - 1} are missing before this line.`,
    };
  }
  if (typeof seq === 'number' && seq < expectedSeq) {
    return { ...problem, kind: 'reordered', message: `Entry ${seq} appears after entry ${expectedSeq - 1}: entries were moved.` };
  }
  return { ...problem, message: 'The entry before this one was replaced or rewritten.' };
}

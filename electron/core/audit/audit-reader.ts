/**
 * Reading the audit log: `verifyAudit` checks every line once, streaming a
 * file at a time (bounded memory at any size), and leaves a mark of where
 * the chain it checked ended; given that mark it checks only the lines
 * appended since (the Activity page's check after each append), and checks
 * everything again whenever the files before the mark are not exactly the
 * ones it checked (so a rotation, a truncation, or a replaced last entry
 * falls back to the whole check). `readAudit` reads from the
 * end backwards and stops as soon as the page is full, so the Activity
 * page's first page costs the same with a thousand entries or a million.
 * Both note which files to read, and how far, under the log's lock (no
 * append or rotation is half-way), then read without it.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { Verdict } from '../../../shared/domain';
import type { AuditKey } from './audit-key';
import {
  ACTIVE_FILE,
  FAILING_FINDINGS,
  GENESIS_HASH,
  HEAD_FILE,
  ROTATED,
  checkHead,
  damagedRunBytes,
  lineHashMatches,
  type AuditEntry,
  type ChangeEntry,
  type ClaimsContradictedEntry,
  type DecisionEntry,
  type NetworkEntry,
  type OutcomeEntry,
  type SandboxRefusalEntry,
} from './entries';

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

/** A decision with its outcome, as `read()` returns them (newest first). */
export interface AuditRecord {
  decision: DecisionEntry;
  outcome?: OutcomeEntry;
}

/** A row of the Activity page: a call, a network decision, or a change a person made. */
export type ActivityRecord = AuditRecord | { network: NetworkEntry } | { change: ChangeEntry } | { refusal: SandboxRefusalEntry } | { claims: ClaimsContradictedEntry };

/** Filters for `read()`. `decision` matches the policy verdict, or the final allow/deny. */
export interface AuditQuery {
  server?: string;
  tool?: string;
  decision?: Verdict;
  limit?: number;
}

export interface ReaderContext {
  dir: string;
  key?: AuditKey;
  /** Takes the log's lock; resolves with its release. */
  lock: () => Promise<() => void>;
}

interface SnapshotFile {
  name: string;
  size: number;
  ino: number;
  /** The active file is opened under the lock (a rotation afterwards keeps this inode). */
  handle?: fs.FileHandle;
}

interface Snapshot {
  files: SnapshotFile[];
  headText: string | null;
}

async function snapshot(context: ReaderContext): Promise<Snapshot> {
  const names = await fs.readdir(context.dir).catch(() => null);
  if (names === null) return { files: [], headText: null };
  const release = await context.lock();
  const files: SnapshotFile[] = [];
  let headText: string | null = null;
  try {
    const rotated = (await fs.readdir(context.dir))
      .map((name) => ({ name, m: ROTATED.exec(name) }))
      .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
      .sort((a, b) => Number(a.m[1]) - Number(b.m[1]));
    for (const { name } of rotated) {
      const stat = await fs.stat(join(context.dir, name)).catch(() => null);
      if (stat) files.push({ name, size: stat.size, ino: stat.ino });
    }
    try {
      const handle = await fs.open(join(context.dir, ACTIVE_FILE), 'r');
      const stat = await handle.stat();
      files.push({ name: ACTIVE_FILE, size: stat.size, ino: stat.ino, handle });
    } catch {
      // no active file yet
    }
    try {
      headText = (await fs.readFile(join(context.dir, HEAD_FILE), 'utf8')).trim();
    } catch (error) {
      headText = (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : '';
    }
  } finally {
    release();
  }
  return { files, headText };
}

async function openFile(dir: string, file: SnapshotFile): Promise<fs.FileHandle> {
  return file.handle ?? fs.open(join(dir, file.name), 'r');
}

async function closeAll(files: SnapshotFile[]): Promise<void> {
  // A file that fails to close was only read: nothing is lost.
  await Promise.all(files.flatMap((f) => (f.handle ? [f.handle.close().catch(() => undefined)] : [])));
}

const CHUNK = 1024 * 1024;
/** A longer line is not an entry Airlock wrote (arguments are capped far below): reading it whole would let a file grow memory. */
const MAX_LINE = 16 * 1024 * 1024;

/**
 * Calls `onLine` for every line of the first `size` bytes (from `from`, a
 * line's start, when given), in order, reading a chunk at a time. `terminated` is false only for a last line without a
 * newline. Returns false if `onLine` returned false (stop).
 */
async function forEachLine(
  handle: fs.FileHandle,
  size: number,
  onLine: (bytes: Buffer, lineNo: number, terminated: boolean) => boolean,
  from: { position: number; lineNo: number } = { position: 0, lineNo: 0 },
): Promise<boolean> {
  let carry: Buffer = Buffer.alloc(0);
  let position = from.position;
  let lineNo = from.lineNo;
  while (position < size) {
    const want = Math.min(CHUNK, size - position);
    const chunk = Buffer.alloc(want);
    const { bytesRead } = await handle.read(chunk, 0, want, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    let data = chunk.subarray(0, bytesRead);
    if (carry.length) data = Buffer.concat([carry, data]);
    let start = 0;
    for (;;) {
      const nl = data.indexOf(0x0a, start);
      if (nl < 0) break;
      lineNo += 1;
      if (!onLine(data.subarray(start, nl), lineNo, true)) return false;
      start = nl + 1;
    }
    carry = Buffer.from(data.subarray(start));
    if (carry.length > MAX_LINE) {
      // Handed on as one bad line (it cannot parse); the rest of it is skipped up to the next newline.
      lineNo += 1;
      if (!onLine(carry.subarray(0, 64), lineNo, true)) return false;
      const rest = await skipToNewline(handle, position, size);
      position = rest;
      carry = Buffer.alloc(0);
    }
  }
  if (carry.length) {
    lineNo += 1;
    if (!onLine(carry, lineNo, false)) return false;
  }
  return true;
}

async function skipToNewline(handle: fs.FileHandle, from: number, size: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  let position = from;
  while (position < size) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, size - position), position);
    if (bytesRead === 0) return size;
    const nl = chunk.subarray(0, bytesRead).indexOf(0x0a);
    if (nl >= 0) return position + nl + 1;
    position += bytesRead;
  }
  return size;
}

function parseEntry(bytes: Buffer): { entry: AuditEntry; text: string } | undefined {
  const text = bytes.toString('utf8');
  try {
    const entry = JSON.parse(text) as AuditEntry;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry) || typeof entry.hash !== 'string') return undefined;
    return { entry, text };
  } catch {
    return undefined;
  }
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
  let expectedPrev = from?.expectedPrev ?? GENESIS_HASH;
  let expectedSeq = from?.expectedSeq ?? 1;
  let entries = from?.entries ?? 0;
  let lastVersion: number | undefined = from?.lastVersion;
  let last: { file: string; line: number } = from ? { ...from.last } : { file: files[0] ?? ACTIVE_FILE, line: 0 };
  const repaired: { file: string; line: number }[] = from ? [...from.repaired] : [];
  const notes: AuditNote[] = from ? [...from.notes] : [];
  let lastLine: VerifiedMark['lastLine'] = from?.lastLine;
  let lineNo = from?.lineNo ?? 0;
  let problem: AuditProblem | undefined;
  // A rotation renamed the file the mark ends in: what was found in it is now under the new name.
  if (from && resume) {
    const was = from.files[resume.index]!.name;
    const is = snap.files[resume.index]!.name;
    const rename = <T extends { file: string }>(where: T): T => (where.file === was ? { ...where, file: is } : where);
    if (was !== is) {
      last = rename(last);
      repaired.splice(0, repaired.length, ...repaired.map(rename));
      notes.splice(0, notes.length, ...notes.map(rename));
    }
  }

  try {
    for (let index = resume?.index ?? 0; index < snap.files.length; index += 1) {
      const file = snap.files[index]!;
      const handle = await openFile(context.dir, file);
      let damaged: { line: number; lines: Buffer[] } | undefined;
      try {
        await forEachLine(
          handle,
          file.size,
          (bytes, lineNoHere, terminated) => {
            lineNo = lineNoHere;
            const where = { file: file.name, line: lineNoHere };
            if (!terminated) {
              problem = {
                ...(damaged ? { file: file.name, line: damaged.line } : where),
                kind: 'malformed',
                message: 'The last line is incomplete (a write was cut short, or the file was edited); the next append seals it.',
              };
              return false;
            }
            const parsed = parseEntry(bytes);
            if (!parsed) {
              // Accepted only when the next entry is a repair naming exactly these bytes.
              damaged ??= { line: lineNoHere, lines: [] };
              damaged.lines.push(bytes);
              return true;
            }
            const { entry, text } = parsed;
            if (damaged) {
              if (!repairs(entry, damaged.line, damaged.lines)) {
                problem = { file: file.name, line: damaged.line, kind: 'malformed', message: 'This line is not an audit entry.' };
                return false;
              }
              repaired.push({ file: file.name, line: damaged.line });
              damaged = undefined;
            }
            if (!lineHashMatches(text, entry)) {
              problem = { ...where, kind: 'edited', message: 'This entry was changed after it was written.' };
              return false;
            }
            if (entry.prevHash !== expectedPrev || entry.seq !== expectedSeq) {
              problem = { ...where, kind: 'broken-chain', message: 'This entry does not follow the one before it.' };
              return false;
            }
            if (headRecord && entry.seq === headRecord.seq) {
              if (entry.hash !== headRecord.hash && (head.status === 'valid' || head.status === 'unchecked')) {
                problem = { ...where, kind: 'edited', message: 'This entry differs from the one Airlock last recorded.' };
                return false;
              }
            }
            if (entry.type === 'anchor') {
              const anchor = entry;
              if (FAILING_FINDINGS.has(anchor.finding)) {
                problem = { ...where, kind: ANCHOR_KIND[anchor.finding] ?? 'end-unconfirmed', message: `Found by Airlock at ${anchor.time}: ${String(anchor.detail)}` };
                return false;
              }
              notes.push({ ...where, message: `Noted by Airlock at ${anchor.time}: ${String(anchor.detail)}` });
            }
            expectedPrev = entry.hash;
            expectedSeq = entry.seq + 1;
            lastVersion = entry.v;
            entries++;
            last = where;
            // Clean to here: every later line of this file is this entry's successor (or a problem), so it ends at the file's end if the check ends clean.
            lastLine = { ino: file.ino, end: file.size, length: bytes.length + 1 };
            return true;
          },
          resume && index === resume.index ? { position: resume.position, lineNo: resume.lineNo } : undefined,
        );
      } finally {
        if (!file.handle) await handle.close();
      }
      if (!problem && damaged) {
        problem = { file: file.name, line: damaged.line, kind: 'malformed', message: 'This line is not an audit entry.' };
      }
      if (problem) break;
      if (index < snap.files.length - 1) lineNo = 0;
    }
  } finally {
    await closeAll(snap.files);
  }
  const scope: ChainCheck['scope'] = resume ? 'new' : 'all';

  if (problem) {
    if (problem.kind === 'broken-chain') problem = await classifyBreak(context.dir, snap.files, problem, expectedSeq);
    return { ok: false, entries, files, problem, repaired, notes, end: 'unconfirmed', scope };
  }

  // The chain is clean to the end of the files: the next check may start here (the head is checked each time).
  const nextMark: VerifiedMark = {
    files: snap.files.map((f) => ({ name: f.name, ino: f.ino, size: f.size })),
    ...(lastLine ? { lastLine } : {}),
    lineNo,
    expectedPrev,
    expectedSeq,
    entries,
    ...(lastVersion !== undefined ? { lastVersion } : {}),
    last: { ...last },
    repaired: [...repaired],
    notes: [...notes],
  };

  // The end, against the head.
  const lastSeq = expectedSeq - 1;
  const fail = (kind: AuditProblem['kind'], message: string, status: VerifyResult['end']): ChainCheck => ({
    ok: false,
    entries,
    files,
    problem: { ...last, kind, message },
    repaired,
    notes,
    end: status,
    scope,
    mark: nextMark,
  });
  switch (head.status) {
    case 'missing':
      if (lastSeq === 0) return { ok: true, entries, files, repaired, notes, end: 'empty', scope, mark: nextMark };
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
      return { ok: true, entries, files, repaired, notes, end: lastSeq === 0 ? 'empty' : head.status === 'valid' ? 'confirmed' : 'unchecked', scope, mark: nextMark };
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

/** Most outcomes whose decision is not yet found that a backwards read keeps (a forged log cannot grow memory). */
const MAX_WAITING_OUTCOMES = 10_000;

/**
 * Records newest first, reading each file from its end backwards in growing
 * chunks, until `limit` records are found (or the log's start).
 */
export async function readAudit(context: ReaderContext, query: AuditQuery, includeNetwork: boolean): Promise<ActivityRecord[]> {
  const limit = query.limit ?? 100;
  const out: ActivityRecord[] = [];
  if (limit <= 0) return out;
  const snap = await snapshot(context);
  const outcomes = new Map<string, OutcomeEntry>();
  const wanted = (entry: AuditEntry): boolean => {
    if (entry.type === 'decision') {
      if (query.server !== undefined && entry.server !== query.server) return false;
      if (query.tool !== undefined && entry.tool !== query.tool) return false;
      if (query.decision !== undefined && entry.verdict !== query.decision && entry.final !== query.decision) return false;
      return true;
    }
    if (entry.type === 'network' && includeNetwork) {
      if (query.server !== undefined && entry.server !== query.server) return false;
      if (query.tool !== undefined) return false;
      if (query.decision === 'ask') return entry.decidedBy === 'person';
      if (query.decision !== undefined && entry.decision !== query.decision) return false;
      return true;
    }
    if (entry.type === 'sandbox' && includeNetwork) {
      if (query.server !== undefined && entry.server !== query.server) return false;
      return query.tool === undefined && (query.decision === undefined || query.decision === 'deny');
    }
    if (entry.type === 'change' && includeNetwork) {
      // A change is no call: a filter on decisions leaves it out; a tool filter matches a rule's tool.
      if (query.server !== undefined && entry.server !== query.server) return false;
      if (query.tool !== undefined && entry.tool !== query.tool) return false;
      return query.decision === undefined;
    }
    if (entry.type === 'claims-contradicted' && includeNetwork) {
      if (query.server !== undefined && entry.server !== query.server) return false;
      if (query.tool !== undefined && entry.tool !== query.tool) return false;
      return query.decision === undefined;
    }
    return false;
  };
  const onLine = (bytes: Buffer): boolean => {
    if (bytes.length === 0) return true;
    const parsed = parseEntry(bytes);
    if (!parsed) return true; // verify() reports it; reading shows what can be read
    const { entry } = parsed;
    if (entry.type === 'outcome') {
      if (outcomes.size >= MAX_WAITING_OUTCOMES) outcomes.delete(outcomes.keys().next().value!);
      if (!outcomes.has(entry.callId)) outcomes.set(entry.callId, entry);
      return true;
    }
    if (entry.type === 'decision') {
      const outcome = outcomes.get(entry.callId);
      outcomes.delete(entry.callId);
      if (wanted(entry)) out.push(outcome ? { decision: entry, outcome } : { decision: entry });
    } else if (wanted(entry)) {
      out.push(entry.type === 'change' ? { change: entry } : entry.type === 'sandbox' ? { refusal: entry } : entry.type === 'claims-contradicted' ? { claims: entry } : { network: entry as NetworkEntry });
    }
    return out.length < limit;
  };
  try {
    for (let i = snap.files.length - 1; i >= 0 && out.length < limit; i--) {
      const file = snap.files[i]!;
      let handle: fs.FileHandle;
      try {
        handle = await openFile(context.dir, file);
      } catch {
        break; // a rotated file removed since: what is older is not reachable in order
      }
      try {
        if (!(await forEachLineBackwards(handle, file.size, onLine))) break;
      } finally {
        if (!file.handle) await handle.close();
      }
    }
  } finally {
    await closeAll(snap.files);
  }
  return out;
}

/** Calls `onLine` for each line of the first `size` bytes, last line first; stops when it returns false. */
async function forEachLineBackwards(handle: fs.FileHandle, size: number, onLine: (bytes: Buffer) => boolean): Promise<boolean> {
  let position = size;
  // Bytes after the last newline seen so far (the start of a line whose beginning is in an earlier chunk).
  let carry: Buffer = Buffer.alloc(0);
  let chunkSize = 64 * 1024;
  while (position > 0) {
    const want = Math.min(chunkSize, position);
    chunkSize = Math.min(chunkSize * 2, CHUNK);
    const chunk = Buffer.alloc(want);
    const start = position - want;
    let got = 0;
    while (got < want) {
      const { bytesRead } = await handle.read(chunk, got, want - got, start + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    position = start;
    const data = carry.length ? Buffer.concat([chunk.subarray(0, got), carry]) : chunk.subarray(0, got);
    let endAt = data.length;
    for (;;) {
      const nl = data.lastIndexOf(0x0a, endAt - 1);
      if (nl < 0) break;
      if (nl + 1 < endAt && !onLine(data.subarray(nl + 1, endAt))) return false;
      endAt = nl;
    }
    carry = Buffer.from(data.subarray(0, endAt));
    // An overlong line cannot be an entry: drop what is gathered of it.
    if (carry.length > MAX_LINE) carry = Buffer.alloc(0);
  }
  if (carry.length && !onLine(carry)) return false;
  return true;
}

/**
 * Repair: the active file ends in an incomplete line (a crash, or a full disk,
 * cut a write short). The writer that takes over seals it with a `repair`
 * entry chained to the last good entry (or to the file before), recording the
 * damaged bytes by length and hash, so `verify` can tell a torn write from an
 * edit. A damaged run longer than a torn write and a torn seal of it is not a
 * crash: the writer refuses, and the person runs `airlock audit verify`.
 */
import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';
import type { AuditFileSystem } from './audit-fs';
import { damagedRunBytes } from './entries';
import { parseTail, readWhole, splitLines, tailOfRotated, type Tail } from './log-files';
import { AuditWriteError } from './write-errors';

/** A seal covers at most this many damaged lines (a torn write, and a torn seal of it); more is not a crash. */
const MAX_DAMAGED_LINES = 4;

/**
 * The tail to chain on from, and the repair entry's body to write first
 * (absent when only the newline was lost: the entry is whole).
 */
export function sealDamagedEnd(files: AuditFileSystem, path: string): { tail: Tail; repair?: Record<string, unknown> } {
  const bytes = readWhole(files, path);
  const lines = splitLines(bytes);
  if (!lines.length || lines.at(-1)!.terminated) throw new AuditWriteError('The audit log could not be repaired; run `airlock audit verify`.', 'damaged');
  // Only the newline was lost: the entry is whole; end its line and chain on.
  const whole = parseTail(lines.at(-1)!.bytes.toString('utf8'));
  if (whole) return { tail: whole };
  let first = lines.length - 1;
  let tail: Tail | undefined;
  while (first > 0) {
    tail = parseTail(lines[first - 1]!.bytes.toString('utf8'));
    if (tail) break;
    first -= 1;
  }
  if (lines.length - first > MAX_DAMAGED_LINES) {
    throw new AuditWriteError('The end of the audit log is damaged over several lines (not a write cut short); run `airlock audit verify`.', 'damaged');
  }
  // The damaged run starts the file: chain to the file before.
  tail ??= tailOfRotated(files, dirname(path), basename(path));
  const run = damagedRunBytes(lines.slice(first).map((line) => line.bytes));
  return {
    tail,
    repair: {
      type: 'repair',
      callId: '',
      server: '',
      tool: '',
      damagedLine: first + 1,
      ...(lines.length - first > 1 ? { damagedLines: lines.length - first } : {}),
      damagedBytes: run.length,
      damagedSha256: createHash('sha256').update(run).digest('hex'),
    },
  };
}

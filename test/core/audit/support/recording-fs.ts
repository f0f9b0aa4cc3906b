/**
 * The audit log's real file operations, recorded: every write and fsync in
 * order, with the file it touched, so a test can prove what was on its way
 * to disk at the moment something else happened (a call sent). Failures can
 * be injected per operation (ENOSPC, EIO, a write cut short).
 */
import { basename } from 'node:path';
import { nodeAuditFileSystem, type AuditFileSystem } from '../../../../electron/core/audit/audit-fs';

export interface FsEvent {
  op: 'write' | 'fsync' | 'fsyncDir' | 'mark';
  /** The file's name (audit.jsonl, audit.head.json, audit.lock, …) or a mark's label. */
  file: string;
  /** For writes: the text written. */
  text?: string;
}

export interface RecordingFs extends AuditFileSystem {
  events: FsEvent[];
  /** Adds a mark (e.g. "send") to the event list. */
  mark(label: string): void;
  /** Makes the next matching operation fail or write only part. */
  failNext(op: 'write' | 'fsync', how: { code?: string; partialBytes?: number; file?: string }): void;
  /** Blocks fsyncs until the returned function is called. */
  holdFsyncs(): () => void;
}

export function recordingFs(base: AuditFileSystem = nodeAuditFileSystem): RecordingFs {
  const paths = new Map<number, string>();
  const events: FsEvent[] = [];
  const failures: Array<{ op: 'write' | 'fsync'; code?: string; partialBytes?: number; file?: string }> = [];
  let hold: Promise<void> | undefined;
  const takeFailure = (op: 'write' | 'fsync', file: string) => {
    const i = failures.findIndex((f) => f.op === op && (!f.file || f.file === file));
    return i < 0 ? undefined : failures.splice(i, 1)[0];
  };
  const errno = (code: string) => Object.assign(new Error(`${code}: injected`), { code });
  const track = (path: string, fd: number) => (paths.set(fd, basename(path)), fd);
  return {
    ...base,
    events,
    openAppend: (path) => track(path, base.openAppend(path)),
    openInPlace: (path) => track(path, base.openInPlace(path)),
    createExclusive: (path) => track(path, base.createExclusive(path)),
    openRead: (path) => track(path, base.openRead(path)),
    write(fd, buffer, offset, length, position) {
      const file = paths.get(fd) ?? '?';
      const failure = takeFailure('write', file);
      if (failure?.partialBytes !== undefined) {
        // The kernel takes part, then the next write fails (a disk that fills up mid-write).
        const n = base.write(fd, buffer, offset, Math.min(length, failure.partialBytes), position);
        events.push({ op: 'write', file, text: buffer.subarray(offset, offset + n).toString('utf8') });
        failures.unshift({ op: 'write', file, code: failure.code ?? 'ENOSPC' });
        if (n > 0) return n;
        failures.shift();
      }
      if (failure?.code) throw errno(failure.code);
      const n = base.write(fd, buffer, offset, length, position);
      events.push({ op: 'write', file, text: buffer.subarray(offset, offset + n).toString('utf8') });
      return n;
    },
    async fsync(fd) {
      const file = paths.get(fd) ?? '?';
      if (hold) await hold;
      const failure = takeFailure('fsync', file);
      if (failure?.code) throw errno(failure.code);
      await base.fsync(fd);
      events.push({ op: 'fsync', file });
    },
    async fsyncDir(path) {
      await base.fsyncDir(path);
      events.push({ op: 'fsyncDir', file: basename(path) });
    },
    mark(label) {
      events.push({ op: 'mark', file: label });
    },
    failNext(op, how) {
      failures.push({ op, ...how });
    },
    holdFsyncs() {
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      return () => {
        hold = undefined;
        release();
      };
    },
  };
}

/** A flush timer run by hand: records the delay asked for. */
export function manualTimer() {
  const armed: Array<{ ms: number; callback: () => void; cancelled: boolean }> = [];
  return {
    armed,
    set(callback: () => void, ms: number) {
      const entry = { ms, callback, cancelled: false };
      armed.push(entry);
      return { cancel: () => (entry.cancelled = true) };
    },
    /** Fires every armed, uncancelled timer. */
    fire() {
      for (const entry of armed.splice(0)) if (!entry.cancelled) entry.callback();
    },
  };
}

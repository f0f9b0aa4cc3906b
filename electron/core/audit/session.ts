/**
 * Which Airlock process wrote a decision, and whether that process is still
 * alive: after a crash, the next process gives the dead one's unfinished
 * calls the outcome `unknown` (issue 16). A session id is
 * `<boot>.<pid>.<start>.<nonce>`: the machine's boot id and the process's
 * start time (Linux `/proc`) make a reused pid, or a pid from before a
 * reboot, read as a different process.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** What a session id says about its process. */
export interface SessionParts {
  boot: string;
  pid: number;
  start: string;
}

let bootIdCache: string | undefined;

function bootId(): string {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().replace(/-/g, '').slice(0, 12);
    } catch {
      bootIdCache = '-';
    }
  }
  return bootIdCache;
}

/** The start time of a process in clock ticks since boot (Linux), or '-' where it cannot be read. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

/** A new id for this process's audit session. */
export function newSessionId(pid = process.pid): string {
  return `${bootId()}.${pid}.${startTime(pid) ?? '-'}.${randomBytes(4).toString('hex')}`;
}

export function parseSessionId(id: string): SessionParts | undefined {
  const m = /^([^.]+)\.(\d+)\.([^.]+)\.[0-9a-f]+$/.exec(id);
  return m ? { boot: m[1]!, pid: Number(m[2]), start: m[3]! } : undefined;
}

/**
 * True only when the session's process is certainly gone: the machine was
 * rebooted since, or no process with that pid and start time exists. When
 * in doubt (another machine, an id it cannot read) it says alive: an
 * unfinished call is never marked unknown while its process may still
 * finish it.
 */
export function isSessionDead(id: string): boolean {
  const parts = parseSessionId(id);
  if (!parts) return false;
  const boot = bootId();
  if (parts.boot !== '-' && boot !== '-' && parts.boot !== boot) return true;
  if (parts.start !== '-') {
    const now = startTime(parts.pid);
    if (now !== undefined) return now !== parts.start;
    // No /proc entry for that pid: gone (where /proc exists at all).
    return startTime(process.pid) !== undefined;
  }
  try {
    process.kill(parts.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

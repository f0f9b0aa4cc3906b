/**
 * What is running, read from /proc from outside: the check every "nothing
 * left running" test makes. A process counts while it is the same process
 * (same start time) and not a zombie (a zombie runs nothing; a container's
 * init may never reap it).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** One live process as /proc shows it. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
  /** Start time in clock ticks since boot: with the pid, the process's identity. */
  start: string;
  cmdline: string;
}

function stat(pid: number): { ppid: number; state: string; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: f[0] ?? '', ppid: Number(f[1]), start: f[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** Every live (non-zombie) process but this one. */
export function liveProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const s = stat(pid);
    if (!s || s.state === 'Z' || s.state === 'X') continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue;
    }
    out.push({ pid, ...s, cmdline });
  }
  return out;
}

/** Live processes whose command line holds `marker`. */
export function processesMentioning(marker: string): ProcInfo[] {
  return liveProcesses().filter((p) => p.cmdline.includes(marker));
}

/** Every live descendant of `pid`, by parent links (whatever their group or session). */
export function processTree(pid: number): ProcInfo[] {
  const all = liveProcesses();
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: ProcInfo[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/** Those of `processes` still alive as the same process. */
export function stillAlive(processes: readonly Pick<ProcInfo, 'pid' | 'start'>[]): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const p of processes) {
    const s = stat(p.pid);
    if (!s || s.start !== p.start || s.state === 'Z' || s.state === 'X') continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue;
    }
    out.push({ pid: p.pid, ...s, cmdline });
  }
  return out;
}

/** Polls until `check` returns an empty list or `timeoutMs` passes; returns what was left and when it emptied. */
export async function waitUntilGone(check: () => ProcInfo[], timeoutMs: number, pollMs = 5): Promise<{ left: ProcInfo[]; ms: number }> {
  const started = performance.now();
  for (;;) {
    const left = check();
    const ms = performance.now() - started;
    if (left.length === 0 || ms >= timeoutMs) return { left, ms };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Kills exactly these processes (same start time), for clean-up after a failed check. */
export function killExactly(processes: readonly Pick<ProcInfo, 'pid' | 'start'>[]): void {
  for (const p of stillAlive(processes)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/** This process's open file descriptors and resident memory. */
export function selfUsage(): { fds: number; rssBytes: number } {
  return { fds: readdirSync('/proc/self/fd').length, rssBytes: process.memoryUsage().rss };
}

import { readdirSync, readFileSync } from 'node:fs';

/**
 * Process groups: every server is spawned as the leader of its own group
 * (`detached: true`), so signalling `-pid` reaches the server and anything
 * it forked that stayed in the group. POSIX only.
 */

/** Sends `signal` to every process in the group; false when the group is gone. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * The live (non-zombie) members of a process group, read from `/proc`;
 * `undefined` where `/proc` is not available. Zombies are left out: they run
 * nothing, and a container's init may never reap them.
 */
export function processGroupMembers(pgid: number): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp ..." — comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') members.push(Number(entry));
  }
  return members;
}

interface ProcEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
  startTime: string;
}

function readProcTable(): ProcEntry[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const table: ProcEntry[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields after "(comm)": state ppid pgrp session … starttime is the 20th.
      table.push({ pid: Number(entry), state: f[0] ?? '', ppid: Number(f[1]), pgrp: Number(f[2]), startTime: f[19] ?? '' });
    } catch {
      // exited while we looked
    }
  }
  return table;
}

/** A process seen at one moment: its pid and start time, so a reused pid is never mistaken for it. */
export interface ProcessIdentity {
  pid: number;
  startTime: string;
}

/**
 * Every live descendant of `pid` (by parent links, whatever their group or
 * session), read from `/proc`; empty where `/proc` is not available. This is
 * how Airlock finds a child that left the process group with `setsid` while
 * its parent is still alive.
 */
export function descendantsOf(pid: number): ProcessIdentity[] {
  const table = readProcTable();
  if (!table) return [];
  const children = new Map<number, ProcEntry[]>();
  for (const entry of table) {
    if (entry.state === 'Z' || entry.state === 'X') continue;
    const list = children.get(entry.ppid);
    if (list) list.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const out: ProcessIdentity[] = [];
  const queue = [pid];
  const seen = new Set<number>(queue);
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      out.push({ pid: child.pid, startTime: child.startTime });
      queue.push(child.pid);
    }
  }
  return out;
}

/** Signals each process that is still the same process (same start time); returns how many were live. */
export function signalIfSame(processes: Iterable<ProcessIdentity>, signal: NodeJS.Signals): number {
  let live = 0;
  for (const { pid, startTime } of processes) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      continue;
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (f[19] !== startTime || f[0] === 'Z' || f[0] === 'X') continue;
    live++;
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
  return live;
}

/** True while the process is still the same live process (same start time, not a zombie). */
function isSameAndLive({ pid, startTime }: ProcessIdentity): boolean {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return fields[19] === startTime && fields[0] !== 'Z' && fields[0] !== 'X';
  } catch {
    return false;
  }
}

/**
 * Polls until none of the processes is alive or `timeoutMs` passes; true when
 * all are gone. A signal is only queued when `kill()` returns: a stop that
 * reports "stopped" must wait for the kernel to finish the processes.
 */
export async function waitForProcessesExit(processes: Iterable<ProcessIdentity>, timeoutMs: number, pollMs = 10): Promise<boolean> {
  const list = [...processes];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!list.some(isSameAndLive)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Whether any live process remains in the group. */
export function isProcessGroupAlive(pgid: number): boolean {
  if (!signalProcessGroup(pgid, 0)) return false;
  const members = processGroupMembers(pgid);
  return members === undefined ? true : members.length > 0;
}

/** Polls until the group has no live member or `timeoutMs` passes; true when it is gone. */
export async function waitForProcessGroupExit(pgid: number, timeoutMs: number, pollMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isProcessGroupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Each live group, and how to end it where the OS has no groups (the plan's `endTree`). */
const liveGroups = new Map<number, ((pid: number) => void) | undefined>();
let exitHookInstalled = false;

/**
 * Remembers a group so that, if Airlock itself exits without stopping its
 * servers, they are killed rather than left running detached — with
 * `end` where the OS has no process groups (Windows).
 */
export function trackProcessGroup(pgid: number, end?: (pid: number) => void): void {
  liveGroups.set(pgid, end);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const [group, endTree] of liveGroups) {
        if (!endTree) {
          signalProcessGroup(group, 'SIGKILL');
          continue;
        }
        try {
          endTree(group);
        } catch {
          // Airlock is exiting: there is no one left to tell, and the next start sweeps what is left.
        }
      }
    });
  }
}

/** Forgets a group whose members are all gone. */
export function untrackProcessGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

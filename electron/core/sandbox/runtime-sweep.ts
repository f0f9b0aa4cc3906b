/**
 * The sandbox's temp folders, across Airlock processes. Every Airlock
 * process of a user keeps its servers' temp homes under one private parent
 * (`/tmp/airlock-sandbox-<uid>/run-*`), hidden from every sandbox. A process
 * that crashed leaves its `run-*` folder behind, with whatever its servers
 * wrote, and the placeholders and planted files of their grants unswept.
 * The next Airlock process sweeps it — never a folder whose owner is alive.
 *
 * Ownership: each `run-*` folder holds `owner.json` (pid and the process's
 * start time, so a reused pid does not pass for the owner). A folder from an
 * older Airlock without that file is left alone while any process still
 * names it on its command line (its bwrap), or for a day.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { removePlaceholder, sweepGrants, type HeldEntry, type Placeholder } from './trusted-files';

export const OWNER_FILE = 'owner.json';
export const LAUNCH_RECORD = 'trusted.json';
const UNOWNED_GRACE_MS = 24 * 60 * 60 * 1000;

/** What a launch writes beside its temp folder so a later process can finish its clean-up. */
export interface LaunchRecord {
  serverName: string;
  roots: string[];
  exempt: string[];
  baseline: Array<[string, number]>;
  placeholders: Placeholder[];
}

/** A process's start time in clock ticks since boot (field 22 of /proc/PID/stat); undefined when it is gone. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Marks a run folder as this process's. */
export function claimRunFolder(runDir: string): void {
  writeFileSync(join(runDir, OWNER_FILE), JSON.stringify({ pid: process.pid, start: processStartTime(process.pid) }), { mode: 0o600 });
}

/** Whether the process that owns `runDir` is alive (unknown owners count as alive while anything names the folder, or for a day). */
export function isRunFolderLive(runDir: string, now = Date.now()): boolean {
  try {
    const owner = JSON.parse(readFileSync(join(runDir, OWNER_FILE), 'utf8')) as { pid?: unknown; start?: unknown };
    if (typeof owner.pid !== 'number') return true;
    const start = processStartTime(owner.pid);
    return start !== undefined && start === owner.start;
  } catch {
    // No owner file: an older Airlock's folder, or one being made right now.
    if (namedByAnyProcess(runDir)) return true;
    try {
      return now - lstatSync(runDir).mtimeMs < UNOWNED_GRACE_MS;
    } catch {
      return false;
    }
  }
}

function namedByAnyProcess(path: string): boolean {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(path)) return true;
    } catch {
      // gone, or not ours to read
    }
  }
  return false;
}

function readRecord(launchDir: string): LaunchRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(launchDir, LAUNCH_RECORD), 'utf8')) as LaunchRecord;
  } catch {
    return undefined;
  }
}

/**
 * Every placeholder a live launch of another Airlock process still relies on
 * (any live run folder under `parent` but `ownRun`), plus `alsoLive` (this
 * process's own live launches, which it counts itself).
 */
export function placeholdersInUse(parent: string | undefined, ownRun: string | undefined, alsoLive: Iterable<string> = []): Set<string> {
  const inUse = new Set<string>(alsoLive);
  if (!parent || !existsSync(parent)) return inUse;
  for (const run of readdirSync(parent)) {
    const runDir = join(parent, run);
    if (!run.startsWith('run-') || runDir === ownRun || !isRunFolderLive(runDir)) continue;
    let launches: string[] = [];
    try {
      launches = readdirSync(runDir);
    } catch {
      continue;
    }
    for (const launch of launches) {
      for (const placeholder of readRecord(join(runDir, launch))?.placeholders ?? []) inUse.add(placeholder.path);
    }
  }
  return inUse;
}

/** What a sweep of crashed runs did, per server, for the person. */
export interface SweepReport {
  removedRuns: string[];
  held: Array<HeldEntry & { serverName: string }>;
}

/**
 * Sweeps every run folder under `parent` whose owner is gone (except
 * `ownRun`): finishes each launch's clean-up (holds aside what its server
 * planted, removes placeholders no live launch relies on), then removes the
 * folder.
 */
export async function sweepCrashedRuns(parent: string, ownRun: string): Promise<SweepReport> {
  const report: SweepReport = { removedRuns: [], held: [] };
  let runs: string[];
  try {
    runs = readdirSync(parent).filter((name) => name.startsWith('run-'));
  } catch {
    return report;
  }
  const dead = runs.map((name) => join(parent, name)).filter((dir) => dir !== ownRun && !isRunFolderLive(dir));
  if (dead.length === 0) return report;
  const inUse = placeholdersInUse(parent, ownRun);
  for (const runDir of dead) {
    let launches: string[] = [];
    try {
      launches = readdirSync(runDir);
    } catch {
      // unreadable: removed below
    }
    for (const launch of launches) {
      const record = readRecord(join(runDir, launch));
      if (!record) continue;
      const placeholders = new Map(record.placeholders.map((p) => [p.path, p.ino]));
      for (const entry of sweepGrants(record.roots, new Map(record.baseline), placeholders, record.exempt)) {
        report.held.push({ ...entry, serverName: record.serverName });
      }
      for (const placeholder of record.placeholders) if (!inUse.has(placeholder.path)) removePlaceholder(placeholder);
    }
    await rm(runDir, { recursive: true, force: true });
    report.removedRuns.push(runDir);
  }
  return report;
}

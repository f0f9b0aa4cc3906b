/**
 * Listing what other apps' configs hold, for `airlock import`, `connect
 * --move` and the app's import screen: every entry with its status — one
 * Airlock can import (with its disclosure once prepared), one it already has
 * (named, so it is not copied as `memory-2`), Airlock's own entry (never
 * imported), or why it cannot be. Packages are looked up several at a time,
 * so a config of many servers does not keep the person waiting for each in turn.
 */
import type { ServerRecord } from '../../../shared/domain';
import type { Disclosure, ImportEntryView } from '../../../shared/views';
import { AirlockError, messageOf } from '../errors';
import { existingServerFor, importConfigFile, importFromApp, type ImportApp, type ImportEntry, type ImportEnvironment, type ImportResult } from '../install/sources';

/** What a scan may be asked for (the `install.scanImports` request). */
export interface ImportScanRequest {
  app?: ImportApp;
  path?: string;
  allowCodeArguments?: boolean;
  workspace?: string;
  /** Prepare only these entries (by their name in the file); `[]`: none — an overview. Absent: all. */
  entries?: readonly string[];
}

/** One config file as a scan lists it. */
export interface ImportScanFile {
  app: string;
  path: string;
  workspace?: string;
  entries: ImportEntryView[];
  error?: string;
}

/** What the scan needs from the install flow. */
export interface ImportScanDeps {
  /** Where to look and how to resolve commands (refreshes the runtime lookup). */
  environment(): Promise<ImportEnvironment>;
  /** The servers Airlock has now. */
  records(): ServerRecord[];
  /** The value of a secret a saved server holds (to tell two accounts' servers apart). */
  heldSecret(server: string, name: string): string | undefined;
  /** Prepares a draft for an importable entry (looks its package up) and returns its disclosure. */
  prepare(entry: Extract<ImportEntry, { status: 'importable' }>, allowCodeArguments: boolean): Promise<Disclosure>;
  /** Advice for a runtime that was not found (node, python3, uvx), given an entry's reason. */
  runtimeAdvice(reason: string): string | undefined;
}

/** How many entries are looked up at once (npm and pip are mostly waiting on the network). */
export const LOOKUPS_AT_ONCE = 4;

/** Reads the configs asked for and lists their entries, preparing the ones asked for. */
export async function scanImports(deps: ImportScanDeps, request: ImportScanRequest): Promise<ImportScanFile[]> {
  const environment = { ...(await deps.environment()), ...(request.workspace ? { workspace: request.workspace } : {}) };
  let results: ImportResult[];
  try {
    if (request.path) results = [await importConfigFile(request.path, { ...environment, ...(request.app ? { app: request.app } : {}) })];
    else if (request.app) results = await importFromApp(request.app, environment);
    else results = (await Promise.all((['claude', 'vscode', 'cursor'] as const).map((app) => importFromApp(app, environment)))).flat();
  } catch (error) {
    throw new AirlockError('invalid-request', messageOf(error));
  }
  const records = deps.records();
  const wanted = request.entries ? new Set(request.entries) : undefined;
  const jobs = results.flatMap((result) => result.entries.map((entry) => () => entryView(deps, entry, records, wanted, request.allowCodeArguments === true)));
  const views = await inBatches(jobs, LOOKUPS_AT_ONCE);
  let next = 0;
  return results.map((result) => ({
    app: result.app,
    path: result.path,
    ...(result.workspace ? { workspace: result.workspace } : {}),
    entries: result.entries.map(() => views[next++]!),
  }));
}

async function entryView(deps: ImportScanDeps, entry: ImportEntry, records: readonly ServerRecord[], wanted: Set<string> | undefined, allowCodeArguments: boolean): Promise<ImportEntryView> {
  const base = { name: entry.entry, ...(entry.runs !== undefined ? { runs: entry.runs } : {}) };
  if (entry.status === 'airlock') return { ...base, status: 'airlock', reason: entry.reason };
  if (entry.status !== 'importable') {
    const advice = deps.runtimeAdvice(entry.reason);
    return { ...base, status: entry.status, reason: advice ? `${entry.reason}. ${advice}` : entry.reason, ...(entry.status === 'unsupported' && entry.needsWorkspace ? { needsWorkspace: true } : {}) };
  }
  const existing = existingServerFor(entry, records, (server, name) => deps.heldSecret(server, name));
  if (existing) return { ...base, status: 'in-airlock', inAirlock: existing, reason: `already in Airlock as ${existing.server}: ${existing.why}` };
  if (wanted && !wanted.has(entry.entry)) return { ...base, status: 'importable' };
  try {
    return { ...base, status: 'importable', disclosure: await deps.prepare(entry, allowCodeArguments) };
  } catch (error) {
    return { ...base, status: 'invalid', reason: messageOf(error) };
  }
}

/** Runs `jobs` at most `size` at a time; the results in the jobs' order. */
async function inBatches<T>(jobs: ReadonlyArray<() => Promise<T>>, size: number): Promise<T[]> {
  const results: T[] = new Array<T>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await jobs[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, jobs.length) }, worker));
  return results;
}

/**
 * A local server's code, checked at every start — and again before each
 * call's decision (a `stat` per file while nothing changed; see
 * code-hasher.ts) — against the hashes pinned when the person added it (or
 * last approved its code): the executable and, for an interpreter command,
 * the script. A difference is a *code change*:
 * `decide()` then asks before every call, and no rule or session permission
 * made before counts, until the person approves the new code (re-pins it).
 *
 * npm packages and MCPB bundles are not re-hashed: they live in Airlock's
 * own data folder, which no server can read or write (invariant 5), and
 * anything that can change them there can change the pinned hashes in the
 * store just as well — hashing those folders would cost time and prove
 * nothing more.
 *
 * The start's observation is kept beside the latest one: a process runs the
 * code it loaded at its start, so an edit reverted after the start is still
 * a change until the next start (and an edit after the start counts at once:
 * some interpreters, shells among them, read their script as they go).
 *
 * SECURITY: what the person never saw does not run unasked — rules bind to
 * the code they were made for as they bind to the tool definition
 * (invariant 3). A file that cannot be read counts as changed (fails closed).
 */
import type { Provenance } from '../../../shared/domain';
import type { CodeChange, CodeFile } from '../policy/decide';
import type { CodeHasher } from './code-hasher';

/** What a start found: each file's current hash, or null when it could not be read. */
export interface CodeObservation {
  files: Array<{ role: CodeFile['role']; path: string; current: string | null }>;
  /** Epoch ms. */
  checkedAt: number;
}

/** The files of a provenance that are pinned, with their pinned hashes (local servers only). */
export function pinnedFiles(provenance: Provenance): Array<{ role: CodeFile['role']; path: string; approved: string }> {
  if (provenance.kind !== 'local') return [];
  return [
    { role: 'executable', path: provenance.executable, approved: provenance.executableSha256 },
    ...(provenance.script ? [{ role: 'script' as const, path: provenance.script.path, approved: provenance.script.sha256 }] : []),
  ];
}

/** What was found at the server's start and most recently (before a call). */
export interface CodeObservations {
  atStart: CodeObservation;
  latest: CodeObservation;
}

/**
 * The code change between what is pinned and what was observed, or null
 * when they agree. Pure. Per file, the hash shown is the one found at the
 * start when that differs (it is what runs), else the latest. Observations
 * of other files than the pinned ones (the record was replaced since) are
 * no evidence either way: null, and the next start observes again.
 */
export function codeChangeOf(provenance: Provenance, observed: CodeObservations | undefined): CodeChange | null {
  const pinned = pinnedFiles(provenance);
  if (!observed || pinned.length === 0) return null;
  const files: CodeFile[] = [];
  for (const file of pinned) {
    const find = (observation: CodeObservation) => observation.files.find((candidate) => candidate.role === file.role && candidate.path === file.path);
    const atStart = find(observed.atStart);
    const latest = find(observed.latest);
    if (!atStart || !latest) return null;
    files.push({ ...file, current: atStart.current !== file.approved ? atStart.current : latest.current });
  }
  return files.some((file) => file.current !== file.approved) ? { files } : null;
}

/** Each local server's code as found at its start and most recently. */
export class CodePins {
  private readonly observed = new Map<string, CodeObservations>();

  constructor(private readonly deps: { hasher: CodeHasher; now(): number }) {}

  /**
   * Re-hashes a server's pinned files: at every start, before the process
   * runs (`start`), and before each call's decision (`call`).
   */
  async check(server: string, provenance: Provenance, when: 'start' | 'call'): Promise<CodeChange | null> {
    const pinned = pinnedFiles(provenance);
    if (pinned.length === 0) {
      this.observed.delete(server);
      return null;
    }
    // Nothing changed since the hashes were taken (a stat each): nothing to read or wait for.
    let files: CodeObservation['files'] | undefined = this.rememberedFiles(pinned);
    files ??= await Promise.all(
      pinned.map(async (file) => ({ role: file.role, path: file.path, current: await this.deps.hasher.sha256(file.path).catch(() => null) })), // A file that cannot be read counts as changed (null), which asks again: fail closed.
    );
    const observation = { files, checkedAt: this.deps.now() };
    const atStart = when === 'start' ? observation : (this.observed.get(server)?.atStart ?? observation);
    this.observed.set(server, { atStart, latest: observation });
    return this.changeOf(server, provenance);
  }

  /** Each file with its remembered hash when none changed since it was hashed; undefined when one must be read. */
  private rememberedFiles(pinned: ReturnType<typeof pinnedFiles>): CodeObservation['files'] | undefined {
    const files: CodeObservation['files'] = [];
    for (const file of pinned) {
      let current: string | undefined;
      try {
        current = this.deps.hasher.remembered(file.path);
      } catch {
        return undefined;
      }
      if (current === undefined) return undefined;
      files.push({ role: file.role, path: file.path, current });
    }
    return files;
  }

  /** What the server's start and its latest check found, if it was checked in this process. */
  last(server: string): CodeObservations | undefined {
    return this.observed.get(server);
  }

  /** The server's code change against its record, per the last start; null when none is known. */
  changeOf(server: string, provenance: Provenance): CodeChange | null {
    return codeChangeOf(provenance, this.observed.get(server));
  }

  forget(server: string): void {
    this.observed.delete(server);
  }
}

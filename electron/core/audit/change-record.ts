/**
 * Changes to what Airlock allows, in the audit log (task L, item 3): a rule
 * added or removed (in the window, at the command line, or by an "always"
 * answer to a confirmation), trust turned on or off, grants changed, the
 * policy mode or strict durability changed, a server added, updated or
 * removed — each its own `change` entry saying who (window or command line)
 * and what changed, in words, in the same hash chain as the calls.
 *
 * The entries are written after the change is saved, off the call path:
 * `ChangeRecorder.record` starts the append and returns at once; the shells'
 * handlers wait for `settled()` before they answer, so a command that exits
 * right after its change still leaves its entry. An entry that cannot be
 * written does not undo the change; it is reported (the shell's log and a
 * notice), never dropped silently.
 *
 * SECURITY: names are data — a server's name and a rule's tool are stored
 * as given and shown inert by the views; values of secrets never appear (only
 * the names of secrets, as the profile holds them).
 */
import type { SandboxProfile, ServerRecord } from '../../../shared/domain';
import type { ChangeActor, ChangeEntry, ChangeKind } from './entries';

/** What `AuditLog.appendChange` takes. */
export interface ChangeInput {
  change: ChangeKind;
  by: ChangeActor;
  via?: ChangeEntry['via'];
  /** The server it concerns ('' or absent for a setting). */
  server?: string;
  /** A rule's tool. */
  tool?: string;
  /** What changed, one line each. */
  changes: readonly string[];
}

/** The body the log chains (everything but v, seq, time, prevHash and hash). */
export function changeBody(input: ChangeInput): Record<string, unknown> {
  return {
    type: 'change',
    callId: '',
    server: String(input.server ?? ''),
    tool: String(input.tool ?? ''),
    change: input.change,
    by: input.by,
    ...(input.via ? { via: input.via } : {}),
    changes: input.changes.slice(0, 100).map((line) => String(line).slice(0, 500)),
  };
}

/** The shell a person answered a confirmation in, as a change's actor. */
export function actorOfShell(shell: string | undefined): ChangeActor {
  return shell === 'window' || shell === 'console' || shell === undefined ? 'window' : 'command-line';
}

/**
 * What changed between two sandbox profiles, one line per grant given or
 * taken ("write grant added: /srv/notes"); nothing when they grant the same.
 * Pins are Airlock's bookkeeping, not a grant: not listed.
 */
export function profileChanges(before: SandboxProfile, after: SandboxProfile): string[] {
  const lines: string[] = [];
  const diff = (label: string, was: readonly string[], now: readonly string[]) => {
    for (const item of now) if (!was.includes(item)) lines.push(`${label} added: ${item}`);
    for (const item of was) if (!now.includes(item)) lines.push(`${label} removed: ${item}`);
  };
  diff('read grant', before.filesystem.read, after.filesystem.read);
  diff('write grant', before.filesystem.write, after.filesystem.write);
  diff('may change trusted files (.git, .envrc, …) in', before.filesystem.writeTrusted ?? [], after.filesystem.writeTrusted ?? []);
  if (before.filesystem.persistentData !== after.filesystem.persistentData) lines.push(`persistent data folder: ${after.filesystem.persistentData ? 'on' : 'off'}`);
  diff('network', before.network.allowedDomains, after.network.allowedDomains);
  diff('secret', before.secrets, after.secrets);
  return lines;
}

/** What a new server was given, one line each ("nothing granted" when nothing was). */
export function grantedLines(profile: SandboxProfile, trusted: boolean): string[] {
  const lines = profileChanges({ filesystem: { read: [], write: [], persistentData: false }, network: { allowedDomains: [] }, secrets: [] }, profile);
  return [...(lines.length ? lines : ['nothing granted']), `trusted: ${trusted ? 'on' : 'off'}`];
}

/** Starts change entries and knows when they are written. */
export class ChangeRecorder {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    /** The audit log (audit-log.ts), as far as changes go: typed here so the log can import this file, not the reverse. */
    private readonly audit: { appendChange(input: ChangeInput): Promise<unknown> },
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Starts the append; returns at once (the change is already saved). */
  record(input: ChangeInput): void {
    const write: Promise<void> = this.audit.appendChange(input).then(
      () => undefined,
      (error: unknown) => this.onError(error),
    );
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
  }

  /** Resolves once every entry started so far is written (or its failure reported). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /**
   * A handler's answer once the change entries it started are written: a
   * command that exits right after its change still leaves its entry.
   */
  async once<T>(result: T | Promise<T>): Promise<T> {
    const value = await result;
    await this.settled();
    return value;
  }
}

/** Where a server's code came from, in a few words (for its "server added" entry). */
export function sourceWords(record: ServerRecord): string {
  const p = record.provenance;
  switch (p.kind) {
    case 'local':
      return `local program ${p.script?.path ?? p.executable}`;
    case 'npm':
      return `npm ${p.name}@${p.version}`;
    case 'mcpb':
      return `bundle ${p.name}@${p.version}`;
    case 'pypi':
      return `PyPI ${p.name}==${p.version}`;
    case 'remote':
      return `remote server at ${p.url}`;
  }
}

/**
 * What every command gets (the core, the terminal, the output mode) and how
 * a command asks a person a question: a yes/no that refuses without a
 * terminal (unless --yes), and the questions that only a terminal can ask.
 */
import type { AppNotice } from '../../../shared/ipc';
import type { SharedHost } from '../../core/ipc/shared-host';
import { CliExit, EXIT, type CliIo } from '../output';

/** What every command gets: the host (opened on first use), the terminal, and the output mode. */
export interface CliContext {
  /** The core: this process's own, or the data folder's owner's (see core/ipc/shared-host.ts). */
  api(): Promise<SharedHost>;
  io: CliIo;
  json(): boolean;
  /** The global -y/--yes: answer yes to the questions. */
  yes(): boolean;
  /** `-y` was written after `--`, where it belongs to the server's command line (worth saying when Airlock then asks). */
  yesAfterDashes?: boolean;
  /** The command line as typed after `airlock` (to print it again, completed, when a grant was missing). */
  argv?: readonly string[];
  /** Sets the process exit code. */
  exit(code: number): void;
  /** The data folder was chosen by the person (--data-dir, AIRLOCK_DATA_DIR): nothing is kept outside it. */
  selfContained?(): boolean;
  /** What the core said went wrong at start-up (known once `api()` resolved; each was printed on stderr). */
  notices?(): readonly AppNotice[];
}

/** Asks a yes/no question, or accepts --yes; without a terminal and without --yes, refuses. */
export async function confirmOrExit(io: CliIo, question: string, yes: boolean | undefined, context?: Pick<CliContext, 'yesAfterDashes'>): Promise<void> {
  if (yes) return;
  const note = context?.yesAfterDashes ? ' (the -y after `--` is part of the server’s command line, not an answer for Airlock: put --yes before `--`)' : '';
  if (!io.confirm) throw new CliExit(EXIT.needsConfirmation, `${question} — this needs your confirmation; run it in a terminal, or pass --yes${note}.`);
  if (!(await io.confirm(question))) throw new CliExit(EXIT.cancelled, 'Nothing was changed.');
}

/**
 * A question whose likely answer is yes (what Airlock worked out a server
 * needs): Enter says yes. Undefined when it cannot be asked (no terminal,
 * --json, or --yes, which never stands in for it: see where it is used).
 */
export async function askLikelyYes(context: CliContext, question: string): Promise<boolean | undefined> {
  const { io } = context;
  if (!io.confirm || context.json() || context.yes()) return undefined;
  return io.confirm(question, { defaultYes: true });
}

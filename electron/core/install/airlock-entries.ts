/**
 * Airlock's own entries in another app's config, as `airlock connect` writes
 * them: the gateway (`airlock gateway --stdio`) and one server served through
 * Airlock (`airlock run NAME`). An import must never take one of these for a
 * server to import: the gateway would be asked to read Airlock's own data
 * folder, and `airlock run NAME` is already in Airlock as NAME.
 */
import { basename } from 'node:path';

/** The name of the gateway's entry in an app's config. */
export const AIRLOCK_ENTRY_NAME = 'airlock';

/** Which of Airlock's entries it is. */
export type AirlockEntryKind = { kind: 'gateway' } | { kind: 'run'; server: string };

// The command as `airlock connect` writes it (node and bin/airlock.js), as installed (`airlock`), or the built CLI.
const AIRLOCK_PROGRAM = /^airlock(?:\.js|\.cmd|\.exe)?$/i;
// Airlock's global options before its command, and whether each takes a value.
const GLOBAL_OPTIONS: Record<string, boolean> = { '--data-dir': true, '--json': false, '-y': false, '--yes': false };

/** The kind of Airlock entry `value` is, or undefined for any other server. */
export function airlockEntryKind(entryName: string, value: Record<string, unknown>): AirlockEntryKind | undefined {
  if (typeof value.command !== 'string') return undefined;
  const args = Array.isArray(value.args) ? value.args.filter((arg): arg is string => typeof arg === 'string') : [];
  const argv = [value.command, ...args];
  // The program is the command itself, or the script its interpreter (node) runs.
  const at = argv.slice(0, 2).findIndex((word) => AIRLOCK_PROGRAM.test(basename(word.replace(/\\/g, '/'))) || /[/\\]out[/\\]main[/\\]cli\.js$/.test(word));
  if (at < 0) return undefined;
  let index = at + 1;
  while (index < argv.length) {
    const word = argv[index]!;
    const option = word.split('=')[0]!;
    if (!Object.hasOwn(GLOBAL_OPTIONS, option)) break;
    index += GLOBAL_OPTIONS[option] && !word.includes('=') ? 2 : 1;
  }
  const verb = argv[index];
  if (verb === 'gateway') return { kind: 'gateway' };
  if (verb === 'run' && argv[index + 1]) return { kind: 'run', server: argv[index + 1]! };
  // An entry under Airlock's name that runs Airlock some other way is still Airlock's.
  return entryName === AIRLOCK_ENTRY_NAME ? { kind: 'gateway' } : undefined;
}

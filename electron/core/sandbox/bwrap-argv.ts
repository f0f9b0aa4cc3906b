/**
 * Turns the shell string sandbox-runtime 0.0.78 produces into an argv, so the
 * server runs with no shell between Airlock and bubblewrap. The library
 * quotes every word with its own `quote()` (bare safe words, `''`, or
 * single-quoted text with `'"'"'` for a quote), so the reverse is small and
 * exact; anything else in the string means the library changed, and we refuse
 * rather than guess.
 */
import { isAbsolute, relative } from 'node:path';
import { SandboxInitError } from './errors';

const BARE = /[A-Za-z0-9_./:=@+,-]/;

/** Splits a string made by sandbox-runtime's `quote()` back into its words. Throws on anything else. */
export function splitQuotedWords(text: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ' ') {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
      i += 1;
    } else if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) throw new SandboxInitError('sandbox-runtime produced an unterminated quote');
      current += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (ch === '"') {
      // The library only ever emits `"'"` (a literal single quote).
      if (text.slice(i, i + 3) !== `"'"`) {
        throw new SandboxInitError('sandbox-runtime produced a quoting form Airlock does not recognise');
      }
      current += "'";
      inWord = true;
      i += 3;
    } else if (BARE.test(ch)) {
      current += ch;
      inWord = true;
      i += 1;
    } else {
      throw new SandboxInitError(`sandbox-runtime produced an unexpected character ${JSON.stringify(ch)} in its command`);
    }
  }
  if (inWord) words.push(current);
  return words;
}

/** The parts of a wrapped command Airlock keeps. */
export interface BwrapInvocation {
  /** bubblewrap's options: everything between the binary and `--`. */
  options: string[];
  /** The apply-seccomp helper the library runs the command under (blocks new Unix sockets). */
  applySeccompPath: string;
}

/**
 * Takes `bwrap <options> -- <shell> -c '<apply-seccomp> <shell> -c <placeholder>'`
 * apart. Fails closed when the binary is not the pinned bwrap, when the
 * profile went through an args file (too large), or when seccomp is missing.
 */
export function parseWrappedCommand(
  wrapped: string,
  expected: { bwrapPath: string; shell: string; placeholder: string },
): BwrapInvocation {
  const words = splitQuotedWords(wrapped);
  if (words[0] !== expected.bwrapPath) {
    throw new SandboxInitError(
      `sandbox-runtime did not produce a plain bwrap invocation (got ${JSON.stringify(words[0])}); the profile may be too large`,
    );
  }
  const tail = words.slice(-4);
  if (tail[0] !== '--' || tail[1] !== expected.shell || tail[2] !== '-c' || tail[3] === undefined) {
    throw new SandboxInitError('sandbox-runtime produced a command Airlock does not recognise (no `-- shell -c`)');
  }
  const inner = splitQuotedWords(tail[3]);
  // SECURITY (invariant 5): without apply-seccomp the server could open Unix
  // sockets that are visible in the read-only filesystem (D-Bus, Docker,
  // Airlock's own IPC); fail closed instead of running without it.
  if (inner.length !== 4 || inner[1] !== expected.shell || inner[2] !== '-c' || inner[3] !== expected.placeholder) {
    throw new SandboxInitError(
      'sandbox-runtime did not apply its seccomp helper (vendor/seccomp/apply-seccomp missing?); refusing to run without it',
    );
  }
  return { options: words.slice(1, -4), applySeccompPath: inner[0]! };
}

const WRITABLE_BIND_FLAGS = new Set(['--bind', '--bind-try', '--dev-bind', '--dev-bind-try']);

/** True when `path` is `root` or inside it. */
export function isAtOrUnder(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Drops every writable bind whose source is not one Airlock asked for. The
 * library adds convenience write paths of its own (`/tmp/claude`,
 * `~/.npm/_logs`, `~/.claude/debug`) that would be shared between servers
 * and outlive them.
 */
export function keepOnlyGrantedWrites(
  options: string[],
  allowedWriteRoots: string[],
  allowedDevices: string[],
): { options: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (let i = 0; i < options.length; i += 1) {
    const flag = options[i]!;
    if (WRITABLE_BIND_FLAGS.has(flag)) {
      const source = options[i + 1];
      const dest = options[i + 2];
      if (source === undefined || dest === undefined) {
        throw new SandboxInitError(`sandbox-runtime produced a truncated ${flag}`);
      }
      // SECURITY (invariant 5): a writable bind is only ever the server's own
      // temp folder, its granted folders, or a standard device.
      const granted =
        source === dest &&
        (allowedDevices.includes(source) || allowedWriteRoots.some((root) => isAtOrUnder(source, root)));
      if (granted) kept.push(flag, source, dest);
      else dropped.push(source);
      i += 2;
      continue;
    }
    kept.push(flag);
  }
  return { options: kept, dropped };
}

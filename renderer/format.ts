/**
 * Plain words for what the core returned: profile summaries, grant purposes,
 * dates. Presentation only — no policy is decided here.
 */
import type { SandboxProfile } from '../shared/domain';

/** "This server can read …, write …, reach …" — computed from a sandbox profile, one clause per kind of access. */
export function profileSentences(profile: SandboxProfile): string[] {
  const fs = profile.filesystem;
  const reads =
    fs.read.length > 0
      ? `Can read ${listOf(fs.read)} (credential files there stay hidden); the rest of your home folder stays hidden.`
      : 'Sees nothing of your home folder but its own files; outside it, only what any program may read (system files).';
  const writes =
    fs.write.length > 0
      ? `Can change files in ${listOf(fs.write)}${fs.persistentData ? ' and in a data folder of its own' : ''}.`
      : fs.persistentData
        ? 'Can change files only in a data folder of its own, which survives restarts.'
        : 'Writes nowhere that lasts: only a temporary folder deleted when it stops.';
  const trusted = fs.writeTrusted?.length
    ? [`Can also change files other programs trust in ${listOf(fs.writeTrusted)} — git, direnv or your editor may run what it writes there, outside the sandbox.`]
    : [];
  const net =
    profile.network.allowedDomains.length > 0
      ? `Can reach ${listOf(profile.network.allowedDomains)} on the internet, nothing else.`
      : 'Has no internet or network access.';
  const secrets = profile.secrets.length > 0 ? `Gets the secrets ${listOf(profile.secrets)}.` : 'Gets no secrets.';
  const sentences = [reads, writes, ...trusted, net, secrets];
  if (profile.unsandboxed) sentences.unshift('Runs WITHOUT a sandbox: it can do anything you can.');
  return sentences;
}

function listOf(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** One line of purpose for each kind of grant (UX 13). */
export const GRANT_PURPOSE = {
  read: 'Lets the server read files in this folder even if it is normally protected.',
  write: 'Lets the server create, change and delete files in this folder. Files other programs run or trust there (a repository’s .git, .envrc, .vscode, shell start-up files) stay protected.',
  writeTrusted:
    'Lets it change those protected files too. git, direnv or your editor may then run what it wrote, outside the sandbox: give this only to a server that needs it, such as a git server that commits.',
  persistentData: 'A folder of its own that survives restarts. Any lasting write ends containment, so its read-only tools will ask.',
  network: 'Lets the server connect to this domain; every other address stays blocked.',
  secret: 'Passed to the server as an environment variable of this name; the value is kept in your system’s secret store.',
} as const;

/** A date and time for people, from an ISO string or epoch milliseconds. */
export function when(value: string | number | undefined): string {
  if (value === undefined) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** A copy of a profile that can be changed without touching the original. */
export function cloneProfile<P extends SandboxProfile>(profile: P): P {
  return JSON.parse(JSON.stringify(profile)) as P;
}

/** The editable part of a profile (running unsandboxed has its own channel). */
export function editable(profile: SandboxProfile): Omit<SandboxProfile, 'unsandboxed'> {
  return {
    filesystem: {
      read: [...profile.filesystem.read],
      write: [...profile.filesystem.write],
      persistentData: profile.filesystem.persistentData,
      ...(profile.filesystem.writeTrusted?.length ? { writeTrusted: [...profile.filesystem.writeTrusted] } : {}),
    },
    network: { allowedDomains: [...profile.network.allowedDomains] },
    secrets: [...profile.secrets],
  };
}

/**
 * Splits a command line the person typed into arguments, the way a POSIX
 * shell would for quotes and backslashes (no expansion of any kind). The
 * result is shown back as the exact argv before anything uses it.
 */
export function splitCommandLine(line: string): { argv: string[]; error?: string } {
  const argv: string[] = [];
  let current = '';
  let inArg = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else current += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) current += line[++i];
      else current += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inArg = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      current += line[++i];
      inArg = true;
    } else if (/\s/.test(ch)) {
      if (inArg) argv.push(current);
      current = '';
      inArg = false;
    } else {
      current += ch;
      inArg = true;
    }
  }
  if (quote) return { argv: [], error: `A ${quote === '"' ? 'double' : 'single'} quote is not closed.` };
  if (inArg) argv.push(current);
  return { argv };
}

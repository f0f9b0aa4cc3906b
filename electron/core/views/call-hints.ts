/**
 * A hint beside a failed call when the likely cause is the sandbox, not the
 * server: the call failed the way a program fails without network, and the
 * server has no grant for the host it probably needed; or it failed to write
 * a path outside its write grants (or a trusted file inside them). Airlock's words,
 * added after the server's own (which are always shown, inert).
 */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ServerRecord } from '../../../shared/domain';
import { knownApiDomains, urlHosts } from '../install/proposals';
import { isAtOrUnder } from '../sandbox/bwrap-argv';
import { TRUSTED_NAMES } from '../sandbox/trusted-files';

// How Node, Python and curl say "I could not reach the network" (and what Airlock's proxy answers).
const NETWORK_FAILURE = /ENOTFOUND|EAI_AGAIN|getaddrinfo|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ETIMEDOUT|fetch failed|network (?:error|is unreachable)|Temporary failure in name resolution|Name or service not known|Could not resolve host|socket hang up|proxy|not allowed by Airlock/i;

/**
 * The hint for a failed call of `record`'s tool whose text is `said`, or
 * undefined. `refused` are the hosts Airlock's proxy refused this server
 * during the call: the surest sign, named exactly.
 */
export function networkHint(record: ServerRecord, said: string, refused: readonly string[] = []): string | undefined {
  const granted = record.profile.network.allowedDomains;
  const grant = (domains: readonly string[]) => `\`airlock grant ${record.name} ${domains.map((d) => `--domain ${d}`).join(' ')}\``;
  if (refused.length) {
    return `Airlock's sandbox stopped ${record.name} from reaching ${refused.join(', ')}: it has no grant for ${refused.length === 1 ? 'it' : 'them'}. If the call needs ${refused.length === 1 ? 'it' : 'them'}, grant ${refused.length === 1 ? 'it' : 'them'} — ${grant(refused)}, or Permissions on its page.`;
  }
  if (!NETWORK_FAILURE.test(said)) return undefined;
  const known = [
    ...knownApiDomains(record.provenance.kind === 'npm' ? record.provenance.name : undefined, `${record.name} ${record.importedFrom?.entry ?? ''}`),
    ...urlHosts([...record.spec.args, ...Object.values(record.spec.env)]),
  ].filter((domain, index, all) => !granted.includes(domain) && all.indexOf(domain) === index);
  const now = granted.length ? `${record.name} may reach only ${granted.join(', ')}` : `${record.name} has no network access`;
  return `This looks like a network failure: ${now}. If the call needs the internet, grant the domain it needs — ${grant(known.length ? known : ['api.example.com'])}, or Permissions on its page.`;
}

// How Node, Python and the C library say "you may not write here" (EROFS: a read-only mount; EACCES/EPERM: no right).
const WRITE_REFUSED = /EROFS|read-only file system|EACCES|EPERM|permission denied|operation not permitted/i;
const NOT_FOUND = /ENOENT|no such file or directory/i;

/**
 * The hint for a failed call that looks like the sandbox refused a write:
 * the server's error says it could not write (or could not find a path the
 * host has — the sandbox hides the home folder), and a path the call named
 * lies outside what the server may write. Names the folder and the grant
 * that would allow it. `exists` is the host's file system (tests pass it
 * through unchanged).
 */
export function writeHint(record: ServerRecord, said: string, args: Readonly<Record<string, unknown>>, exists: (path: string) => boolean = existsSync): string | undefined {
  if (record.spec.remote) return undefined;
  const refused = WRITE_REFUSED.test(said);
  if (!refused && !NOT_FOUND.test(said)) return undefined;
  const f = record.profile.filesystem;
  const home = homedir();
  const candidates = pathsIn(args).map((path) => (path === '~' || path.startsWith('~/') ? join(home, path.slice(1)) : path)).filter((path) => isAbsolute(path));
  for (const path of candidates) {
    const inGrant = f.write.find((grant) => isAtOrUnder(path, grant));
    if (inGrant) {
      // Inside a write grant: only the files other programs trust are kept from it (a repository's .git, .envrc, .vscode …).
      const trusted = protectedIn(path, inGrant);
      if (refused && trusted && !(f.writeTrusted ?? []).some((exempt) => isAtOrUnder(trusted, exempt))) {
        return `The sandbox did not allow writing here: inside the folders ${record.name} may write, Airlock keeps it from changing files other programs run or trust (${trusted}). If it must (a git server that commits), allow it — \`airlock grant ${record.name} --write-trusted ${trusted}\`; git or your editor may then run what it writes.`;
      }
      continue;
    }
    const folder = nearestFolder(path, exists);
    // A missing path whose folder is not on this computer either is the truth, not the sandbox.
    if (!folder || (!refused && folder !== dirname(path) && folder !== path)) continue;
    const where = [...f.write, ...(f.persistentData ? ['its own data folder'] : [])];
    return `The sandbox did not allow writing here: ${record.name} may write only ${where.length ? `to ${where.join(', ')}` : 'nowhere that lasts (a temporary folder)'}. To let it write in ${folder}, grant it — \`airlock grant ${record.name} --write ${folder}\`, or Permissions on its page.`;
  }
  return undefined;
}

/** String values in the arguments that look like paths (at any depth, bounded). */
function pathsIn(value: unknown, depth = 0, found: string[] = []): string[] {
  if (depth > 4 || found.length >= 20) return found;
  if (typeof value === 'string') {
    if (value.length < 4096 && (value.startsWith('/') || value === '~' || value.startsWith('~/'))) found.push(value);
  } else if (Array.isArray(value)) value.forEach((item) => pathsIn(item, depth + 1, found));
  else if (value && typeof value === 'object') Object.values(value).forEach((item) => pathsIn(item, depth + 1, found));
  return found;
}

/** The folder at or above `path` that exists on this computer. */
function nearestFolder(path: string, exists: (path: string) => boolean): string | undefined {
  let at = resolve(path);
  for (let i = 0; i < 64; i += 1) {
    if (exists(at)) return statSync(at, { throwIfNoEntry: false })?.isDirectory() ? at : dirname(at);
    const up = dirname(at);
    if (up === at) return undefined;
    at = up;
  }
  return undefined;
}

/** The trusted entry (`.git`, `.envrc` …) `path` is at or inside, below `grant`, if any. */
function protectedIn(path: string, grant: string): string | undefined {
  const parts = relative(grant, path).split(sep);
  for (let i = 0; i < parts.length; i += 1) if (TRUSTED_NAMES.has(parts[i]!)) return join(grant, ...parts.slice(0, i + 1));
  return undefined;
}

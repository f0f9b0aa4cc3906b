/**
 * Checks made before anything is downloaded, installed or saved: a server's
 * name, its grants (paths that exist, domains that parse), plain settings
 * (`KEY=VALUE`). Each problem is one plain sentence that says what was wrong
 * and how to put it right — never a schema dump. Used by the CLI before it
 * asks the core for anything, and by the core again before it saves
 * (invariant 7: bad input gets a clear error and loses nothing saved).
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, normalize } from 'node:path';
import { isIP } from 'node:net';
import { ServerNameSchema, type SandboxProfile } from '../../../shared/domain';
import { isAtOrUnder } from '../sandbox/bwrap-argv';
import { canonicalHost } from '../sandbox/network-proxy';

/** The name problem in words, or undefined when `name` is a good, free server name. */
export function nameProblem(name: string, taken: Iterable<string> = []): string | undefined {
  if (!ServerNameSchema.safeParse(name).success) {
    const example = name
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48);
    return `“${name}” is not a server name Airlock can use: use lowercase letters, digits and dashes, starting with a letter or digit, at most 48${example && ServerNameSchema.safeParse(example).success ? ` (for example “${example}”)` : ''}.`;
  }
  for (const existing of taken) {
    if (existing === name) return `A server named ${name} already exists. Choose another name, or remove it first (\`airlock remove ${name}\`).`;
  }
  return undefined;
}

/**
 * Whether a network grant is one Airlock can enforce: `example.com`,
 * `*.example.com`, `host:port`, an IP literal, `[v6]:port`. The problem in
 * words, or undefined.
 */
export function domainProblem(grant: string): string | undefined {
  const text = grant.trim().toLowerCase();
  const bad = `“${grant}” is not a domain Airlock can allow: use a name like api.example.com, *.example.com (its subdomains), host:port, or an IP address.`;
  if (!text || /\s|\/|@|\?|#/.test(text)) {
    return /^[a-z][a-z0-9+.-]*:\/\//.test(text) ? `“${grant}” is a URL; give only its domain (${safeHost(text) ?? 'e.g. api.example.com'}).` : bad;
  }
  let host = text;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  let port: string | undefined;
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2];
    if (isIP(host) !== 6) return bad;
  } else if (!isIP(text)) {
    const withPort = /^(.*):(\d+)$/.exec(text);
    if (withPort) {
      host = withPort[1]!;
      port = withPort[2];
    }
  }
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return `The port in “${grant}” must be between 1 and 65535.`;
  if (host.startsWith('*.')) host = host.slice(2);
  if (host.includes('*')) return `“${grant}”: a wildcard may only stand for the subdomains at the front (*.example.com).`;
  if (isIP(host)) return undefined;
  const canonical = canonicalHost(host);
  if (canonical === undefined) return bad;
  if (!canonical.includes('.') && canonical !== 'localhost') return `“${grant}” has no dot: give the full domain (e.g. api.${canonical}.com).`;
  return undefined;
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

/** A read or write grant's problem in words (absolute, exists, a write grant is a folder), or undefined. */
export function pathProblem(kind: 'read' | 'write', path: string): string | undefined {
  if (!isAbsolute(path)) return `The ${kind} grant “${path}” must be an absolute path.`;
  if (!existsSync(path)) {
    return `The ${kind} grant ${path} does not exist. Create it first${kind === 'write' ? ` (mkdir -p '${path.replace(/'/g, "'\\''")}')` : ''}, or leave the grant out.`;
  }
  if (kind === 'write') {
    try {
      if (!statSync(path).isDirectory()) return `The write grant ${path} is a file; grant the folder it is in, so the server can replace it safely.`;
    } catch {
      // exists but cannot be inspected: the launcher will say why at start
    }
  }
  return undefined;
}

/**
 * A `writeTrusted` path's problem in words, or undefined. It must be
 * absolute and lie at or under one of the server's write grants: it only
 * lifts the protection of files host tools trust inside a write grant
 * (it never grants a write). It need not exist yet (a git server may create
 * its repository's `.git`).
 */
export function writeTrustedProblem(path: string, writeGrants: readonly string[]): string | undefined {
  if (!isAbsolute(path)) return `To let a server change trusted files at “${path}”, give an absolute path.`;
  if (!writeGrants.some((grant) => isAtOrUnder(normalize(path), normalize(grant)))) {
    return `${path} is not inside a folder this server may write: grant that folder first, then let it change the trusted files at ${path}.`;
  }
  return undefined;
}

/** Every problem with a profile's grants, in the order a person would fix them. */
export function profileProblems(profile: Pick<SandboxProfile, 'filesystem' | 'network'>): string[] {
  return [
    ...profile.filesystem.write.map((path) => pathProblem('write', path)),
    ...profile.filesystem.read.map((path) => pathProblem('read', path)),
    ...(profile.filesystem.writeTrusted ?? []).map((path) => writeTrustedProblem(path, profile.filesystem.write)),
    ...profile.network.allowedDomains.map((domain) => domainProblem(domain)),
  ].filter((problem): problem is string => problem !== undefined);
}

/** Names whose values are credentials more often than not: these go to the secret store, never into plain settings. */
export const SECRET_LIKE_NAME = /(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH)/i;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Variables Airlock sets itself for every server; a plain setting may not replace them. */
const RESERVED_ENV = new Set(['PATH', 'HOME', 'TMPDIR', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'all_proxy', 'no_proxy', 'NODE_OPTIONS', 'LD_PRELOAD', 'LD_LIBRARY_PATH']);

/**
 * Parses `KEY=VALUE` plain settings (`--env`). A name that looks like a
 * credential is refused with the way to pass it as a secret instead
 * (SECURITY.md rule 10: secrets are never plain settings).
 */
export function parseEnvAssignments(values: readonly string[]): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  const problems: string[] = [];
  for (const value of values) {
    const at = value.indexOf('=');
    const name = at < 0 ? value : value.slice(0, at);
    const problem = envNameProblem(name);
    if (at < 1) problems.push(`--env takes KEY=VALUE, got “${value}”.`);
    else if (problem) problems.push(problem);
    else env[name] = value.slice(at + 1);
  }
  return { env: { ...env }, problems };
}

/** Why `name` cannot be a plain setting, or undefined. */
export function envNameProblem(name: string): string | undefined {
  if (!ENV_NAME.test(name)) return `“${name}” is not an environment variable name (letters, digits and _, not starting with a digit).`;
  if (RESERVED_ENV.has(name)) return `${name} is set by Airlock for every server (the sandbox depends on it); it cannot be changed as a setting.`;
  if (SECRET_LIKE_NAME.test(name)) return `${name} looks like a secret: pass it with --secret ${name} (its value is read from your environment and kept out of the settings file).`;
  return undefined;
}

/**
 * How a failed inspection begins when the server itself did not start — it
 * was installed, then exited or never answered. A grant may fix that, so the
 * person may keep it, turned off (the README's promise), instead of losing the install.
 */
export const DID_NOT_START = 'The server did not start in the locked sandbox';

/**
 * What the policy in force means for one server or one setting: pure
 * functions of the policy state and the facts, table-tested. The room
 * (managed-policy-room.ts) carries out what they say; `decide()` receives
 * their answers as facts.
 *
 * - Servers: a deny always wins; with an allow list, only servers it (or
 *   `servers`, the organisation's own) names may run; without one, any
 *   server not denied. Then the sandbox, network and write bounds.
 * - Settings: each lockable setting is either free or locked by a key.
 * - An unreadable policy forbids everything it could forbid: no server
 *   runs, every lockable setting is locked (SECURITY: fails closed).
 */
import { createRequire } from 'node:module';
import type * as Semver from 'semver';
import type { ServerRecord } from '../../../shared/domain';
import type { ManagedPolicy, PolicyKey, ProvidedServer, ServerMatcher } from './policy-schema';
import { problemWords, type PolicyState } from './policy-state';

// semver (CommonJS) is read at the first version range a policy names, not when Airlock starts.
let satisfiesFunction: typeof Semver.satisfies | undefined;
const satisfies = (): typeof Semver.satisfies => (satisfiesFunction ??= createRequire(import.meta.url)('semver/functions/satisfies') as typeof Semver.satisfies);

/** Why a server may not run now. */
export interface ServerBlock {
  /** The key that blocks it (`unreadable`: the policy could not be read). */
  key: PolicyKey | 'unreadable';
  /** The rule, as the policy writes it (`{"npm":"evil-*"}`), or the problem. */
  rule: string;
  /** One sentence for the person. */
  message: string;
}

/** The sentence every blocked server carries. */
export const BLOCKED_BY_ORGANISATION = "Blocked by your organisation's policy";

/** The server facts the rules read (from Airlock's own record; nothing the server says). */
export type PolicyServer = Pick<ServerRecord, 'name' | 'spec' | 'provenance' | 'profile'>;

/** Why this server may not run under the policy, or undefined when it may. */
export function serverBlock(state: PolicyState, server: PolicyServer, homeDir: string): ServerBlock | undefined {
  if (state.status === 'none') return undefined;
  if (state.status === 'unreadable') {
    const first = state.problems[0];
    const rule = first ? problemWords(first) : 'the policy could not be read';
    return { key: 'unreadable', rule, message: `${BLOCKED_BY_ORGANISATION}: the policy could not be read (${rule}), so nothing it could forbid runs.` };
  }
  const policy = state.policy;
  const block = (key: PolicyKey, rule: string, why: string): ServerBlock => ({ key, rule, message: `${BLOCKED_BY_ORGANISATION} (${key}: ${rule}): ${why}.` });
  const denied = policy.deniedServers?.find((matcher) => matches(matcher, server));
  if (denied) return block('deniedServers', matcherText(denied), 'the organisation does not allow this server');
  if (policy.allowedServers) {
    const allowed = policy.allowedServers.some((matcher) => matches(matcher, server)) || providedMatch(policy, server) !== undefined;
    if (!allowed) return block('allowedServers', 'not in the list', "only the servers your organisation lists may run, and this one is not among them");
  }
  if (!server.spec.remote && server.profile.unsandboxed) {
    if (policy.requireSandbox === true) return block('requireSandbox', 'true', 'it is set to run without a sandbox, and every server must run in one');
    if (policy.allowUnsandboxed === false) return block('allowUnsandboxed', 'false', 'it is set to run without a sandbox, which the organisation does not allow');
  }
  for (const domain of server.profile.network.allowedDomains) {
    const refusal = domainRefusal(state, domain);
    if (refusal) return block(refusal.key, refusal.rule, `its network grant ${domain} is outside what the organisation allows`);
  }
  if (policy.allowWritesOutsideHome === false) {
    const outside = server.profile.filesystem.write.find((path) => !insideHome(path, homeDir));
    if (outside) return block('allowWritesOutsideHome', 'false', `its write grant ${outside} is outside your home folder`);
  }
  return undefined;
}

/** The provided server (`servers` entry) this server is, by its source; undefined when none. */
export function providedMatch(policy: ManagedPolicy, server: PolicyServer): string | undefined {
  for (const [name, provided] of Object.entries(policy.servers ?? {})) if (isProvided(provided, server)) return name;
  return undefined;
}

function isProvided(provided: ProvidedServer, server: PolicyServer): boolean {
  const p = server.provenance;
  if (provided.npm !== undefined) {
    const { name, range } = splitNpm(provided.npm);
    return p.kind === 'npm' && p.name === name && (range === undefined || p.version === range);
  }
  if (provided.pypi !== undefined) {
    const [name, version] = provided.pypi.split('==');
    return p.kind === 'pypi' && normalisePypi(p.name) === normalisePypi(name ?? '') && (version === undefined || p.version === version.trim());
  }
  if (provided.url !== undefined) return server.spec.remote !== undefined && sameUrl(server.spec.remote.url, provided.url);
  if (provided.command !== undefined) return !server.spec.remote && JSON.stringify([server.spec.command, ...server.spec.args]) === JSON.stringify(provided.command);
  return false;
}

/** True when the matcher names this server. */
export function matches(matcher: ServerMatcher, server: PolicyServer): boolean {
  const p = server.provenance;
  if (matcher.npm !== undefined) {
    if (p.kind !== 'npm') return false;
    const { name, range } = splitNpm(matcher.npm);
    return glob(name, true).test(p.name) && (range === undefined || satisfies()(p.version, range, { includePrerelease: true }));
  }
  if (matcher.pypi !== undefined) {
    if (p.kind !== 'pypi') return false;
    const [name, version] = matcher.pypi.split('==');
    return glob(normalisePypi(name ?? ''), true).test(normalisePypi(p.name)) && (version === undefined || p.version === version.trim());
  }
  if (matcher.registry !== undefined) {
    const origin = 'registry' in p ? p.registry : undefined;
    return origin !== undefined && glob(matcher.registry, true).test(origin.name);
  }
  if (matcher.url !== undefined) {
    const url = server.spec.remote?.url;
    return url !== undefined && glob(normaliseUrlPattern(matcher.url), true).test(normaliseUrl(url));
  }
  if (matcher.command !== undefined) {
    if (server.spec.remote) return false;
    return commandMatches(matcher.command, [server.spec.command, ...server.spec.args]);
  }
  return false;
}

/** One glob per argument; a last `**` takes any further arguments (none included). */
export function commandMatches(patterns: readonly string[], argv: readonly string[]): boolean {
  const rest = patterns.at(-1) === '**';
  const fixed = rest ? patterns.slice(0, -1) : patterns;
  if (rest ? argv.length < fixed.length : argv.length !== fixed.length) return false;
  return fixed.every((pattern, i) => glob(pattern, false).test(argv[i]!));
}

/** Why a network grant is outside the organisation's bounds (the key and rule), or undefined when it is within them. */
export function domainRefusal(state: PolicyState, grant: string): { key: PolicyKey; rule: string } | undefined {
  if (state.status === 'none') return undefined;
  if (state.status === 'unreadable') return { key: 'network.allowedDomains', rule: 'the policy could not be read' };
  const network = state.policy.network;
  if (!network) return undefined;
  const host = hostOf(grant);
  const denied = network.deniedDomains?.find((pattern) => covers(hostOf(pattern), host) || covers(host, hostOf(pattern)));
  if (denied) return { key: 'network.deniedDomains', rule: denied };
  if (network.allowedDomains && !network.allowedDomains.some((pattern) => covers(hostOf(pattern), host))) return { key: 'network.allowedDomains', rule: network.allowedDomains.join(', ') || 'none' };
  return undefined;
}

/** True when `pattern` (`*`, `*.example.com`, `example.com`) takes in every host `grant` can mean. */
export function covers(pattern: string, grant: string): boolean {
  const p = pattern.toLowerCase();
  const g = grant.toLowerCase();
  if (p === '*') return true;
  if (g === '*') return false;
  if (p.startsWith('*.')) {
    const base = p.slice(2);
    const gBase = g.startsWith('*.') ? g.slice(2) : g;
    return gBase.endsWith(`.${base}`) || (g.startsWith('*.') && gBase === base);
  }
  return p === g;
}

function hostOf(grant: string): string {
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(grant);
  if (bracket) return bracket[1]!;
  return grant.replace(/:\d+$/, '');
}

/** A lockable setting, by what a person changes. */
export type LockableSetting = 'mode' | 'trust' | 'unsandboxed' | 'httpGateway' | 'alwaysForDestructive' | 'samplingWithoutReview' | 'registry' | 'otlp';

/** What a setting's lock says. */
export interface SettingLock {
  key: PolicyKey;
  /** The value the organisation set, in words ("strict", "false", the URL). */
  value: string;
  /** The location that set it. */
  location: string;
}

const SETTING_KEYS: Record<LockableSetting, PolicyKey> = {
  mode: 'mode',
  trust: 'allowTrust',
  unsandboxed: 'allowUnsandboxed',
  httpGateway: 'allowHttpGateway',
  alwaysForDestructive: 'allowAlwaysForDestructive',
  samplingWithoutReview: 'allowSamplingWithoutReview',
  registry: 'registry',
  otlp: 'audit.otlp',
};

/** The lock on a setting, or undefined when a person may change it. An unreadable policy locks every one. */
export function settingLock(state: PolicyState, setting: LockableSetting): SettingLock | undefined {
  if (state.status === 'none') return undefined;
  const key = SETTING_KEYS[setting];
  if (state.status === 'unreadable') {
    const first = state.problems[0];
    return { key, value: 'locked while the policy cannot be read', location: first ? `${first.location}${first.line !== undefined ? `, line ${first.line}` : ''}` : state.locations.join(', ') };
  }
  const policy = state.policy;
  const at = (top: string) => state.from[top] ?? '';
  switch (setting) {
    case 'mode':
      return policy.mode === 'strict' ? { key, value: 'strict', location: at('mode') } : undefined;
    case 'trust':
      return policy.allowTrust === false ? { key, value: 'false', location: at('allowTrust') } : undefined;
    case 'unsandboxed':
      if (policy.requireSandbox === true) return { key: 'requireSandbox', value: 'true', location: at('requireSandbox') };
      return policy.allowUnsandboxed === false ? { key, value: 'false', location: at('allowUnsandboxed') } : undefined;
    case 'httpGateway':
      return policy.allowHttpGateway === false ? { key, value: 'false', location: at('allowHttpGateway') } : undefined;
    case 'alwaysForDestructive':
      return policy.allowAlwaysForDestructive === false ? { key, value: 'false', location: at('allowAlwaysForDestructive') } : undefined;
    case 'samplingWithoutReview':
      return policy.allowSamplingWithoutReview === false ? { key, value: 'false', location: at('allowSamplingWithoutReview') } : undefined;
    case 'registry':
      return policy.registry !== undefined ? { key, value: policy.registry, location: at('registry') } : undefined;
    case 'otlp':
      return policy.audit?.otlp !== undefined ? { key, value: policy.audit.otlp.endpoint, location: at('audit') } : undefined;
  }
}

/** "set by your organisation (allowTrust: false, /etc/airlock/managed-policy.json)" */
export function lockWords(lock: SettingLock): string {
  return `set by your organisation (${lock.key}: ${lock.value}${lock.location ? `, ${lock.location}` : ''})`;
}

/** The matcher as the policy writes it. */
export function matcherText(matcher: ServerMatcher): string {
  return JSON.stringify(matcher);
}

// ── Globs and names ─────────────────────────────────────────────────────

const globCache = new Map<string, RegExp>();

/** `*` any characters but `/`, `**` any characters, `?` one character but `/`; everything else literal. */
export function glob(pattern: string, caseInsensitive: boolean): RegExp {
  const cacheKey = `${caseInsensitive ? 'i' : 's'}${pattern}`;
  const cached = globCache.get(cacheKey);
  if (cached) return cached;
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  const regex = new RegExp(`^${source}$`, caseInsensitive ? 'i' : '');
  if (globCache.size > 1000) globCache.clear();
  globCache.set(cacheKey, regex);
  return regex;
}

/** `@scope/name@^1.2` → name and range (the `@` of a scope is not a version). */
export function splitNpm(text: string): { name: string; range?: string } {
  const at = text.lastIndexOf('@');
  if (at <= 0) return { name: text };
  return { name: text.slice(0, at), range: text.slice(at + 1) };
}

/** PEP 503: lower case, runs of `-`, `_`, `.` as one `-`. */
export function normalisePypi(name: string): string {
  return name.trim().toLowerCase().replace(/[-_.]+/g, '-');
}

function normaliseUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

function normaliseUrlPattern(pattern: string): string {
  // Scheme and host are case-insensitive (the glob is too); a pattern of a bare origin means its root.
  return /^[a-z]+:\/\/[^/]+$/i.test(pattern) ? `${pattern}/` : pattern;
}

function sameUrl(a: string, b: string): boolean {
  return normaliseUrl(a) === normaliseUrl(b);
}

function insideHome(path: string, home: string): boolean {
  const h = home.endsWith('/') ? home.slice(0, -1) : home;
  return path === h || path.startsWith(`${h}/`);
}

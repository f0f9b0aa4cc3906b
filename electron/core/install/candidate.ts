import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { ImportOrigin, Provenance, ServerSpec } from '../../../shared/domain';
import { ServerNameSchema } from '../../../shared/domain';
import { analyzeCommandLine, type CommandLineRisk } from './command-line-risk';

/**
 * A value the user must supply before the server can run (an MCPB
 * `user_config` field, a VS Code `inputs` entry that is not a password).
 * The spec refers to it as `${user_config.KEY}` until `applyUserConfig` fills it in.
 */
export interface UserConfigField {
  key: string;
  title: string;
  description?: string;
  type: 'string' | 'number' | 'boolean' | 'directory' | 'file';
  required: boolean;
  default?: string | number | boolean | string[];
  /** The field takes several values (expanded into several arguments). */
  multiple?: boolean;
  min?: number;
  max?: number;
}

/**
 * A secret the server asks for. It reaches the server only as the
 * environment variable `name`, injected by the launcher from the secret
 * store when the profile grants it; its value is never part of the spec.
 */
export interface SecretRequest {
  /** The environment variable the secret is passed in (also its name in `SandboxProfile.secrets`). */
  name: string;
  description?: string;
  required: boolean;
  /** Where the request came from, for the disclosure. */
  from: 'mcpb-user-config' | 'vscode-input' | 'imported-env' | 'registry' | 'remote-header' | 'oauth-client';
  /** The MCPB `user_config` key or VS Code input id behind it. */
  key?: string;
}

/** What a server asks for: shown at disclosure, granted only by the user. */
export interface RequestedInputs {
  /** Names of the plain environment variables the spec sets (values are in `spec.env`). */
  env: string[];
  secrets: SecretRequest[];
  userConfig: UserConfigField[];
}

/**
 * A suggestion for the sandbox profile, derived from what the server's
 * command line names. SECURITY (invariant 5): hints are shown to the user and
 * never granted silently — only the user's choice turns one into a grant.
 */
export interface ProfileHint {
  kind: 'path';
  /** Absolute path (with `~` expanded against the home folder). */
  path: string;
  access: 'read' | 'read-write';
  /** One line for a person: why the server probably needs this. */
  reason: string;
  /** Index in `[command, ...args]` where the path appears, when it came from the command line. */
  argIndex?: number;
}

/**
 * Everything Airlock knows about a server before the user consents to it:
 * the exact argv, where it came from, what it asks for, what its command
 * line risks. Building one never runs anything from the source.
 */
export interface InstallCandidate {
  /** A valid `ServerName` derived from the source; the user may change it. */
  suggestedName: string;
  /** Exactly what would run. May still hold `${user_config.KEY}` placeholders (see `unresolvedUserConfig`). */
  spec: ServerSpec;
  provenance: Provenance;
  /** Set for servers read from another app's config. Such servers arrive disabled. */
  importedFrom?: ImportOrigin;
  requested: RequestedInputs;
  profileHints: ProfileHint[];
  /** `analyzeCommandLine([spec.command, ...spec.args])`. */
  risks: CommandLineRisk[];
  /** Things a person should know that are not risks (e.g. an ignored config key). */
  warnings: string[];
  /** npm only: what was asked for and what the registry said, beyond the provenance. */
  npm?: NpmResolutionDetails;
  /** MCPB only: the manifest's own words and the signature details. */
  mcpb?: McpbBundleDetails;
  /** PyPI only: what was asked for, the lock and the program that runs. */
  pypi?: PypiResolutionDetails;
  /** From the MCP Registry: the listing as the disclosure shows it. */
  registry?: import('../../../shared/registry').RegistryDisclosure;
}

/** PyPI facts for the disclosure and the install that the `Provenance` record does not hold. */
export interface PypiResolutionDetails {
  /** The version or specifier asked for (`==0.6.2`, `` for the newest). */
  requested: string;
  /** The console script that runs the server. */
  script: string;
  /** The real interpreter the virtual environment is made from. */
  python: string;
  /** The lock: one `name==version --hash=sha256:…` line per package. */
  lock: string;
  /** Arguments the user (or the listing) added after the program. */
  userArgs: string[];
  /** Arguments for the interpreter before the program. */
  runtimeArgs: string[];
  /** The `mcp-name:` the package's description claims, if any (the registry's ownership mark). */
  mcpName?: string;
}

/** npm facts for the disclosure that the `Provenance` record does not hold. */
export interface NpmResolutionDetails {
  /** The range or tag the user asked for (`^1.2`, `latest`). */
  requested: string;
  /** Tarball URL the registry gave; its origin is the registry that was used. */
  tarball?: string;
  /** The `bin` entry that runs the server. */
  binName: string;
  /** Install-time scripts the package declares (never run: Airlock installs with scripts off). */
  installScripts: string[];
  /** Arguments the user added after the bin script. */
  userArgs: string[];
  /** The `mcpName` the package.json claims, if any (the MCP Registry's ownership mark). */
  mcpName?: string;
}

/** MCPB facts for the disclosure that the `Provenance` record does not hold. */
export interface McpbBundleDetails {
  displayName?: string;
  description?: string;
  manifestVersion: string;
  /** Signer details when a signature block is present (unverified unless `signature` says so). */
  signer?: { publisher?: string; issuer?: string; fingerprint?: string };
  /** Tools the manifest lists: the author's claims, checked later by a probe. */
  declaredTools: string[];
}

/**
 * Turns any label (a package name, an entry key, a manifest name) into a
 * valid `ServerName`: lowercase letters, digits and dashes, at most 48.
 */
export function suggestServerName(label: string): string {
  const withoutScope = label.replace(/^@[^/]+\//, '');
  let name = withoutScope
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '');
  if (!name) name = 'server';
  return ServerNameSchema.parse(name);
}

const PLACEHOLDER = /\$\{user_config\.([^}]+)\}/g;

/** Keys of `${user_config.KEY}` placeholders still present in a spec. */
export function unresolvedUserConfig(spec: ServerSpec): string[] {
  const keys = new Set<string>();
  for (const value of [spec.command, ...spec.args, ...Object.values(spec.env), spec.cwd ?? '']) {
    for (const match of value.matchAll(PLACEHOLDER)) keys.add(match[1]!);
  }
  return [...keys];
}

/** Values for user_config fields, as a form or CLI flags supply them. */
export type UserConfigValues = Record<string, string | number | boolean | string[]>;

/** A user_config value that does not fit its field, with a readable reason. */
export class UserConfigError extends Error {
  constructor(readonly problems: { key: string; message: string }[]) {
    super(`user settings: ${problems.map((p) => `${p.key}: ${p.message}`).join('; ')}`);
    this.name = 'UserConfigError';
  }
}

/**
 * Fills `${user_config.KEY}` placeholders with the user's values (or the
 * field's default), checking types, bounds and required fields. A
 * placeholder that is the whole argument and a `multiple` value expands into
 * several arguments. Returns a new candidate whose risks and hints are
 * recomputed for the concrete command line.
 */
export function applyUserConfig(
  candidate: InstallCandidate,
  values: UserConfigValues,
  options: { home?: string; cwd?: string } = {},
): InstallCandidate {
  const problems: { key: string; message: string }[] = [];
  const fields = new Map(candidate.requested.userConfig.map((field) => [field.key, field]));
  const resolved = new Map<string, string | string[]>();

  for (const key of Object.keys(values)) {
    // SECURITY (invariant 5, SECURITY.md rule 10): secrets never become plain spec values.
    if (candidate.requested.secrets.some((secret) => secret.key === key || secret.name === key)) {
      problems.push({ key, message: 'is a secret: store it in the secret store, not as a plain setting' });
    } else if (!fields.has(key)) problems.push({ key, message: 'this server does not ask for it' });
  }
  for (const field of fields.values()) {
    // Own keys only: a field named `constructor` must not read Object.prototype.
    const raw = (Object.hasOwn(values, field.key) ? values[field.key] : undefined) ?? field.default;
    if (raw === undefined) {
      if (field.required) problems.push({ key: field.key, message: 'is required' });
      continue;
    }
    const checked = checkFieldValue(field, raw);
    if (typeof checked === 'object' && 'problem' in checked) problems.push({ key: field.key, message: checked.problem });
    else resolved.set(field.key, checked);
  }
  if (problems.length > 0) throw new UserConfigError(problems);

  const substitute = (text: string): string =>
    text.replace(PLACEHOLDER, (whole, key: string) => {
      const value = resolved.get(key);
      if (value === undefined) return whole;
      return Array.isArray(value) ? value.join(' ') : value;
    });

  const args: string[] = [];
  for (const arg of candidate.spec.args) {
    const whole = /^\$\{user_config\.([^}]+)\}$/.exec(arg);
    const value = whole ? resolved.get(whole[1]!) : undefined;
    if (Array.isArray(value)) args.push(...value);
    else args.push(substitute(arg));
  }
  const spec: ServerSpec = {
    command: substitute(candidate.spec.command),
    args,
    env: Object.fromEntries(Object.entries(candidate.spec.env).map(([name, value]) => [name, substitute(value)])),
    ...(candidate.spec.cwd !== undefined ? { cwd: substitute(candidate.spec.cwd) } : {}),
  };

  const hints = candidate.profileHints.filter((hint) => hint.argIndex === undefined);
  for (const field of fields.values()) {
    if (field.type !== 'directory' && field.type !== 'file') continue;
    const value = resolved.get(field.key);
    for (const path of Array.isArray(value) ? value : value !== undefined ? [value] : []) {
      hints.push({
        kind: 'path',
        path: expandHome(path, options.home),
        access: field.type === 'directory' ? 'read-write' : 'read',
        reason: `the setting “${field.title}” names it`,
      });
    }
  }
  const argv = [spec.command, ...spec.args];
  const next: InstallCandidate = { ...candidate, spec };
  const skip = skippedArgIndexes(next);
  return {
    ...next,
    profileHints: dedupeHints([...hints, ...pathHintsFromArgs(argv, { home: options.home, cwd: spec.cwd ?? options.cwd, skip })]),
    risks: risksOutside(analyzeCommandLine(argv), skip),
  };
}

/** The server's own code (its script, its install folder) is an expected path, not a risk. */
function risksOutside(risks: CommandLineRisk[], skip: Set<number>): CommandLineRisk[] {
  return risks.filter((risk) => risk.code !== 'path' || !risk.spans.every((span) => skip.has(span.argIndex)));
}

function skippedArgIndexes(candidate: InstallCandidate): Set<number> {
  // The interpreter's own script (or the installed bin) is the server's code, not a data folder.
  const skip = new Set<number>([0]);
  const scriptPath =
    candidate.provenance.kind === 'local' ? candidate.provenance.script?.path : undefined;
  candidate.spec.args.forEach((arg, index) => {
    if (scriptPath && (arg === scriptPath || resolve(candidate.spec.cwd ?? process.cwd(), arg) === scriptPath)) skip.add(index + 1);
    if (candidate.provenance.kind !== 'local' && 'installDir' in candidate.provenance && isInside(candidate.provenance.installDir, arg)) {
      skip.add(index + 1);
    }
  });
  return skip;
}

function checkFieldValue(
  field: UserConfigField,
  raw: string | number | boolean | string[],
): string | string[] | { problem: string } {
  if (Array.isArray(raw)) {
    if (!field.multiple) return { problem: 'takes one value, not a list' };
    if (!raw.every((item) => typeof item === 'string')) return { problem: 'must be a list of text values' };
    return raw;
  }
  switch (field.type) {
    case 'number': {
      const number = typeof raw === 'number' ? raw : Number(raw);
      if (typeof raw === 'boolean' || !Number.isFinite(number)) return { problem: 'must be a number' };
      if (field.min !== undefined && number < field.min) return { problem: `must be at least ${field.min}` };
      if (field.max !== undefined && number > field.max) return { problem: `must be at most ${field.max}` };
      return String(number);
    }
    case 'boolean':
      if (typeof raw === 'boolean') return String(raw);
      if (raw === 'true' || raw === 'false') return raw;
      return { problem: 'must be true or false' };
    case 'directory':
    case 'file':
      if (typeof raw !== 'string' || raw.length === 0) return { problem: `must be a ${field.type} path` };
      return raw;
    default:
      if (typeof raw !== 'string') return String(raw);
      return raw;
  }
}

/** `~` and `~/x` against the given home; other paths unchanged. */
export function expandHome(path: string, home: string = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/') || path.startsWith('~\\')) return resolve(home, path.slice(2));
  return path;
}

function isInside(parent: string, child: string): boolean {
  if (!isAbsolute(child)) return false;
  const rel = resolve(child);
  return rel === parent || rel.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

/**
 * Paths named on a command line (absolute, `~/…`, `./…`, `../…`, also after
 * `--flag=`), as read-write hints: a server given a folder on its command
 * line (e.g. server-filesystem) will usually read and write there.
 */
export function pathHintsFromArgs(
  argv: string[],
  options: { home?: string; cwd?: string; skip?: Set<number> } = {},
): ProfileHint[] {
  const hints: ProfileHint[] = [];
  argv.forEach((arg, index) => {
    if (options.skip?.has(index) || index === 0) return;
    const value = arg.startsWith('-') && arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg;
    if (value.includes('${')) return;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return;
    let path: string | undefined;
    if (value === '~' || value.startsWith('~/')) path = expandHome(value, options.home);
    else if (value.startsWith('/') && value.length > 1) path = value;
    else if (/^[A-Za-z]:[\\/]/.test(value)) path = value;
    else if (value === '.' || value === '..' || value.startsWith('./') || value.startsWith('../')) {
      path = options.cwd ? resolve(options.cwd, value) : undefined;
    }
    if (path) {
      hints.push({
        kind: 'path',
        path,
        access: 'read-write',
        reason: `passed on the command line (argument ${index})`,
        argIndex: index,
      });
    }
  });
  return hints;
}

function dedupeHints(hints: ProfileHint[]): ProfileHint[] {
  const seen = new Set<string>();
  return hints.filter((hint) => {
    const key = `${hint.path}\u0000${hint.access}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Builds the parts every source computes the same way: env names, risks and
 * path hints for `spec`. Sources pass what only they know.
 */
export function finishCandidate(
  parts: Omit<InstallCandidate, 'risks' | 'profileHints' | 'requested'> & {
    requested: Omit<RequestedInputs, 'env'>;
    extraHints?: ProfileHint[];
    skipArgIndexes?: number[];
    home?: string;
  },
): InstallCandidate {
  const { extraHints = [], skipArgIndexes = [], home, ...rest } = parts;
  const argv = [rest.spec.command, ...rest.spec.args];
  const candidate: InstallCandidate = {
    ...rest,
    requested: { env: Object.keys(rest.spec.env).sort(), ...rest.requested },
    profileHints: [],
    risks: [],
  };
  const skip = skippedArgIndexes(candidate);
  for (const index of skipArgIndexes) skip.add(index);
  candidate.risks = risksOutside(analyzeCommandLine(argv), skip);
  candidate.profileHints = dedupeHints([
    ...extraHints,
    ...pathHintsFromArgs(argv, { home, cwd: rest.spec.cwd, skip }),
  ]);
  return candidate;
}

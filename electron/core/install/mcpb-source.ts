import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, posix, resolve, win32 } from 'node:path';
// The bundle library (and its signature code) is loaded when a bundle is read, not when Airlock starts.
type Mcpb = typeof import('@anthropic-ai/mcpb/node');
let mcpbLibrary: Promise<Mcpb> | undefined;
const mcpb = (): Promise<Mcpb> => (mcpbLibrary ??= import('@anthropic-ai/mcpb/node'));
import type { McpbManifestAny } from '@anthropic-ai/mcpb';
import type { Provenance, ServerSpec, SignatureState } from '../../../shared/domain';
import {
  finishCandidate,
  suggestServerName,
  type InstallCandidate,
  type SecretRequest,
  type UserConfigField,
} from './candidate';
import { resolveExecutable } from './local-command';
import { extractZip, listZipEntries, readZipEntry, ZipError } from './zip-reader';

/** One thing wrong with a bundle or its manifest: where, and what. */
export interface ManifestProblem {
  /** Dotted path into manifest.json (`server.mcp_config.command`), or `manifest.json` / `bundle`. */
  path: string;
  message: string;
}

/** A bundle Airlock will not install, with every problem found. */
export class McpbError extends Error {
  constructor(
    readonly bundlePath: string,
    readonly problems: ManifestProblem[],
  ) {
    super(`${bundlePath}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
    this.name = 'McpbError';
  }
}

/** A validated manifest and the schema version it was checked against. */
export type ManifestValidation =
  | { ok: true; manifest: McpbManifestAny; manifestVersion: string }
  | { ok: false; problems: ManifestProblem[] };

/**
 * Validates a parsed manifest.json against the strict schema of the version
 * it declares (`manifest_version`, or the older `dxt_version`), so each
 * problem comes back with its path and message — the combined schema would
 * only say "Invalid input".
 */
export async function validateMcpbManifest(raw: unknown): Promise<ManifestValidation> {
  const { MANIFEST_SCHEMAS } = await mcpb();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, problems: [{ path: 'manifest.json', message: 'must be a JSON object' }] };
  }
  const record = raw as Record<string, unknown>;
  const declared = record.manifest_version ?? record.dxt_version;
  const versions = Object.keys(MANIFEST_SCHEMAS);
  if (typeof declared !== 'string' || !(declared in MANIFEST_SCHEMAS)) {
    return {
      ok: false,
      problems: [
        {
          path: 'manifest_version',
          message:
            declared === undefined
              ? `missing; expected one of ${versions.join(', ')}`
              : `“${String(declared)}” is not a manifest version Airlock knows (${versions.join(', ')})`,
        },
      ],
    };
  }
  const schema = MANIFEST_SCHEMAS[declared as keyof typeof MANIFEST_SCHEMAS];
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, manifest: result.data, manifestVersion: declared };
  return { ok: false, problems: flattenIssues(result.error.issues) };
}

interface LooseIssue {
  path: (string | number)[];
  message: string;
  code?: string;
  unionErrors?: { issues: LooseIssue[] }[];
  keys?: string[];
}

function flattenIssues(issues: readonly LooseIssue[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'invalid_union' && issue.unionErrors?.length) {
      // Report the branch that came closest rather than zod's bare "Invalid input".
      const closest = [...issue.unionErrors].sort((a, b) => a.issues.length - b.issues.length)[0]!;
      problems.push(...flattenIssues(closest.issues));
      continue;
    }
    const path = issue.path.length ? issue.path.map(String).join('.') : '(manifest)';
    const message =
      issue.code === 'unrecognized_keys' && issue.keys
        ? `unknown field(s): ${issue.keys.join(', ')}`
        : issue.message === 'Required'
          ? 'is required'
          : issue.message;
    problems.push({ path, message });
  }
  return problems;
}

/** How a bundle's command is resolved on this machine. */
export interface McpbOptions {
  /** The server's own folder in Airlock's data, where the bundle is (or will be) unpacked. */
  serverDir: string;
  /** The node that runs `node` servers (default `process.execPath`; inside Electron pass a real node). */
  nodePath?: string;
  /** For `platform_overrides` and path separators (default this process's). */
  platform?: NodeJS.Platform;
  /** The home folder `${HOME}`, `${DESKTOP}`, `${DOCUMENTS}`, `${DOWNLOADS}` refer to (default `os.homedir()`). */
  home?: string;
  /** PATH used to resolve a bare command such as `python3` (default this process's). */
  pathEnv?: string;
  /** A name for the server (default derived from the manifest). */
  name?: string;
}

/** A read and validated bundle: the facts and the candidate for disclosure. Nothing is unpacked yet. */
export interface McpbBundle {
  bundlePath: string;
  bundleSha256: string;
  manifestVersion: string;
  manifest: McpbManifestAny;
  signature: SignatureState;
  candidate: InstallCandidate;
}

/**
 * Reads an `.mcpb` file: sha256 of the whole file, the signature state told
 * truthfully, manifest.json validated against its versioned schema, and a
 * candidate whose spec points into `serverDir`. Throws `McpbError` with every
 * problem found (zip-slip entries included). Nothing is unpacked or run.
 *
 * Variables in `mcp_config` and `user_config` defaults:
 * - `${__dirname}` → `serverDir`; `${/}` and `${pathSeparator}` → the separator;
 * - `${user_config.KEY}` stays a placeholder until `applyUserConfig`; a
 *   `sensitive` KEY must be a whole env value and becomes a `SecretRequest`
 *   (anywhere else the bundle is refused — it would land in argv or the store);
 * - `${HOME}`, `${DESKTOP}`, `${DOCUMENTS}`, `${DOWNLOADS}` are expanded
 *   against `home`, and each expansion is listed in `warnings` (and any path
 *   it produces on the command line becomes a profile hint): disclosed,
 *   never silent, and never a grant;
 * - anything else is left as written, with a warning.
 */
export async function readMcpbBundle(bundlePath: string, options: McpbOptions): Promise<McpbBundle> {
  const file = await readFile(bundlePath).catch((error: NodeJS.ErrnoException) => {
    throw new McpbError(bundlePath, [{ path: 'bundle', message: error.code === 'ENOENT' ? 'file not found' : error.message }]);
  });
  const bundleSha256 = createHash('sha256').update(file).digest('hex');
  const { originalContent, pkcs7Signature } = (await mcpb()).extractSignatureBlock(file);
  const { signature, signer } = await signatureState(file, pkcs7Signature);

  let manifestRaw: unknown;
  let entryNames: Set<string>;
  try {
    const entries = listZipEntries(originalContent);
    entryNames = new Set(entries.map((entry) => entry.name));
    const manifestEntry = entries.find((entry) => entry.name === 'manifest.json');
    if (!manifestEntry) throw new McpbError(bundlePath, [{ path: 'manifest.json', message: 'the bundle has no manifest.json at its top level' }]);
    const text = readZipEntry(originalContent, manifestEntry).toString('utf8');
    try {
      manifestRaw = JSON.parse(text);
    } catch (error) {
      throw new McpbError(bundlePath, [{ path: 'manifest.json', message: `not valid JSON (${(error as Error).message})` }]);
    }
  } catch (error) {
    if (error instanceof ZipError) throw new McpbError(bundlePath, [{ path: 'bundle', message: error.message }]);
    throw error;
  }
  const validation = await validateMcpbManifest(manifestRaw);
  if (!validation.ok) throw new McpbError(bundlePath, validation.problems);
  const { manifest, manifestVersion } = validation;

  const candidate = await buildMcpbCandidate(manifest, manifestVersion, {
    ...options,
    bundlePath,
    bundleSha256,
    signature,
    ...(signer ? { signer } : {}),
    entryNames,
  });
  return { bundlePath, bundleSha256, manifestVersion, manifest, signature, candidate };
}

async function signatureState(
  file: Buffer,
  pkcs7: Buffer | undefined,
): Promise<{ signature: SignatureState; signer?: { publisher?: string; issuer?: string; fingerprint?: string } }> {
  if (!pkcs7 || pkcs7.length === 0) return { signature: 'none' };
  // Verify the exact bytes we hashed, not whatever is at the path a moment later.
  const dir = await mkdtemp(join(tmpdir(), 'airlock-mcpb-verify-'));
  try {
    const copy = join(dir, 'bundle.mcpb');
    await writeFile(copy, file);
    const info = await (await mcpb()).verifyMcpbFile(copy).catch(() => ({ status: 'unsigned' as const }));
    // SECURITY (SECURITY.md rule 3, TECH-NOTES MCPB): only a chain the OS trusts counts as
    // verified. On Linux the library reports every bundle "unsigned"; a present block is
    // then "present-unverified", never "none" and never "verified".
    if (info.status === 'signed') {
      const details = info as { publisher?: string; issuer?: string; fingerprint?: string };
      return {
        signature: 'verified',
        signer: {
          ...(details.publisher ? { publisher: details.publisher } : {}),
          ...(details.issuer ? { issuer: details.issuer } : {}),
          ...(details.fingerprint ? { fingerprint: details.fingerprint } : {}),
        },
      };
    }
    return { signature: 'present-unverified' };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const KNOWN_DIRS = ['HOME', 'DESKTOP', 'DOCUMENTS', 'DOWNLOADS'] as const;

async function buildMcpbCandidate(
  manifest: McpbManifestAny,
  manifestVersion: string,
  context: McpbOptions & {
    bundlePath: string;
    bundleSha256: string;
    signature: SignatureState;
    signer?: { publisher?: string; issuer?: string; fingerprint?: string };
    entryNames: Set<string>;
  },
): Promise<InstallCandidate> {
  if (!isAbsolute(context.serverDir)) throw new McpbError(context.bundlePath, [{ path: 'bundle', message: 'the server folder must be an absolute path' }]);
  const serverDir = resolve(context.serverDir);
  const platform = context.platform ?? process.platform;
  const pathApi = platform === 'win32' ? win32 : posix;
  const home = context.home ?? homedir();
  const systemDirs: Record<(typeof KNOWN_DIRS)[number], string> = {
    HOME: home,
    DESKTOP: pathApi.join(home, 'Desktop'),
    DOCUMENTS: pathApi.join(home, 'Documents'),
    DOWNLOADS: pathApi.join(home, 'Downloads'),
  };
  const problems: ManifestProblem[] = [];
  const warnings: string[] = [];

  // The command: mcp_config (every strict manifest schema requires it), with this platform's override.
  const server = manifest.server;
  const config = server.mcp_config;
  if (!config) throw new McpbError(context.bundlePath, [{ path: 'server.mcp_config', message: 'is required' }]);
  let base: { command: string; args?: string[]; env?: Record<string, string> } = { command: config.command, args: config.args, env: config.env };
  const override = config.platform_overrides?.[platform];
  if (override) {
    base = { command: override.command ?? base.command, args: override.args ?? base.args, env: override.env ?? base.env };
  }

  const userConfig = manifest.user_config ?? {};
  const sensitive = new Set(Object.entries(userConfig).filter(([, field]) => field.sensitive).map(([key]) => key));
  const secrets: SecretRequest[] = [];
  const fields: UserConfigField[] = [];

  // Substitution. `${__dirname}` and `${/}` are Airlock's own facts. `${HOME}` and friends are
  // expanded, and every expansion is listed in the warnings: the disclosure shows which of
  // the user's folders the command line names (and they become path hints), nothing is
  // expanded silently. `${user_config.X}` stays a placeholder for `applyUserConfig`.
  const substitute = (text: string, where: string): string =>
    text.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
      if (name === '__dirname') return serverDir;
      if (name === '/' || name === 'pathSeparator') return pathApi.sep;
      if ((KNOWN_DIRS as readonly string[]).includes(name)) {
        const value = systemDirs[name as (typeof KNOWN_DIRS)[number]];
        warnings.push(`${whole} in ${where} is your folder ${value}`);
        return value;
      }
      if (name.startsWith('user_config.')) {
        const key = name.slice('user_config.'.length);
        if (!Object.hasOwn(userConfig, key)) problems.push({ path: where, message: `refers to ${whole}, which user_config does not define` });
        return whole;
      }
      warnings.push(`${whole} in ${where} is not a variable Airlock knows; it is passed on as written`);
      return whole;
    });

  const command = substitute(base.command, 'server.mcp_config.command');
  const args = (base.args ?? []).map((arg, index) => substitute(arg, `server.mcp_config.args.${index}`));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base.env ?? {})) {
    const whole = /^\$\{user_config\.([^}]+)\}$/.exec(value);
    if (whole && sensitive.has(whole[1]!)) {
      const field = userConfig[whole[1]!]!;
      // SECURITY (invariant 5, SECURITY.md rule 10): a sensitive value becomes a secret,
      // passed only as this env var from the secret store; it never enters the spec or the JSON store.
      secrets.push({ name, description: field.description || field.title, required: Boolean(field.required), from: 'mcpb-user-config', key: whole[1]! });
      continue;
    }
    env[name] = substitute(value, `server.mcp_config.env.${name}`);
  }
  // A sensitive value anywhere else would end up in argv (visible to every process) or in the store.
  for (const key of sensitive) {
    const token = `\${user_config.${key}}`;
    const misuse = [command, ...args, ...Object.values(env)].some((text) => text.includes(token));
    if (misuse) {
      problems.push({
        path: `user_config.${key}`,
        message: 'is sensitive but is used in the command line or inside a larger value; Airlock passes secrets only as a whole environment variable',
      });
    }
    if (!misuse && !secrets.some((secret) => secret.key === key)) {
      warnings.push(`the sensitive setting “${key}” is not used by the server's command; it will not be asked for`);
    }
  }
  for (const [key, field] of Object.entries(userConfig)) {
    if (sensitive.has(key)) continue;
    const entry: UserConfigField = {
      key,
      title: field.title,
      ...(field.description ? { description: field.description } : {}),
      type: field.type,
      required: Boolean(field.required),
      ...(field.multiple !== undefined ? { multiple: field.multiple } : {}),
      ...(field.min !== undefined ? { min: field.min } : {}),
      ...(field.max !== undefined ? { max: field.max } : {}),
    };
    if (field.default !== undefined) {
      entry.default = Array.isArray(field.default)
        ? field.default.map((item, index) => substitute(item, `user_config.${key}.default.${index}`))
        : typeof field.default === 'string'
          ? substitute(field.default, `user_config.${key}.default`)
          : field.default;
    }
    fields.push(entry);
  }
  if (problems.length) throw new McpbError(context.bundlePath, problems);

  const platforms = manifest.compatibility?.platforms;
  if (platforms && !platforms.includes(platform as 'darwin' | 'win32' | 'linux')) {
    warnings.push(`the bundle says it supports ${platforms.join(', ')}, not ${platform}`);
  }
  const entryPoint = server.entry_point.replace(/\\/g, '/').replace(/^\.\//, '');
  if (!context.entryNames.has(entryPoint)) warnings.push(`the entry point “${server.entry_point}” is not in the bundle`);

  // `node` means a node Airlock chose, not whatever is first on PATH.
  let resolvedCommand = command;
  if (command === 'node') resolvedCommand = context.nodePath ?? process.execPath;
  else if (!command.includes('/') && !command.includes('\\') && !command.includes('${')) {
    try {
      resolvedCommand = await resolveExecutable(command, {
        platform,
        ...(context.pathEnv !== undefined ? { pathEnv: context.pathEnv } : {}),
        cwd: serverDir,
      });
    } catch {
      warnings.push(`“${command}” was not found on PATH; the server cannot start until it is installed`);
    }
  } else if (!command.includes('${')) {
    resolvedCommand = pathApi.resolve(serverDir, command);
    if (!isInsideDir(serverDir, resolvedCommand, pathApi.sep)) warnings.push(`the command ${resolvedCommand} is outside the bundle`);
  }

  const spec: ServerSpec = { command: resolvedCommand, args, env, cwd: serverDir };
  const provenance: Provenance = {
    kind: 'mcpb',
    name: manifest.name,
    version: manifest.version,
    ...(manifest.author?.name ? { author: manifest.author.name } : {}),
    signature: context.signature,
    bundleSha256: context.bundleSha256,
    installDir: serverDir,
  };
  const skip = args.map((arg, index) => (isInsideDir(serverDir, arg, pathApi.sep) ? index + 1 : -1)).filter((i) => i > 0);
  return finishCandidate({
    suggestedName: suggestServerName(context.name ?? manifest.name),
    spec,
    provenance,
    requested: { secrets, userConfig: fields },
    warnings: [...new Set(warnings)],
    mcpb: {
      ...(manifest.display_name ? { displayName: manifest.display_name } : {}),
      ...(manifest.description ? { description: manifest.description } : {}),
      manifestVersion,
      ...(context.signer ? { signer: context.signer } : {}),
      declaredTools: (manifest.tools ?? []).map((tool) => tool.name),
    },
    skipArgIndexes: skip,
    home,
  });
}

function isInsideDir(dir: string, path: string, separator: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(separator) ? dir : dir + separator);
}

/**
 * Unpacks a bundle read by `readMcpbBundle` into its server folder, after
 * the user consented. The file is read again and must still have the sha256
 * that was disclosed. Entries that would escape the folder (zip slip),
 * links, and archives that are too large are refused before anything is
 * written; the folder must be absent or empty.
 */
export async function unpackMcpbBundle(bundle: McpbBundle): Promise<{ files: number; bytes: number }> {
  const provenance = bundle.candidate.provenance;
  if (provenance.kind !== 'mcpb') throw new McpbError(bundle.bundlePath, [{ path: 'bundle', message: 'not an MCPB candidate' }]);
  const file = await readFile(bundle.bundlePath);
  const sha = createHash('sha256').update(file).digest('hex');
  // SECURITY (invariant 7): what is unpacked is exactly what was disclosed.
  if (sha !== bundle.bundleSha256) {
    throw new McpbError(bundle.bundlePath, [{ path: 'bundle', message: 'the file changed since it was reviewed; read it again' }]);
  }
  const { originalContent } = (await mcpb()).extractSignatureBlock(file);
  try {
    const result = await extractZip(originalContent, provenance.installDir);
    const entry = bundle.manifest.server.entry_point;
    await stat(resolve(provenance.installDir, entry)).catch(() => {
      throw new McpbError(bundle.bundlePath, [{ path: 'server.entry_point', message: `“${entry}” is not in the unpacked bundle` }]);
    });
    return result;
  } catch (error) {
    if (error instanceof ZipError) throw new McpbError(bundle.bundlePath, [{ path: 'bundle', message: error.message }]);
    throw error;
  }
}

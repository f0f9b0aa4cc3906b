/**
 * From a listing to what would run: reads a `server.json` into its install
 * choices (local, sandboxable ones first) and turns the chosen package into a
 * plan — the package to pin, the exact arguments after it, plain settings,
 * secrets and the values a person must supply. The install flow resolves the
 * plan with the npm or PyPI source; nothing here downloads or runs.
 *
 * SECURITY (SECURITY.md rule 3; the registry schema's own warning on
 * `Argument`): arguments become separate argv entries exactly as written —
 * `;rm -rf ~` stays one harmless argument, shown in the disclosure, never
 * read by a shell. A value marked secret never goes on a command line (other
 * programs can read command lines): secrets are only environment variables.
 */
import type { RegistryOrigin, RemoteTransport } from '../../../shared/domain';
import type { RegistryDisclosure, RegistryListingView, RegistryOptionView } from '../../../shared/registry';
import type { SecretRequest, UserConfigField } from '../install/candidate';
import { envNameProblem } from '../install/checks';
import { readRemoteUrl } from '../remote/address';
import type { RegistryArgument, RegistryEntry, RegistryInput, RegistryKeyValue, RegistryPackage, RegistryRemote } from './server-json';

/** A listing Airlock cannot install as asked, with the reason in words. */
export class RegistryPlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryPlanError';
  }
}

/**
 * How remote servers are added (the host passes {@link remoteSupport}).
 * Absent: remotes are listed as "remote — not supported yet".
 */
export interface RemoteSupport {
  /** Why this remote cannot be used, or undefined when it can. */
  unsupported(remote: RegistryRemote): string | undefined;
}

/**
 * Remotes as the remote install source takes them: streamable HTTP or SSE, at
 * an address Airlock would connect to (the same reading as `--url`; the full
 * checks run again when it is prepared), with no parts left to fill in.
 */
export const remoteSupport: RemoteSupport = {
  unsupported(remote) {
    if (remote.type !== 'streamable-http' && remote.type !== 'sse') return `a remote over “${remote.type}” — Airlock speaks streamable HTTP and SSE`;
    if (/\{[^}]*\}/.test(remote.url)) return 'its address has parts to fill in — not supported yet';
    const problem = readRemoteUrl(remote.url).problem;
    return problem ? `its address is refused: ${problem}` : undefined;
  },
};

/** The default registries of each package type (a listing naming another one is refused, not silently redirected). */
const DEFAULT_PACKAGE_REGISTRIES: Record<string, string[]> = {
  npm: ['https://registry.npmjs.org'],
  pypi: ['https://pypi.org'],
};

/** Every install choice of a listing, local and supported first, then the rest in the listing's order. */
export function installOptions(entry: RegistryEntry, remote?: RemoteSupport): RegistryOptionView[] {
  const packages = entry.server.packages ?? [];
  const options: RegistryOptionView[] = packages.map((pkg, index) => packageOption(pkg, index));
  (entry.server.remotes ?? []).forEach((item, j) => {
    const reason = remote ? remote.unsupported(item) : 'remote — not supported yet';
    options.push({
      index: packages.length + j,
      kind: 'remote',
      where: 'remote',
      label: `remote (${item.type}) ${item.url}`,
      supported: reason === undefined,
      ...(reason ? { reason } : {}),
    });
  });
  const rank = (option: RegistryOptionView) => (option.where === 'local' ? 0 : 2) + (option.supported ? 0 : 1);
  return options.sort((a, b) => rank(a) - rank(b) || a.index - b.index);
}

function packageOption(pkg: RegistryPackage, index: number): RegistryOptionView {
  const type = pkg.registryType.toLowerCase();
  const kind: RegistryOptionView['kind'] = type === 'npm' || type === 'pypi' || type === 'mcpb' || type === 'oci' || type === 'nuget' ? type : 'other';
  const label = `${kind === 'pypi' ? 'PyPI' : kind === 'other' ? pkg.registryType : kind} ${pkg.identifier}${pkg.version ? ` ${pkg.version}` : ''}`;
  const reason = packageProblem(pkg, kind);
  return { index, kind, where: 'local', label, supported: reason === undefined, ...(reason ? { reason } : {}) };
}

function packageProblem(pkg: RegistryPackage, kind: RegistryOptionView['kind']): string | undefined {
  if (kind === 'oci') return 'a container image — Airlock does not run containers';
  if (kind === 'nuget') return 'a .NET package — not supported yet';
  if (kind === 'other') return `a “${pkg.registryType}” package — Airlock does not know this kind`;
  if (kind === 'mcpb') return 'an MCPB bundle from a download link — not supported from the registry yet (download it and add the file)';
  const transport = pkg.transport?.type ?? 'stdio';
  if (transport !== 'stdio') return `it serves ${transport} from a local process — not supported yet`;
  if (!pkg.version) return 'the listing names no version of the package, so Airlock cannot pin one';
  if (/[\^~<>=*|\s]|\.x$|^latest$/i.test(pkg.version)) return `the listing names a range (${pkg.version}), not one exact version`;
  const registry = pkg.registryBaseUrl?.replace(/\/+$/, '');
  if (registry && !DEFAULT_PACKAGE_REGISTRIES[kind]?.includes(registry)) {
    return `the package is published on ${registry}; Airlock installs ${kind === 'npm' ? 'npm' : 'PyPI'} packages from your configured ${kind === 'npm' ? 'npm registry' : 'package index'}`;
  }
  return undefined;
}

/** A listing as the search results and the detail show it. */
export function listingView(entry: RegistryEntry, remote?: RemoteSupport): RegistryListingView {
  const options = installOptions(entry, remote);
  const server = entry.server;
  const warnings: string[] = [];
  if (entry.official.status === 'deprecated') warnings.push('The registry marks this server DEPRECATED: its publisher no longer recommends it.');
  if (entry.official.status === 'deleted') warnings.push('The registry marks this server DELETED: it was withdrawn, possibly for a security problem. Do not install it unless you know why.');
  if (entry.unknownFields.length) warnings.push(`The listing has fields Airlock does not know (${entry.unknownFields.slice(0, 8).join(', ')}); they are ignored.`);
  if (options.length === 0) warnings.push('The listing offers no package and no remote: there is nothing to install.');
  return {
    name: server.name,
    ...(server.title ? { title: server.title } : {}),
    description: server.description,
    version: server.version,
    status: entry.official.status,
    ...(entry.official.publishedAt ? { publishedAt: entry.official.publishedAt } : {}),
    ...(entry.official.updatedAt ? { updatedAt: entry.official.updatedAt } : {}),
    ...(entry.official.isLatest !== undefined ? { isLatest: entry.official.isLatest } : {}),
    ...(server.repository?.url ? { repository: server.repository.url } : {}),
    ...(server.websiteUrl ? { websiteUrl: server.websiteUrl } : {}),
    sources: [...new Set(options.map((option) => (option.kind === 'pypi' ? 'PyPI' : option.kind)))],
    hasLocal: options.some((option) => option.where === 'local'),
    hasRemote: options.some((option) => option.where === 'remote'),
    options,
    warnings,
  };
}

/** What the install flow resolves: the package and exactly how it runs. */
export interface RegistryPlan {
  kind: 'npm' | 'pypi';
  /** The package name as the listing gives it. */
  identifier: string;
  /** The exact version the listing pins. */
  version: string;
  /** Arguments for the interpreter (node, python), before the package's own program; usually none. */
  runtimeArgs: string[];
  /** Arguments after the package's program. May hold `${user_config.KEY}` placeholders. */
  packageArgs: string[];
  /** Plain settings. May hold `${user_config.KEY}` placeholders. */
  env: Record<string, string>;
  secrets: SecretRequest[];
  userConfig: UserConfigField[];
  warnings: string[];
  origin: RegistryOrigin;
  /** What the disclosure shows of the listing. */
  disclosure: RegistryDisclosure;
}

/**
 * The plan for one install choice (`option` = its index; default: the first
 * supported local one). Throws `RegistryPlanError` when the choice cannot be
 * installed, saying why.
 */
export function planInstall(entry: RegistryEntry & { baseUrl: string }, option?: number, remote?: RemoteSupport): RegistryPlan {
  const { options, view, chosen } = choose(entry, option, remote);
  const server = entry.server;
  if (chosen.kind === 'remote') throw new RegistryPlanError(`${server.name}: ${chosen.label} is a remote server, not a package.`);
  const pkg = (server.packages ?? [])[chosen.index]!;
  const kind = chosen.kind as 'npm' | 'pypi';
  const builder = new InputBuilder(server.name);
  const interpreter = kind === 'npm' ? ['node'] : ['python', 'python3'];
  let runtimeArgs: string[] = [];
  if (pkg.runtimeArguments?.length) {
    if (pkg.runtimeHint && interpreter.includes(pkg.runtimeHint)) runtimeArgs = builder.arguments(pkg.runtimeArguments, 'runtime argument');
    else {
      const given = pkg.runtimeArguments.map((arg) => [arg.type === 'named' ? arg.name : '', arg.value ?? arg.default ?? (arg.type === 'positional' ? `<${arg.valueHint ?? 'value'}>` : '')].filter(Boolean).join(' '));
      builder.warnings.push(
        `The listing gives arguments for ${pkg.runtimeHint ?? 'the program that fetches the package'} (${given.join(' ')}); Airlock installs the package and runs it directly, so they are not used.`,
      );
    }
  }
  const packageArgs = builder.arguments(pkg.packageArguments ?? [], 'argument');
  const env = builder.environment(pkg.environmentVariables ?? []);
  const origin = originOf(entry);
  return {
    kind,
    identifier: pkg.identifier,
    version: pkg.version!,
    runtimeArgs,
    packageArgs,
    env,
    secrets: builder.secrets,
    userConfig: builder.fields,
    warnings: [...view.warnings, ...builder.warnings],
    origin,
    disclosure: disclosureOf(entry, chosen, options.length, builder.inputs),
  };
}

/** Where an install from the registry came from, as the server's record keeps it. */
function originOf(entry: RegistryEntry & { baseUrl: string }): RegistryOrigin {
  return {
    baseUrl: entry.baseUrl,
    name: entry.server.name,
    version: entry.server.version,
    status: entry.official.status,
    ...(entry.official.publishedAt ? { publishedAt: entry.official.publishedAt } : {}),
  };
}

/** What the person is shown about a registry listing before installing its chosen option. */
function disclosureOf(entry: RegistryEntry & { baseUrl: string }, option: RegistryDisclosure['option'], optionCount: number, inputs: RegistryDisclosure['inputs']): RegistryDisclosure {
  const server = entry.server;
  return {
    ...originOf(entry),
    ...(server.title ? { title: server.title } : {}),
    description: server.description,
    ...(server.repository?.url ? { repository: server.repository.url } : {}),
    option,
    optionCount,
    inputs,
  };
}

/** The install choice asked for (default: the first supported one), or why there is none. */
function choose(entry: RegistryEntry, option: number | undefined, remote: RemoteSupport | undefined) {
  const options = installOptions(entry, remote);
  const view = listingView(entry, remote);
  const chosen = option === undefined ? options.find((o) => o.supported) ?? options[0] : options.find((o) => o.index === option);
  const server = entry.server;
  if (!chosen) {
    throw new RegistryPlanError(option === undefined ? `${server.name} offers nothing to install.` : `${server.name} has no install choice number ${option} (it has ${options.length}).`);
  }
  if (!chosen.supported) throw new RegistryPlanError(`${server.name}: ${chosen.label} cannot be installed: ${chosen.reason ?? 'not supported'}.`);
  return { options, view, chosen };
}

/** What the install flow hands the remote install source: the address, transport and headers, and what the disclosure shows. */
export interface RegistryRemotePlan {
  kind: 'remote';
  url: string;
  transport: RemoteTransport;
  /** Each header as the remote source takes it: a fixed value (sealed there as a secret) or `${secret.NAME}` the person supplies. */
  headers: Array<{ name: string; value: string }>;
  /** The secrets those `${secret.NAME}` parts name, with the publisher's descriptions. */
  secrets: SecretRequest[];
  warnings: string[];
  origin: RegistryOrigin;
  disclosure: RegistryDisclosure;
}

/** The plan for any install choice: a package ({@link planInstall}) or a remote. */
export function planListing(entry: RegistryEntry & { baseUrl: string }, option?: number, remote?: RemoteSupport): RegistryPlan | RegistryRemotePlan {
  const { options, view, chosen } = choose(entry, option, remote);
  if (chosen.kind !== 'remote') return planInstall(entry, option ?? chosen.index, remote);
  const server = entry.server;
  const item = (server.remotes ?? [])[chosen.index - (server.packages ?? []).length]!;
  const inputs: RegistryDisclosure['inputs'] = [];
  const secrets: SecretRequest[] = [];
  const warnings: string[] = [];
  const headers: RegistryRemotePlan['headers'] = [];
  const secretFor = (name: string, description: string | undefined): string => {
    const secret = headerSecret(name);
    if (!secrets.some((s) => s.name === secret)) {
      inputs.push({ kind: 'secret', name: secret, ...(description ? { description } : {}) });
      secrets.push({ name: secret, ...(description ? { description } : {}), required: true, from: 'registry' });
    }
    return `\${secret.${secret}}`;
  };
  for (const header of item.headers ?? []) {
    const fixed = header.value ?? header.default;
    // SECURITY (rule 10): a listing does not get to name Airlock's secrets; only the parts it declares are asked for.
    if (fixed?.includes('${')) throw new RegistryPlanError(`${server.name}: the header ${header.name} names a secret template (“\${…}”); Airlock does not take that from a listing.`);
    if (fixed === undefined) {
      // A value the person supplies: asked for as a secret (header values are sealed whatever they are).
      if (!header.isRequired && !header.isSecret) {
        warnings.push(`The optional header ${header.name} is not sent (the listing gives no value).`);
        continue;
      }
      headers.push({ name: header.name, value: secretFor(`HEADER_${header.name}`, header.description) });
      continue;
    }
    const value = fixed.replace(/\{([A-Za-z0-9_.-]+)\}/g, (whole, name: string) => {
      const variable = header.variables && Object.hasOwn(header.variables, name) ? header.variables[name] : undefined;
      if (!variable) return whole;
      const given = variable.isSecret ? undefined : variable.value ?? variable.default;
      return given ?? secretFor(name, variable.description ?? header.description);
    });
    // A literal value the listing marks secret is still only a literal: the remote source seals it.
    headers.push({ name: header.name, value });
  }
  if (!(item.headers ?? []).some((header) => header.name.toLowerCase() === 'authorization')) {
    warnings.push('If the server asks you to sign in, Airlock signs in with OAuth at inspection, as for any server added by URL.');
  }
  return {
    kind: 'remote',
    url: item.url,
    transport: item.type === 'sse' ? 'sse' : 'streamable-http',
    headers,
    secrets,
    warnings: [...view.warnings, ...warnings],
    origin: originOf(entry),
    disclosure: disclosureOf(entry, chosen, options.length, inputs),
  };
}

/** A secret's name from a header or variable name: X-Api-Key → HEADER_X_API_KEY, api_key → API_KEY. */
function headerSecret(name: string): string {
  const base = name.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return (/^[A-Z]/.test(base) ? base : `HEADER_${base}`).slice(0, 64);
}

/** Collects argv entries, settings, secrets and the fields a person must fill, in the listing's order. */
class InputBuilder {
  readonly fields: UserConfigField[] = [];
  readonly secrets: SecretRequest[] = [];
  readonly warnings: string[] = [];
  readonly inputs: RegistryDisclosure['inputs'] = [];
  private readonly keys = new Set<string>();

  constructor(private readonly serverName: string) {}

  arguments(args: RegistryArgument[], what: string): string[] {
    const argv: string[] = [];
    for (const [position, arg] of args.entries()) {
      const label = arg.type === 'named' ? arg.name : arg.valueHint ?? `${what} ${position + 1}`;
      this.inputs.push({ kind: 'argument', name: label, ...(arg.description ? { description: arg.description } : {}) });
      if (arg.isSecret) {
        throw new RegistryPlanError(
          `${this.serverName} wants the secret “${label}” on its command line; Airlock passes secrets only as environment variables (other programs can read a command line), so it cannot run this listing as it is.`,
        );
      }
      if (arg.type === 'named' && /\s/.test(arg.name)) throw new RegistryPlanError(`${this.serverName}: the flag “${arg.name}” has spaces in its name.`);
      const value = this.value(arg, label, arg.type === 'positional' && arg.isRepeated === true);
      if (value === undefined) {
        this.warnings.push(`The optional ${what} “${label}” is left out (the listing gives no value).`);
        continue;
      }
      if (arg.type === 'named') {
        if (arg.name.endsWith('=')) argv.push(`${arg.name}${value}`);
        else argv.push(arg.name, value);
      } else argv.push(value);
    }
    return argv;
  }

  environment(vars: RegistryKeyValue[]): Record<string, string> {
    const env = Object.create(null) as Record<string, string>;
    for (const variable of vars) {
      const name = variable.name;
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || ['__proto__', 'constructor', 'prototype'].includes(name)) {
        throw new RegistryPlanError(`${this.serverName}: “${name}” is not an environment variable name.`);
      }
      const problem = envNameProblem(name);
      // SECURITY (SECURITY.md rule 10): a secret — or a name that looks like one — is a secret, asked for and kept in the secret store.
      if (variable.isSecret || (problem && /secret/.test(problem))) {
        this.inputs.push({ kind: 'secret', name, ...(variable.description ? { description: variable.description } : {}) });
        this.secrets.push({ name, ...(variable.description ? { description: variable.description } : {}), required: variable.isRequired === true, from: 'registry' });
        continue;
      }
      this.inputs.push({ kind: 'setting', name, ...(variable.description ? { description: variable.description } : {}) });
      if (problem) throw new RegistryPlanError(`${this.serverName} wants to set ${name}: ${problem}`);
      const value = this.value(variable, name, false);
      if (value === undefined) {
        this.warnings.push(`The optional setting ${name} is not set (the listing gives no value); add it on the server's page if you need it.`);
        continue;
      }
      env[name] = value;
    }
    return env;
  }

  /** A fixed value (its `{variables}` filled), a default, or a field the person fills; undefined when optional and unset. */
  private value(input: RegistryInput & { variables?: Record<string, RegistryInput> }, label: string, repeated: boolean): string | undefined {
    const fixed = input.value ?? input.default;
    if (fixed !== undefined) {
      return fixed.replace(/\{([A-Za-z0-9_.-]+)\}/g, (whole, name: string) => {
        const variable = input.variables?.[name];
        if (!variable || !Object.hasOwn(input.variables!, name)) return whole;
        if (variable.isSecret) {
          throw new RegistryPlanError(`${this.serverName} puts the secret “${name}” inside “${label}”; Airlock passes secrets only as whole environment variables.`);
        }
        const given = variable.value ?? variable.default;
        if (given !== undefined) return given;
        return this.placeholder(name, variable, variable.isRequired !== false, false);
      });
    }
    if (!input.isRequired) return undefined;
    return this.placeholder(label, input, true, repeated);
  }

  private placeholder(label: string, input: RegistryInput, required: boolean, multiple: boolean): string {
    let key = label.replace(/^-+/, '').replace(/[^A-Za-z0-9_.-]+/g, '_') || 'value';
    for (let n = 2; this.keys.has(key); n += 1) key = `${key}_${n}`;
    this.keys.add(key);
    const choices = input.choices?.length ? ` (one of: ${input.choices.join(', ')})` : '';
    this.fields.push({
      key,
      title: label,
      ...(input.description || choices ? { description: `${input.description ?? ''}${choices}`.trim() } : {}),
      type: input.format === 'number' ? 'number' : input.format === 'boolean' ? 'boolean' : input.format === 'filepath' ? 'file' : 'string',
      required,
      ...(multiple ? { multiple: true } : {}),
    });
    return `\${user_config.${key}}`;
  }
}

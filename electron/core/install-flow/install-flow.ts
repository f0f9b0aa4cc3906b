/**
 * The install flow behind the install screens and `airlock add`: a draft's
 * life from prepare to commit (what a draft is, and what it becomes in the
 * record, is draft.ts). Kept as one file on purpose: prepare, inspect,
 * preview, commit and cancel share the drafts and their clean-up, and each
 * source (npm, PyPI, MCPB, a local command, a remote server, an import, the
 * Registry) is a file of its own under install/.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { ServerRecord, ServerSpec } from '../../../shared/domain';
import { defaultSandboxProfile, installDirOf, ownEntry } from '../../../shared/domain';
import type { InstallSource } from '../../../shared/ipc';
import type { CommandRisk, Disclosure, ProbeReport } from '../../../shared/views';
import type { ScreenDomains, ScreenPermission } from '../../../shared/screens';
import { AirlockError, messageOf } from '../errors';
import { DID_NOT_START, envNameProblem, nameProblem, profileProblems } from '../install/checks';
import { codeLoadingArguments, type CodeArgument } from '../install/code-arguments';
import { proposeGrants } from '../install/proposals';
import { runtimeFor, type RuntimeLookup } from '../runtimes';
import type { ImportEntry, InstallCandidate, UserConfigValues } from '../install';
import { applyUserConfig, unresolvedUserConfig } from '../install/candidate';
import { riskSpans } from '../install/command-line-risk';
import { packageRunnerLine, refusedRunnerAdvice, type PackageRunnerLine } from '../install/package-runners';
import { prepareRemote, type RemoteCandidate } from '../install/remote-source';
import type { ImportScanFile, ImportScanRequest } from './import-scan';
import type { SignInBroker } from '../remote/oauth';
import { MemoryVault, SecretVault } from '../remote/oauth-vault';
import { createRemoteConnector } from '../remote/remote-connector';
import { probeRemote } from '../remote/remote-probe';
import type { Resolve } from '../remote/safe-fetch';
import { pinGrants } from '../sandbox/grant-pins';
import { planListing, RegistryPlanError, type RegistryPlan, type RegistryRemotePlan, type RemoteSupport } from '../registry/install-plan';
import type { RegistryEntry } from '../registry/server-json';
import type { AirlockSandboxLauncher } from '../sandbox/sandbox-launcher';
import type { SecretStore } from '../secrets/secret-store';
import { probe, ProbeError } from '../servers/probe';
import { pin } from '../catalog/catalog-index';
import type { AirlockStore } from '../store/store';
import { lastWords } from '../views/state-notes';
import { toolView, type ToolViewContext } from '../views/views';
import { approvedCatalog, approvedSet, codeArgumentsView, pinnedProgramIndex, probedScreenViews, screenSettingsAtCommit, sourceError, sourceLabel, type Draft, type EditableProfile } from './draft';

export interface InstallFlowDeps {
  dataDir: string;
  /**
   * The organisation's policy: throws (naming the key) when it forbids this
   * server — its source, its grants, its trust — before it is inspected or saved.
   */
  organisation?(server: ServerRecord, what: string): void;
  launcher: AirlockSandboxLauncher;
  store: AirlockStore;
  secrets: SecretStore;
  homeDir?: string;
  /** The node that runs JavaScript servers (inside Electron, a real node, not Electron). */
  nodePath?: string;
  /** The npm command (default `npm` on PATH). */
  npmCommand?: string;
  /** Finds node, npm and the search path (the person's setting first); absent: this process's. */
  runtimes?(): Promise<RuntimeLookup>;
  toolContext(record: ServerRecord): ToolViewContext;
  /** How a local server's files are hashed (the code hasher, so its first start need not hash them again). */
  hashFile?(path: string): Promise<string>;
  onDidChange(): void;
  startServer(name: string): Promise<void>;
  stopServer(name: string): Promise<void>;
  /** Why a server that did not start is not running, with its last words (for the message when it is saved turned off). */
  whyNotRunning?(name: string): string | undefined;
  /** The MCP Registry (listings by name and version); absent: registry sources are refused. */
  registry?: {
    server(name: string, version?: string): Promise<RegistryEntry & { baseUrl: string }>;
    remote?: RemoteSupport;
  };
  /** Python packages: an index to use instead of pip's configured one (tests, a mirror). */
  pypiIndexUrl?: string;
  /** Where the person signs in to a remote server during its inspection (the browser, a URL on the terminal); absent: sign-in is refused plainly. */
  signInBroker?(): SignInBroker | undefined;
  /** Tests: how remote host names resolve. */
  remoteResolve?: Resolve;
}

/**
 * The install sources' own code — npm, PyPI, MCPB bundles, local commands,
 * other apps' configs — loaded at the first install, update or import: a
 * command that installs nothing (`airlock list`) does not load it.
 */
const installSources = () => import('../install/sources');

/**
 * The install flow behind the install screens and `airlock add`: prepare a
 * source (nothing runs), inspect it in the locked sandbox (consented), then
 * commit it with the grants and trust the person chose. Cancel removes
 * everything a draft created.
 */
export class InstallFlow {
  private readonly drafts = new Map<string, Draft>();

  constructor(private readonly deps: InstallFlowDeps) {}

  /** Reads a source and returns what will run; installs and runs nothing. */
  async prepare(source: InstallSource): Promise<Disclosure> {
    const { prepareLocalCommand, readMcpbBundle, resolveNpm, resolvePypi } = await installSources();
    const id = randomBytes(12).toString('hex');
    const dir = join(this.serversRoot(), id);
    this.lookup = await this.deps.runtimes?.();
    const options = { serverDir: dir, nodePath: this.nodePath(), ...(this.deps.homeDir ? { home: this.deps.homeDir } : {}) };
    let draft: Draft;
    try {
      if (source.kind === 'npm') {
        const candidate = await resolveNpm(source.package, { ...options, ...this.npmOptions(), ...(source.args ? { userArgs: source.args } : {}) });
        draft = { id, dir, candidate, installed: false, secretValues: {}, profile: defaultSandboxProfile() };
      } else if (source.kind === 'example') {
        const folder = this.absolute(source.folder, 'the example folder');
        const candidate = await resolveNpm('@modelcontextprotocol/server-filesystem', { ...options, ...this.npmOptions(), userArgs: [folder], name: 'files' });
        const profile = defaultSandboxProfile();
        // Picking the folder for the example is the grant; it is shown and can be changed before enabling.
        draft = { id, dir, candidate, installed: false, secretValues: {}, profile: { ...profile, filesystem: { ...profile.filesystem, read: [folder], write: [folder] } } };
      } else if (source.kind === 'update') {
        draft = await this.prepareUpdate(id, dir, source.server, source.range);
      } else if (source.kind === 'pypi') {
        const candidate = await resolvePypi(source.package, { ...options, ...this.pythonOptions(), ...(source.args ? { userArgs: source.args } : {}) });
        draft = { id, dir, candidate, installed: false, secretValues: {}, profile: defaultSandboxProfile() };
      } else if (source.kind === 'registry') {
        const listing = await this.prepareListing(source, options);
        draft = listing.remote
          ? { id, candidate: listing.candidate, installed: true, secretValues: listing.remote.secretValues, profile: defaultSandboxProfile(), remote: { zone: listing.remote.zone, vault: new MemoryVault() } }
          : { id, dir, candidate: listing.candidate, installed: false, secretValues: {}, profile: defaultSandboxProfile() };
      } else if (source.kind === 'remote') {
        const remote = await prepareRemote(
          { url: source.url, ...(source.headers ? { headers: source.headers } : {}), ...(source.transport ? { transport: source.transport } : {}), ...(source.oauthClient ? { oauthClient: source.oauthClient } : {}) },
          this.deps.remoteResolve ? { resolve: this.deps.remoteResolve } : {},
        );
        draft = { id, candidate: remote.candidate, installed: true, secretValues: remote.secretValues, profile: defaultSandboxProfile(), remote: { zone: remote.zone, vault: new MemoryVault() } };
      } else if (source.kind === 'mcpb') {
        const bundle = await readMcpbBundle(this.absolute(source.path, 'the bundle path'), { ...options, ...(this.deps.homeDir ? { home: this.deps.homeDir } : {}) });
        draft = { id, dir, candidate: bundle.candidate, bundle, installed: false, secretValues: {}, profile: defaultSandboxProfile() };
      } else {
        const [command, ...args] = source.argv;
        const runner = packageRunnerLine(command!, args);
        if (runner) {
          // `npx -y PKG`, `uvx PKG`: fetched at every start as they stand — installed once, pinned, instead (as imports do).
          draft = { id, dir, candidate: await this.runnerCandidate(runner, source.argv, options), installed: false, secretValues: {}, profile: defaultSandboxProfile() };
        } else {
          const candidate = await prepareLocalCommand(
            { command: command!, args },
            { ...(this.deps.homeDir ? { home: this.deps.homeDir } : {}), ...(this.deps.hashFile ? { hashFile: (path: string) => this.deps.hashFile!(path) } : {}), ...(this.lookup?.pathEnv ? { pathEnv: this.lookup.pathEnv } : {}) },
          );
          draft = { id, candidate, installed: true, secretValues: {}, profile: defaultSandboxProfile() };
        }
      }
    } catch (error) {
      throw sourceError(error, source.kind === 'local' ? source.argv[0] : undefined, this.lookup);
    }
    if ('allowCodeArguments' in source && source.allowCodeArguments === true) draft.allowCodeArguments = true;
    this.drafts.set(id, draft);
    return this.disclosure(draft);
  }

  /**
   * A package runner's command line given as a local command (`npx -y PKG`,
   * `uvx PKG`, `pipx run PKG`) as the package it runs, pinned: the person is
   * told, in the disclosure, what their line would have done and what Airlock does instead.
   */
  private async runnerCandidate(runner: PackageRunnerLine, argv: readonly string[], options: { serverDir: string; nodePath: string; home?: string }): Promise<InstallCandidate> {
    const { resolveNpm, resolvePypi } = await installSources();
    const line = argv.join(' ');
    if (runner.kind === 'pypi-refused') {
      const advice = refusedRunnerAdvice(runner, 'NAME');
      throw new AirlockError('invalid-request', `${advice[0]!.toUpperCase()}${advice.slice(1)}.`);
    }
    const candidate =
      runner.kind === 'npm'
        ? await resolveNpm(runner.packageSpec, { ...options, ...this.npmOptions(), userArgs: runner.userArgs })
        : await resolvePypi(runner.packageSpec, { ...options, ...this.pythonOptions(), userArgs: runner.userArgs, ...(runner.scriptName ? { scriptName: runner.scriptName } : {}) });
    const provenance = candidate.provenance as { name: string; version: string };
    const option = runner.kind === 'npm' ? `--npm ${provenance.name}` : `--pypi ${provenance.name}`;
    const note = `You gave \`${line}\`, which downloads whatever ${provenance.name} is newest at every start. Airlock installs ${provenance.name} ${provenance.version} once instead, pinned, and runs it from its own folder (as \`${option}\` does).`;
    return { ...candidate, warnings: [note, ...candidate.warnings] };
  }

  /** Lists the servers in other apps' configs (or one file), each with its disclosure when it can be imported (see import-scan.ts). */
  async scanImports(request: ImportScanRequest): Promise<ImportScanFile[]> {
    const { scanImports } = await import('./import-scan');
    return scanImports(
      {
        environment: async () => {
          this.lookup = await this.deps.runtimes?.();
          return { ...(this.deps.homeDir ? { home: this.deps.homeDir } : {}), ...(this.lookup?.pathEnv ? { pathEnv: this.lookup.pathEnv } : {}) };
        },
        records: () => Object.values(this.deps.store.read().servers),
        heldSecret: (server, name) => this.deps.secrets.values(server, [name])[name],
        prepare: (entry, allowCodeArguments) => this.prepareImported(entry, allowCodeArguments),
        runtimeAdvice: (reason) => {
          // A missing runtime (node, python3, uvx): say where Airlock looked and how to add it.
          const missing = /“([^”]+)” was not found on PATH/.exec(reason)?.[1];
          const runtime = missing ? runtimeFor(missing) : undefined;
          return runtime ? this.lookup?.missing[runtime] : undefined;
        },
      },
      request.path ? { ...request, path: this.absolute(request.path, 'the config path') } : request,
    );
  }

  /**
   * Runs the server once in the locked sandbox and reports what it offers:
   * with the grants it is about to get (`profile`, default the draft's),
   * read-only — no writes but its temp folder, no network, no secrets, the
   * rest of home unreadable. Installs an npm package or unpacks a bundle
   * first — into the draft's own folder, which cancel removes.
   */
  async probe(
    draftId: string,
    userConfig: UserConfigValues = {},
    profile?: EditableProfile,
    chosen: { env?: Record<string, string>; trusted?: boolean; secrets?: Record<string, string> } = {},
  ): Promise<ProbeReport> {
    const draft = this.draft(draftId);
    // SECURITY (invariant 7): code from outside the pinned program runs only if the person allowed it — checked before anything is installed or run.
    this.refuseCodeArguments(draft, this.specWith(draft, userConfig, chosen.env));
    // Header secrets typed for this inspection: kept with the draft only once it connected with them (a wrong one is not kept).
    const typed = chosen.secrets && Object.keys(chosen.secrets).length > 0 ? this.headerSecrets(draft, chosen.secrets) : {};
    const secretValues = { ...draft.secretValues, ...typed };
    if (draft.remote) {
      // A remote server is reached with its headers: one whose secret is not given yet cannot be inspected — said before anything is sent.
      const unset = draft.candidate.requested.secrets.filter((secret) => secret.from === 'remote-header' && secret.required && !Object.hasOwn(secretValues, secret.name)).map((secret) => secret.name);
      if (unset.length > 0) {
        throw new AirlockError(
          'invalid-request',
          `Airlock needs ${unset.join(', ')} to connect: the server gets ${unset.length === 1 ? 'it' : 'them'} in its headers. Type ${unset.length === 1 ? 'it' : 'them'} under “Secrets sent to it” (on the command line: --secret NAME, the value in the environment variable NAME), or skip the inspection. Nothing was sent.`,
        );
      }
    }
    // SECURITY: a server the organisation forbids is not even inspected (the inspection runs it).
    this.deps.organisation?.({ ...this.previewRecord(draft, profile ?? draft.profile, chosen.trusted ?? false), spec: this.specWith(draft, userConfig, chosen.env) }, `inspect ${draft.candidate.suggestedName}`);
    await this.ensureInstalled(draft);
    const spec = this.specWith(draft, userConfig, chosen.env);
    const intended = profile ?? draft.profile;
    let result;
    try {
      result = draft.remote ? await this.probeRemoteDraft(draft, spec, secretValues) : await probe(
        spec,
        intended,
        { plan: (probeSpec, probeProfile, context) => this.deps.launcher.planProbe(probeSpec, probeProfile, context) },
        { serverName: draft.candidate.suggestedName, airlockDataDir: this.deps.dataDir, serverDataDir: join(this.deps.dataDir, 'server-data', `probe-${draft.id}`), secrets: {} },
        { timeoutMs: 30_000 },
      );
    } catch (error) {
      // The server's own last lines, quoted (`┆`): a shell prints this message as it is, and they must not pass for Airlock's lines.
      const log = error instanceof ProbeError ? error.log.slice(-20).flatMap((line) => line.text.split('\n').map((part) => `  ┆ ${part}`)).join('\n') : '';
      const paths = draft.candidate.profileHints.map((hint) => hint.path);
      const hint = paths.length && /ENOENT|EACCES|EPERM|EROFS|accessible|no such file|permission denied|read-only file system/i.test(log) ? `\nIt names ${paths.join(', ')}: grant ${paths.length === 1 ? 'it' : 'them'} (read or write) if the server needs ${paths.length === 1 ? 'it' : 'them'}.` : '';
      if (draft.remote) throw new AirlockError('unavailable', `Airlock could not inspect the server: ${messageOf(error).replace(/^probing the server failed: /, '')}${log ? `\nIts last notes:\n${log}` : ''}`);
      // Kept with the draft: saved turned off, the server says why it is off (see commit).
      const words = error instanceof ProbeError ? lastWords(error.log) : undefined;
      draft.startFailure = `${messageOf(error).replace(/^probing the server failed: /, '')}${words ? ` — its last output: “${words}”` : ''}.`;
      throw new AirlockError('unavailable', `${DID_NOT_START}: ${messageOf(error)}${log ? `\nIts last output:\n${log}` : ''}${hint}`);
    }
    // "What happens on a call" is computed for the grants and trust being given, not the defaults. What the person
    // reviews here becomes the approved set at commit: preview the tools as approved, so only what appears later is new.
    // It connected with them: the draft keeps them for the commit.
    if (Object.keys(typed).length > 0) draft.secretValues = secretValues;
    const tools = result.tools.items;
    // An update shows its screens' asks with what the person allowed the version it replaces (still asked for: kept, ticked).
    const replaced = draft.replaces ? this.deps.store.read().servers[draft.replaces]?.screens : undefined;
    const record = {
      ...this.previewRecord(draft, intended, chosen.trusted ?? false),
      approvedTools: approvedSet(tools, new Date().toISOString()),
      ...(replaced ? { screens: { approved: Object.create(null) as NonNullable<ServerRecord['screens']>['approved'], allowed: replaced.allowed, permissions: replaced.permissions } } : {}),
    };
    const context = { ...this.deps.toolContext(record), ownTools: tools.map((tool) => tool.definition.name) };
    const report: ProbeReport = {
      serverInfo: {
        name: result.serverInfo?.name ?? '(no name given)',
        version: result.serverInfo?.version ?? '(no version given)',
        ...(result.serverInfo?.title ? { title: result.serverInfo.title } : {}),
      },
      ...(result.instructions ? { instructions: result.instructions } : {}),
      tools: tools.map((tool) => toolView(tool.definition, tool.fingerprint, context)),
      prompts: (result.prompts?.items ?? []).map((prompt) => ({ name: prompt.name, ...(prompt.description ? { description: prompt.description } : {}) })),
      resources: (result.resources?.items ?? []).map((resource) => ({ uri: resource.uri, ...(resource.name ? { name: resource.name } : {}) })),
      ...(result.screens ? { screens: probedScreenViews(result.screens, record) } : {}),
      warnings: [
        ...(result.tools.truncated ? [`Airlock stopped reading the tool list early (${result.tools.reason}); tools past that point are not shown.`] : []),
        ...(result.tools.duplicateNames.length ? [`The server listed these tools more than once: ${result.tools.duplicateNames.join(', ')}.`] : []),
        ...(result.sandboxed || draft.remote ? [] : ['The probe ran WITHOUT a sandbox.']),
      ],
      log: result.log.slice(-50).map((line) => line.text),
    };
    draft.probed = report;
    draft.probedTools = tools.map((tool) => ({ definition: tool.definition, fingerprint: tool.fingerprint }));
    draft.probedScreens = result.screens ?? [];
    draft.probedCatalog = {
      prompts: pin(result.prompts?.items ?? [], (prompt) => prompt.name),
      resourceTemplates: pin(result.resourceTemplates?.items ?? [], (template) => template.uriTemplate),
    };
    return report;
  }

  /** The inspected tools with what a call of each would do under the grants and trust now chosen. */
  preview(draftId: string, profile: EditableProfile, trusted: boolean): { tools: ProbeReport['tools'] } {
    const draft = this.draft(draftId);
    const context = { ...this.deps.toolContext(this.previewRecord(draft, profile, trusted)), ownTools: (draft.probedTools ?? []).map((tool) => tool.definition.name) };
    return { tools: (draft.probedTools ?? []).map((tool) => toolView(tool.definition, tool.fingerprint, context)) };
  }

  /**
   * Saves the server with the chosen name, grants and trust; starts it when
   * asked. Everything is checked first (name, grants, settings) so a bad
   * request saves nothing. A server that does not start is saved turned off,
   * with the reason on its summary — never reported as running.
   */
  async commit(request: {
    draftId: string;
    name: string;
    profile: EditableProfile;
    trusted: boolean;
    secrets: Record<string, string>;
    userConfig?: UserConfigValues;
    env?: Record<string, string>;
    enable: boolean;
    screens?: { allowed: ScreenDomains; permissions: ScreenPermission[] };
  }): Promise<ServerRecord> {
    const draft = this.draft(request.draftId);
    this.refuseCodeArguments(draft, this.specWith(draft, request.userConfig ?? {}, request.env));
    const name = request.name;
    const servers = this.deps.store.read().servers;
    const existing = servers[name];
    if (draft.replaces && name !== draft.replaces) throw new AirlockError('invalid-request', `This update is for ${draft.replaces}; it keeps that name.`);
    const badName = nameProblem(name, draft.replaces === name ? [] : Object.keys(servers));
    if (badName) throw new AirlockError(existing ? 'conflict' : 'invalid-request', badName);
    const problems = profileProblems(request.profile);
    if (problems.length) throw new AirlockError('invalid-request', problems.join(' '));
    await this.ensureInstalled(draft);
    const spec = this.specWith(draft, request.userConfig ?? {}, request.env);
    const unresolved = unresolvedUserConfig(spec);
    if (unresolved.length) throw new AirlockError('invalid-request', `Fill in ${unresolved.join(', ')} before enabling this server.`);
    const secrets = { ...draft.secretValues, ...request.secrets };
    const missing = draft.candidate.requested.secrets.filter((secret) => secret.required && !secrets[secret.name]).map((secret) => secret.name);
    if (missing.length && request.enable) throw new AirlockError('invalid-request', `This server needs ${missing.join(', ')}; enter ${missing.length === 1 ? 'it' : 'them'} or add it disabled.`);
    this.deps.organisation?.({ ...this.previewRecord(draft, request.profile, request.trusted), name, spec }, `add ${name}`);
    const now = new Date().toISOString();
    if (existing) await this.deps.stopServer(name);
    const record: ServerRecord = {
      ...this.previewRecord(draft, request.profile, request.trusted),
      ...(existing?.importedFrom ? { importedFrom: existing.importedFrom } : {}),
      name,
      spec,
      // Grants are pinned where they resolve now (an update keeps the pins of grants it keeps).
      profile: pinGrants({ ...request.profile, secrets: [...new Set([...request.profile.secrets, ...Object.keys(secrets)])] }, existing?.profile),
      enabled: request.enable,
      approvedTools: approvedSet(draft.probedTools ?? [], now),
      ...(draft.probedCatalog ? approvedCatalog(draft.probedCatalog, now) : {}),
      // The screens the person saw at inspection, and what of their asks they allowed (an update keeps no old screen pin: it was reviewed again).
      ...screenSettingsAtCommit(draft.probedScreens, request.screens, now, existing?.screens),
      // What the person decided about sampling and elicitation, and the log level, carry over an update.
      ...(existing?.serverRequests ? { serverRequests: existing.serverRequests } : {}),
      ...(existing?.logLevel ? { logLevel: existing.logLevel } : {}),
      ...(draft.startFailure && !request.enable ? { startProblem: { reason: draft.startFailure, at: now } } : {}),
      createdAt: existing?.createdAt ?? now,
    };
    for (const [key, value] of Object.entries(secrets)) this.deps.secrets.set(name, key, value);
    // SECURITY: rule 10 — a sign-in made at inspection moves from memory into the secret store, under this name.
    const signIn = draft.remote?.vault.load();
    if (signIn) new SecretVault(this.deps.secrets, name).save(signIn);
    this.deps.store.update((data) => ({ ...data, servers: { ...data.servers, [name]: record } }));
    this.drafts.delete(draft.id);
    // An update's old files go only once the new version is saved.
    const oldDir = existing ? installDirOf(existing.provenance) : undefined;
    if (oldDir && oldDir !== installDirOf(record.provenance) && oldDir.startsWith(this.serversRoot())) {
      await rm(oldDir, { recursive: true, force: true });
    }
    this.deps.onDidChange();
    if (request.enable) {
      try {
        await this.deps.startServer(name);
      } catch (error) {
        // Saved, but turned off: it must not keep restarting, and nothing may call it "added and running".
        const reason = this.deps.whyNotRunning?.(name) ?? `${messageOf(error).replace(/^\S+ did not start: /, '')}.`;
        await this.deps.stopServer(name).catch(() => {}); // It did not start: stopping is only to be sure; the record below turns it off whatever this says.
        const off: ServerRecord = { ...record, enabled: false, startProblem: { reason, at: new Date().toISOString() } };
        this.deps.store.update((data) => (data.servers[name] ? { ...data, servers: { ...data.servers, [name]: off } } : data));
        this.deps.onDidChange();
        return off;
      }
    }
    return record;
  }

  /**
   * A new version of an installed npm server, as a new draft: resolved to an
   * exact version, to be installed in its own folder (the running version
   * is untouched until the person commits), with the server's current
   * arguments, environment and grants.
   */
  private async prepareUpdate(id: string, dir: string, name: string, range: string): Promise<Draft> {
    const { resolveNpm, resolvePypiUpdate } = await installSources();
    const record = this.deps.store.read().servers[name];
    if (!record) throw new AirlockError('not-found', `There is no server named ${name}.`);
    const provenance = record.provenance;
    if (provenance.kind === 'pypi') {
      const candidate = await resolvePypiUpdate(record, range, { serverDir: dir, name, ...this.pythonOptions(), ...(this.deps.homeDir ? { home: this.deps.homeDir } : {}) });
      const { unsandboxed: _u, ...profile } = record.profile;
      // The secrets and settings the server asked for carry over with it; the listing it came from no longer describes the new version.
      return { id, dir, candidate: { ...candidate, suggestedName: name }, installed: false, secretValues: {}, profile, replaces: name };
    }
    if (provenance.kind !== 'npm') throw new AirlockError('invalid-request', `${name} was not installed from npm or PyPI; only those servers can be updated from their registry.`);
    const packageDir = join(provenance.installDir, 'node_modules', ...provenance.name.split('/'));
    const userArgs = record.spec.args[0]?.startsWith(packageDir) ? record.spec.args.slice(1) : [...record.spec.args];
    const candidate = await resolveNpm(`${provenance.name}@${range}`, {
      serverDir: dir,
      nodePath: this.nodePath(),
      userArgs,
      serverEnv: record.spec.env,
      name,
      ...this.npmOptions(),
      ...(this.deps.homeDir ? { home: this.deps.homeDir } : {}),
    });
    const version = (candidate.provenance as { version: string }).version;
    const change = version === provenance.version ? `${provenance.name} stays at ${version}.` : `Update ${provenance.name} from ${provenance.version} to ${version}: review it as a new install.`;
    const { unsandboxed: _u, ...profile } = record.profile;
    return { id, dir, candidate: { ...candidate, suggestedName: name, warnings: [change, ...candidate.warnings] }, installed: false, secretValues: {}, profile, replaces: name };
  }

  /**
   * A listing of the MCP Registry as a candidate: the chosen package resolved
   * and pinned like any npm or PyPI package, with the listing's arguments,
   * settings and secrets, its name, version, status and date in the provenance.
   * SECURITY (invariant 7): a package that names another listing as its own
   * (npm `mcpName`, PyPI `mcp-name:`) is refused — the listing would be
   * vouching for someone else's package.
   */
  private async prepareListing(
    source: { name: string; version?: string | undefined; option?: number | undefined },
    options: { serverDir: string; nodePath: string; home?: string },
  ): Promise<{ candidate: InstallCandidate; remote?: RemoteCandidate }> {
    const { resolveNpm, resolvePypi } = await installSources();
    if (!this.deps.registry) throw new AirlockError('unavailable', 'This Airlock has no registry configured.');
    const entry = await this.deps.registry.server(source.name, source.version ?? 'latest');
    let plan: RegistryPlan | RegistryRemotePlan;
    try {
      plan = planListing(entry, source.option, this.deps.registry.remote);
    } catch (error) {
      if (error instanceof RegistryPlanError) throw new AirlockError('invalid-request', error.message);
      throw error;
    }
    if (plan.kind === 'remote') {
      // The same source as `--url`: its address and zone checks, its disclosure, header values sealed.
      const remote = await prepareRemote({ url: plan.url, transport: plan.transport, headers: plan.headers }, this.deps.remoteResolve ? { resolve: this.deps.remoteResolve } : {});
      const candidate = remote.candidate;
      const provenance = { ...candidate.provenance, registry: plan.origin } as typeof candidate.provenance;
      // The publisher's descriptions of the secrets it asks for join Airlock's (where each is sent).
      const secrets = candidate.requested.secrets.map((secret) => {
        const described = plan.secrets.find((asked) => asked.name === secret.name)?.description;
        return described ? { ...secret, description: `${described} (${secret.description ?? 'sent in a header'})` } : secret;
      });
      return {
        remote,
        candidate: { ...candidate, provenance, requested: { ...candidate.requested, secrets }, registry: plan.disclosure, warnings: [...candidate.warnings, ...plan.warnings] },
      };
    }
    const common = { ...options, userArgs: plan.packageArgs, runtimeArgs: plan.runtimeArgs, serverEnv: plan.env, name: plan.identifier };
    const candidate =
      plan.kind === 'npm'
        ? await resolveNpm(`${plan.identifier}@${plan.version}`, { ...common, ...this.npmOptions() })
        : await resolvePypi(`${plan.identifier}==${plan.version}`, { ...common, ...this.pythonOptions() });
    const claimed = plan.kind === 'npm' ? candidate.npm?.mcpName : candidate.pypi?.mcpName;
    const warnings = [...plan.warnings];
    if (claimed !== undefined && claimed !== plan.origin.name) {
      throw new AirlockError('invalid-request', `The package ${plan.identifier} says it belongs to the listing ${claimed}, not ${plan.origin.name}: the listing is not its publisher's. Nothing was installed.`);
    }
    if (claimed === undefined) warnings.push(`The package does not name this listing (${plan.kind === 'npm' ? 'no “mcpName” in its package.json' : 'no “mcp-name:” in its description'}), so Airlock cannot tell that the listing's publisher published it.`);
    const provenance = { ...candidate.provenance, registry: plan.origin } as typeof candidate.provenance;
    return {
      candidate: {
        ...candidate,
        provenance,
        requested: { ...candidate.requested, secrets: plan.secrets, userConfig: plan.userConfig },
        registry: plan.disclosure,
        warnings: [...warnings, ...candidate.warnings],
      },
    };
  }

  /** Inspects a remote draft: connects (the person signs in if the server asks), lists, disconnects; notes which transport answered. */
  /**
   * Secrets a remote server's headers need, given before its inspection (checked): the inspection
   * connects with them, and the draft keeps them once it did. Only a remote draft's header secrets —
   * a local server is inspected without any secret (SECURITY: the probe's locked sandbox).
   */
  private headerSecrets(draft: Draft, given: Record<string, string>): Record<string, string> {
    const asked = new Set(draft.candidate.requested.secrets.filter((secret) => secret.from === 'remote-header').map((secret) => secret.name));
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) {
      if (!draft.remote || !asked.has(name)) {
        throw new AirlockError('invalid-request', draft.remote ? `${name} is not a secret this server's headers send.` : 'A server on this computer is inspected without its secrets (read-only, no network, no secrets); give them when you enable it.');
      }
      if (value === '') continue;
      if (/[\r\n\0]/.test(value)) throw new AirlockError('invalid-request', `The value of ${name} contains a line break.`);
      out[name] = value;
    }
    return out;
  }

  private async probeRemoteDraft(draft: Draft, spec: ServerSpec, secretValues: Record<string, string>) {
    const remote = draft.remote!;
    const broker = this.deps.signInBroker?.();
    const link = createRemoteConnector({
      label: draft.candidate.suggestedName,
      spec: spec.remote!,
      zone: remote.zone,
      secrets: () => secretValues,
      vault: remote.vault,
      ...(broker ? { broker } : {}),
      ...(this.deps.remoteResolve ? { resolve: this.deps.remoteResolve } : {}),
    });
    try {
      const result = await probeRemote(link);
      remote.wire = result.wire;
      // Later starts speak the transport that answered (no fallback dance each time).
      const candidate = draft.candidate;
      if (candidate.spec.remote && candidate.provenance.kind === 'remote') {
        draft.candidate = { ...candidate, spec: { ...candidate.spec, remote: { ...candidate.spec.remote, transport: result.wire } }, provenance: { ...candidate.provenance, transport: result.wire } };
      }
      return result;
    } finally {
      await link.close();
    }
  }

  /**
   * Removes everything a draft created. An install under way is stopped and
   * waited for first: npm writes its package.json as it ends, and a folder
   * removed before that would come back half made.
   */
  async cancel(draftId: string): Promise<void> {
    const draft = this.drafts.get(draftId);
    if (!draft) return;
    this.drafts.delete(draftId);
    if (draft.installing) {
      draft.installing.stop.abort();
      await draft.installing.ended;
    }
    if (draft.dir) await rm(draft.dir, { recursive: true, force: true });
    await rm(join(this.deps.dataDir, 'server-data', `probe-${draft.id}`), { recursive: true, force: true });
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.drafts.keys()].map((id) => this.cancel(id)));
  }

  /** A draft for an importable entry of another app's config: its package looked up and pinned, its disclosure. */
  private async prepareImported(entry: Extract<ImportEntry, { status: 'importable' }>, allowCodeArguments: boolean): Promise<Disclosure> {
    const { resolveImportedNpm, resolveImportedPypi } = await installSources();
    const id = randomBytes(12).toString('hex');
    let draft: Draft;
    if (entry.offer.kind === 'remote') {
      const offer = entry.offer;
      const remote = await prepareRemote(offer.remote, this.deps.remoteResolve ? { resolve: this.deps.remoteResolve } : {});
      // A header that read one of VS Code's inputs: the person's words for it join Airlock's (where it is sent).
      const secrets = remote.candidate.requested.secrets.map((secret) => {
        const asked = offer.secrets?.find((input) => input.name === secret.name);
        return asked?.description ? { ...secret, description: `${asked.description} (${secret.description ?? 'sent in a header'})` } : secret;
      });
      const candidate = { ...remote.candidate, suggestedName: entry.suggestedName, importedFrom: entry.origin, requested: { ...remote.candidate.requested, secrets }, warnings: [...remote.candidate.warnings, ...offer.warnings] };
      draft = { id, candidate, installed: true, secretValues: remote.secretValues, profile: defaultSandboxProfile(), label: entry.entry, remote: { zone: remote.zone, vault: new MemoryVault() } };
    } else if (entry.offer.kind === 'npm') {
      const dir = join(this.serversRoot(), id);
      const candidate = await resolveImportedNpm(entry, { serverDir: dir, nodePath: this.nodePath(), ...this.npmOptions(), ...(this.deps.homeDir ? { home: this.deps.homeDir } : {}) });
      draft = { id, dir, candidate, installed: false, secretValues: entry.secretValues, profile: defaultSandboxProfile(), label: entry.entry };
    } else if (entry.offer.kind === 'pypi') {
      const dir = join(this.serversRoot(), id);
      const candidate = await resolveImportedPypi(entry, { serverDir: dir, ...this.pythonOptions(), ...(this.deps.homeDir ? { home: this.deps.homeDir } : {}) });
      draft = { id, dir, candidate, installed: false, secretValues: entry.secretValues, profile: defaultSandboxProfile(), label: entry.entry };
    } else {
      draft = { id, candidate: entry.offer.candidate, installed: true, secretValues: entry.secretValues, profile: defaultSandboxProfile(), label: entry.entry };
    }
    if (allowCodeArguments) draft.allowCodeArguments = true;
    this.drafts.set(id, draft);
    return this.disclosure(draft);
  }

  private async ensureInstalled(draft: Draft): Promise<void> {
    if (draft.installed) return;
    const stop = new AbortController();
    const install = this.install(draft, stop.signal);
    // Settles either way: cancel waits for the end, and the install's own failure is reported by the await below.
    draft.installing = { stop, ended: install.then(() => undefined, () => undefined) };
    try {
      await install;
    } catch (error) {
      if (draft.dir) await rm(draft.dir, { recursive: true, force: true });
      throw new AirlockError('unavailable', stop.signal.aborted ? 'The install was stopped, and nothing was kept.' : `Installing failed, and nothing was kept: ${messageOf(error)}`);
    } finally {
      delete draft.installing;
    }
    draft.installed = true;
  }

  /** Installs the draft's package (npm, pip) or unpacks its bundle into its folder; `signal` stops npm or pip. */
  private async install(draft: Draft, signal: AbortSignal): Promise<void> {
    const { installNpmPackage, installPypiPackage, unpackMcpbBundle } = await installSources();
    if (draft.candidate.provenance.kind === 'npm' && draft.dir) {
      await installNpmPackage(draft.candidate, draft.dir, { ...this.npmOptions(), signal });
    } else if (draft.candidate.provenance.kind === 'pypi' && draft.dir) {
      await installPypiPackage(draft.candidate, draft.dir, { ...this.pythonOptions(), signal });
    } else if (draft.bundle && draft.dir) {
      await mkdir(draft.dir, { recursive: true, mode: 0o700 });
      await unpackMcpbBundle(draft.bundle);
    }
  }

  /** The spec that will run: the person's plain settings first, then their user_config values filled in. */
  private specWith(draft: Draft, values: UserConfigValues, env?: Record<string, string>): ServerSpec {
    const base = env ? { ...draft.candidate, spec: this.withEnv(draft.candidate.spec, env) } : draft.candidate;
    const candidate = base.requested.userConfig.length ? applyUserConfig(base, values, this.deps.homeDir ? { home: this.deps.homeDir } : {}) : base;
    return candidate.spec;
  }

  private previewRecord(draft: Draft, profile: EditableProfile, trusted: boolean): ServerRecord {
    return {
      name: draft.candidate.suggestedName,
      spec: draft.candidate.spec,
      provenance: draft.candidate.provenance,
      ...(draft.candidate.importedFrom ? { importedFrom: draft.candidate.importedFrom } : {}),
      profile,
      trusted,
      enabled: false,
      approvedTools: {},
      createdAt: new Date().toISOString(),
    };
  }

  private disclosure(draft: Draft): Disclosure {
    const { candidate } = draft;
    const proposed = proposeGrants(candidate, { ...(draft.label ? { label: draft.label } : {}), ...(this.deps.homeDir ? { home: this.deps.homeDir } : {}) });
    const argv = [candidate.spec.command, ...candidate.spec.args];
    const risks = riskSpans(candidate.risks) as CommandRisk[];
    return {
      draftId: draft.id,
      suggestedName: draft.replaces ?? this.uniqueName(candidate.suggestedName),
      sourceLabel: sourceLabel(draft),
      provenance: candidate.provenance,
      ...(candidate.importedFrom ? { importedFrom: candidate.importedFrom } : {}),
      argv,
      ...(candidate.spec.cwd ? { cwd: candidate.spec.cwd } : {}),
      risks,
      envNames: Object.keys(candidate.spec.env).sort(),
      secrets: candidate.requested.secrets.map((secret) => ({
        name: secret.name,
        ...(secret.description ? { description: secret.description } : {}),
        required: secret.required,
        ...(Object.hasOwn(draft.secretValues, secret.name) ? { held: true } : {}),
      })),
      userConfig: candidate.requested.userConfig.map((field) => ({
        key: field.key,
        title: field.title,
        ...(field.description ? { description: field.description } : {}),
        type: field.type,
        required: field.required,
        ...(field.default !== undefined ? { default: field.default } : {}),
      })),
      profile: draft.profile,
      suggestedPaths: candidate.profileHints.map((hint) => ({ path: hint.path, access: hint.access === 'read-write' ? 'write' : 'read' })),
      proposals: proposed.proposals,
      env: { ...candidate.spec.env },
      warnings: [...candidate.warnings, ...proposed.notes.map((note) => `${note[0]!.toUpperCase()}${note.slice(1)}.`)],
      ...codeArgumentsView(this.codeArguments(draft.candidate, candidate.spec), draft.allowCodeArguments === true),
      ...(candidate.registry ? { registry: candidate.registry } : {}),
      ...this.replacing(draft),
      ...this.platformWeaker(draft),
    };
  }

  /** Where this computer's sandbox holds less than Linux's (a server Airlock runs here; none for a remote one). */
  private platformWeaker(draft: Draft): Pick<Disclosure, 'platformWeaker'> {
    if (draft.candidate.spec.remote) return {};
    const rows = this.deps.launcher.weakerThanLinux?.() ?? [];
    return rows.length ? { platformWeaker: rows } : {};
  }

  /** What on the command line runs code from outside the program Airlock pinned (see install/code-arguments). */
  private codeArguments(candidate: InstallCandidate, spec: ServerSpec): CodeArgument[] {
    if (spec.remote) return [];
    const argv = [spec.command, ...spec.args];
    const programIndex = pinnedProgramIndex(candidate, argv);
    return codeLoadingArguments(argv, programIndex !== undefined ? { programIndex } : {});
  }

  /**
   * Refuses, as `--env NODE_OPTIONS` is refused, a command line that runs code
   * from outside the pinned program — unless the person allowed it, warned.
   */
  private refuseCodeArguments(draft: Draft, spec: ServerSpec): void {
    const found = this.codeArguments(draft.candidate, spec);
    if (found.length === 0 || draft.allowCodeArguments) return;
    throw new AirlockError(
      'invalid-request',
      `Its command line runs code from outside what Airlock pinned and checked: ${found.map((item) => `“${item.text}” ${item.reason}`).join('; ')}. Airlock refuses this, as it refuses NODE_OPTIONS. If you trust it, allow it: --allow-code-arguments on the command line, or “Allow these arguments” on the disclosure in the app. Nothing was run.`,
    );
  }

  private replacing(draft: Draft): Pick<Disclosure, 'replaces'> {
    const record = draft.replaces ? this.deps.store.read().servers[draft.replaces] : undefined;
    if (!record) return {};
    const version = record.provenance.kind === 'npm' || record.provenance.kind === 'mcpb' || record.provenance.kind === 'pypi' ? record.provenance.version : '';
    return { replaces: { name: record.name, trusted: record.trusted, enabled: record.enabled, version } };
  }

  private uniqueName(name: string): string {
    const taken = this.deps.store.read().servers;
    let result = name;
    for (let n = 2; ownEntry(taken, result); n += 1) result = `${name.slice(0, 44)}-${n}`;
    return result;
  }

  private draft(id: string): Draft {
    const draft = this.drafts.get(id);
    if (!draft) throw new AirlockError('not-found', 'This install was cancelled or has already finished; start again.');
    return draft;
  }

  private serversRoot(): string {
    return join(this.deps.dataDir, 'servers');
  }

  /** The last runtime lookup (refreshed at each prepare and scan). */
  private lookup: RuntimeLookup | undefined;

  private nodePath(): string {
    return this.lookup?.nodePath ?? this.deps.nodePath ?? process.execPath;
  }

  private pythonOptions() {
    return { ...(this.lookup?.pythonPath ? { pythonCommand: this.lookup.pythonPath } : {}), ...(this.deps.pypiIndexUrl ? { indexUrl: this.deps.pypiIndexUrl } : {}) };
  }

  private npmOptions() {
    const npmCommand = this.deps.npmCommand ?? this.lookup?.npmCommand;
    return npmCommand ? { npmCommand } : {};
  }

  /**
   * A spec with the person's plain settings: `env` is the whole list (what the
   * source set, as edited). Names the source set may stay as they were; a
   * new or changed one must be a plain setting, never a secret.
   */
  private withEnv(spec: ServerSpec, env: Record<string, string> | undefined): ServerSpec {
    if (!env) return spec;
    for (const [key, value] of Object.entries(env)) {
      const problem = spec.env[key] === value ? undefined : envNameProblem(key);
      if (problem) throw new AirlockError('invalid-request', problem);
    }
    return { ...spec, env: { ...env } };
  }

  private absolute(path: string, what: string): string {
    if (!path.trim()) throw new AirlockError('invalid-request', `Enter ${what}.`);
    return isAbsolute(path) ? path : resolve(this.deps.homeDir ?? process.cwd(), path);
  }
}

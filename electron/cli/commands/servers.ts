import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { SandboxProfile } from '../../../shared/domain';
import type { InstallSource } from '../../../shared/ipc';
import { signOutWords } from '../../../shared/plain';
import type { ServerDetail } from '../../../shared/views';
import { nameProblem, packageRunnerLine, writeTrustedProblem } from '../../core/install';
import type { SharedHost } from '../../core/ipc/shared-host';
import { similarNames } from '../../core/similar-names';
import { formatDetail, formatSummaryLine, formatToolInFull, inert } from '../format';
import { formatScreens } from '../screen-format';
import { CliExit, EXIT, withProgress, type CliIo } from '../output';
import { formatSandboxPlan, planPlatform } from '../sandbox-plan-format';
import { palette } from '../terminal';
import { confirmOrExit, type CliContext } from './context';
import { applyGrants, checkGrants, collect, envOption, secretsFromEnv, withGrantOptions, type GrantOptions } from './grant-options';
import { registerImportCommand } from './import';
import { ALLOW_CODE_HELP, ALLOW_SCREEN_HELP, installFromDisclosure, NO_PROBE_HELP } from './install-steps';

export { confirmOrExit, type CliContext } from './context';
export { installFromDisclosure } from './install-steps';

/** `--header "Name: value"` options as name/value pairs; a malformed one is a usage error (nothing sent). */
function parseHeaders(given: string[] | undefined): Array<{ name: string; value: string }> {
  return (given ?? []).map((text) => {
    const colon = text.indexOf(':');
    if (colon <= 0) throw new CliExit(EXIT.usage, `--header takes "Name: value" (e.g. --header "X-Api-Key: \${secret.API_KEY}"); got “${inert(text.slice(0, 80))}”.`);
    return { name: text.slice(0, colon).trim(), value: text.slice(colon + 1).trim() };
  });
}

/** Said wherever a person lets a server change files that other programs trust. */
export const WRITE_TRUSTED_WARNING =
  'Airlock normally keeps a server from changing files that programs on your computer run or trust inside the folders it may write: ' +
  "a repository's .git (its config and hooks), .envrc, .vscode, shell start-up files. With --write-trusted it may change them there, " +
  'and git, direnv or your editor may then run what it wrote, outside the sandbox. Give it only to a server that needs it, such as a git server that commits.';

/** `--client-id` and `--client-secret-env`: the OAuth client a person registered by hand, its secret from the environment. */
function oauthClientOption(io: CliIo, options: { clientId?: string; clientSecretEnv?: string }): { oauthClient?: { id: string; secret?: string } } {
  if (options.clientSecretEnv && !options.clientId) throw new CliExit(EXIT.usage, '--client-secret-env goes with --client-id: give the id of the client whose secret it is.');
  if (!options.clientId) return {};
  if (!options.clientSecretEnv) return { oauthClient: { id: options.clientId } };
  const secret = io.env[options.clientSecretEnv];
  if (secret === undefined || secret === '') throw new CliExit(EXIT.usage, `--client-secret-env ${options.clientSecretEnv}: set the environment variable ${options.clientSecretEnv} to the client's secret for this command.`);
  return { oauthClient: { id: options.clientId, secret } };
}

/** What `add NAME -- npx -y PKG` (or `uvx PKG`, `pipx run PKG`) looks up: the package it runs, pinned. */
function runnerLookup(source: InstallSource): string {
  const runner = source.kind === 'local' ? packageRunnerLine(source.argv[0] ?? '', source.argv.slice(1)) : undefined;
  if (runner?.kind === 'npm') return `Looking up ${runner.packageSpec} on npm, to install it pinned instead of ${runner.runner} fetching it at every start…`;
  if (runner?.kind === 'pypi') return `Looking up ${runner.packageSpec} on the package index, to install it pinned instead of ${runner.runner} fetching it at every start…`;
  return 'Reading the source…';
}

/** `io.github.owner/server[@version]` and an optional choice number, as `install.prepare` takes them. */
function registrySource(text: string, option: string | undefined): InstallSource {
  const at = text.lastIndexOf('@');
  const name = at > 0 ? text.slice(0, at) : text;
  const version = at > 0 ? text.slice(at + 1) : undefined;
  if (!/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(name)) throw new CliExit(EXIT.usage, `“${text}” is not a registry name; they look like io.github.owner/server (\`airlock search TEXT\` finds them).`);
  const choice = option === undefined ? undefined : Number(option);
  if (choice !== undefined && (!Number.isInteger(choice) || choice < 0)) throw new CliExit(EXIT.usage, `--option takes a choice number (0, 1, …), not “${option}”.`);
  return { kind: 'registry', name, ...(version ? { version } : {}), ...(choice !== undefined ? { option: choice } : {}) };
}

export function registerServerCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const out = (value: unknown, text: () => string) => io.out(context.json() ? JSON.stringify(value, null, 2) : text());

  withGrantOptions(
    program
      .command('add')
      .description(
        'add a server: `add NAME -- CMD ARGS…`, `add NAME --npm PKG[@VER] [-- ARGS…]`, `add NAME --pypi PKG[==VER] [-- ARGS…]`, `add NAME --registry REGISTRY_NAME[@VERSION]`, `add NAME --mcpb FILE`, `add NAME --url https://… [--header "Name: value"]`, or `add NAME --provided` (one your organisation provides); checks it all, shows what will run (or where) and asks first',
      )
      .argument('<name>', "the server's name (lowercase letters, digits, dashes)")
      .argument('[argv...]', 'the command and its arguments (after --), or arguments for the npm package')
      .option('--npm <package>', 'install an npm package, pinned to an exact version')
      .option('--pypi <package>', 'install a Python package from the package index into a virtual environment of its own, pinned with a hash for every file')
      .option('--registry <name>', 'install a server listed in the MCP Registry (`airlock search` finds them), e.g. io.github.owner/server or io.github.owner/server@1.2.0')
      .option('--option <n>', 'with --registry: which of the listing’s install choices (as `airlock search --details` numbers them; default the first local one Airlock supports)')
      .option('--mcpb <file>', 'install an MCPB bundle')
      .option('--url <url>', 'a server that runs elsewhere (https, or http on this computer): streamable HTTP, or the older HTTP+SSE')
      .option('--provided [server]', "a server your organisation's policy provides (`airlock settings` lists them), by its name there (default NAME)")
      .option('--header <NAME: VALUE>', 'a header sent to a --url server (repeatable); the value is sealed as a secret, or write ${secret.NAME} with --secret NAME', collect)
      .option('--transport <kind>', 'for --url: auto (default), streamable-http or sse')
      .option('--client-id <id>', "for --url: sign in as the OAuth client you registered at the server's sign-in service (for one that does not let apps register themselves)")
      .option('--client-secret-env <VAR>', 'with --client-id: read that client’s secret from the environment variable VAR (never from the command line)')
      .option('--trust', "trust the server's annotations (read-only tools of a trusted server run without asking)")
      .option('--secret <NAME>', 'grant a secret, read from the environment variable NAME (repeatable)', collect)
      .option('--config <KEY=VALUE>', 'a setting the server needs (MCPB user_config; repeatable)', collect)
      .option('--no-probe', NO_PROBE_HELP)
      .option('--allow-screen <address-or-permission>', ALLOW_SCREEN_HELP, collect)
      .option('--allow-code-arguments', ALLOW_CODE_HELP)
      .option('--disabled', 'add it without enabling it'),
  ).action(async (name: string, argv: string[], options) => {
    // Everything that can be checked is checked before anything is downloaded.
    const api = await context.api();
    const badName = nameProblem(name, (await api.invoke('servers.list', {})).map((server) => server.name));
    if (badName) throw new CliExit(EXIT.usage, badName);
    checkGrants(options);
    envOption(options.env);
    secretsFromEnv(io, options.secret);
    let source: InstallSource;
    if ([options.npm, options.pypi, options.registry, options.mcpb, options.url, options.provided].filter(Boolean).length > 1) throw new CliExit(EXIT.usage, 'Give one source: --npm, --pypi, --registry, --mcpb, --url or --provided.');
    if (options.provided) {
      // The source is the policy's own (its pin), never retyped; the install below shows it and asks like any other.
      if (argv.length) throw new CliExit(EXIT.usage, 'A provided server runs as your organisation set it up: give no command or arguments after it.');
      source = await providedSource(api, typeof options.provided === 'string' ? options.provided : name);
    } else if (options.npm) source = { kind: 'npm', package: options.npm, ...(argv.length ? { args: argv } : {}) };
    else if (options.pypi) source = { kind: 'pypi', package: options.pypi, ...(argv.length ? { args: argv } : {}) };
    else if (options.registry) {
      if (argv.length) throw new CliExit(EXIT.usage, 'A registry listing says its own arguments; add it without `-- ARGS…`.');
      source = registrySource(String(options.registry), options.option);
    } else if (options.mcpb) source = { kind: 'mcpb', path: resolve(options.mcpb) };
    else if (options.url) {
      if (argv.length) throw new CliExit(EXIT.usage, 'A --url server runs elsewhere: give no command after it.');
      const transport = options.transport ?? 'auto';
      if (transport !== 'auto' && transport !== 'streamable-http' && transport !== 'sse') throw new CliExit(EXIT.usage, '--transport is auto, streamable-http or sse.');
      source = { kind: 'remote', url: options.url, headers: parseHeaders(options.header), transport, ...oauthClientOption(io, options) };
    } else if (argv.length) source = { kind: 'local', argv };
    else throw new CliExit(EXIT.usage, 'Say what to run: `airlock add NAME -- COMMAND ARGS…`, `--npm PACKAGE`, `--pypi PACKAGE`, `--registry NAME`, `--mcpb FILE` or `--url URL`.');
    if ((options.header || options.clientId || options.clientSecretEnv) && source.kind !== 'remote') throw new CliExit(EXIT.usage, '--header, --client-id and --client-secret-env are for a --url server.');
    if (options.allowCodeArguments) {
      if (source.kind === 'remote' || source.kind === 'example' || source.kind === 'update') throw new CliExit(EXIT.usage, '--allow-code-arguments is for a server that runs here: a --url server runs no command line.');
      source = { ...source, allowCodeArguments: true };
    }
    const looking =
      source.kind === 'npm'
        ? `Looking up ${source.package} on npm…`
        : source.kind === 'pypi'
          ? `Looking up ${source.package} on the package index and pinning what it needs…`
          : source.kind === 'registry'
            ? `Looking up ${source.name} in the MCP Registry and pinning its package…`
            : runnerLookup(source);
    const disclosure = await withProgress(io, context.json(), looking, () => api.invoke('install.prepare', { source }));
    await installFromDisclosure(context, disclosure, { ...options, name, enable: !options.disabled });
  });

  withGrantOptions(
    program
      .command('update')
      .description('update an npm or PyPI server to another version: a new disclosure and inspection; the running version stays until you agree')
      .argument('<name>')
      .argument('[range]', 'the version or range to move to', 'latest')
      .option('--no-probe', NO_PROBE_HELP)
      .option('--allow-screen <address-or-permission>', ALLOW_SCREEN_HELP, collect)
      .option('--allow-code-arguments', ALLOW_CODE_HELP),
  ).action(async (name: string, range: string, options) => {
    const api = await context.api();
    const current = await api.invoke('servers.get', { name });
    const where = current.provenance.kind === 'pypi' ? 'the package index' : 'npm';
    const disclosure = await withProgress(io, context.json(), `Looking up ${range} on ${where}…`, () => api.invoke('install.prepare', { source: { kind: 'update', server: name, range, ...(options.allowCodeArguments ? { allowCodeArguments: true } : {}) } }));
    // Trust and enablement carry over; the grants are shown and can be changed like at install.
    await installFromDisclosure(context, disclosure, { ...options, name, trust: current.trusted, enable: current.enabled });
  });

  registerImportCommand(program, context);

  program
    .command('list')
    .description('list servers with their state, trust, sandbox and network')
    .action(async () => {
      const servers = await (await context.api()).invoke('servers.list', {});
      const c = palette(io.colour === true && !context.json());
      // The settings in use are not the person's (their file could not be read): the list is not the truth, and says so.
      const unreadable = context.notices?.().some((notice) => notice.kind === 'settings-unreadable') === true;
      out(servers, () =>
        servers.length
          ? servers.map((server) => formatSummaryLine(server, c)).join('\n')
          : unreadable
            ? 'No servers in use — Airlock could not read its settings file (see the warning above).'
            : 'No servers yet. Add one with `airlock add NAME --npm PACKAGE`.',
      );
      if (unreadable) context.exit(EXIT.failure);
    });

  program
    .command('show')
    .description('show a server: where it came from, its permissions, its tools with their arguments and claimed annotations; `show NAME TOOL` shows one tool in full')
    .argument('<name>')
    .argument('[tool]', 'one of its tools: its whole description, every argument with its type and meaning, and a call to copy')
    .option('--sandbox-plan', 'show instead the exact sandbox plan of its launch: each guarantee, the file rules, network, limits, the argv (and on macOS the whole Seatbelt profile); starts nothing')
    .option('--platform <platform>', 'with --sandbox-plan: the plan for linux, darwin or win32, computed on this computer')
    .action(async (name: string, tool: string | undefined, options: { sandboxPlan?: boolean; platform?: string }) => {
      if (tool !== undefined) {
        if (options.sandboxPlan) throw new CliExit(EXIT.usage, '--sandbox-plan is for a server: `airlock show NAME --sandbox-plan`.');
        const detail = await warmDetail(context, name);
        const found = detail.tools.find((candidate) => candidate.name === tool);
        if (!found) throw new CliExit(EXIT.usage, unknownToolWords(detail, tool));
        out(found, () => formatToolInFull(name, found, palette(io.colour === true)));
        return;
      }
      if (options.platform !== undefined && !options.sandboxPlan) throw new CliExit(EXIT.usage, '--platform goes with --sandbox-plan: `airlock show NAME --sandbox-plan --platform darwin`.');
      if (options.sandboxPlan) {
        const platform = options.platform === undefined ? undefined : planPlatform(options.platform);
        const plan = await (await context.api()).invoke('servers.sandboxPlan', { name, ...(platform ? { platform } : {}) });
        out(plan, () => formatSandboxPlan(plan, palette(io.colour === true)));
        return;
      }
      const detail = await warmDetail(context, name);
      // Its tools' screens (MCP Apps): which tools have one and what each asks for.
      const screens = await (await context.api()).invoke('screens.list', { server: name });
      out({ ...detail, screens }, () => [formatDetail(detail, palette(io.colour === true)), ...(screens.screens.length ? ['', formatScreens(screens.screens)] : [])].join('\n'));
    });

  for (const [verb, description] of [
    ['start', 'enable a server and check that it starts in its sandbox (it then runs whenever Airlock runs)'],
    ['stop', 'disable a server'],
    ['restart', 'restart a server, clearing quarantine'],
  ] as const) {
    program
      .command(verb)
      .description(description)
      .argument('<name>')
      .action(async (name: string) => {
        const api = await context.api();
        await api.invoke('servers.get', { name });
        const summary = await withProgress(io, context.json(), verb === 'stop' ? `Stopping ${name}…` : `Starting ${name} in its sandbox…`, () => api.invoke(`servers.${verb}`, { name }));
        const note = verb !== 'stop' && api.mode === 'owner' ? '\nNo Airlock app or gateway is running, so it stops again when this command ends; it runs whenever Airlock runs.' : '';
        out(summary, () => `${formatSummaryLine(summary, palette(io.colour === true))}${note}`);
      });
  }

  program
    .command('logs')
    .description("print a server's log (its stderr), starting it if needed")
    .argument('<name>')
    .action(async (name: string) => {
      const detail = await warmDetail(context, name);
      out(detail.logs, () => detail.logs.map((line) => `${line.time} ${line.source}: ${inert(line.text)}`).join('\n') || '(nothing logged)');
    });

  withGrantOptions(program.command('grant').description('grant a server more: paths, domains, a data folder, secrets, plain settings (asks first)').argument('<name>'))
    .option('--secret <NAME>', 'set and grant a secret, read from the environment variable NAME', collect)
    .option(
      '--write-trusted <path>',
      "let it change files other programs trust (a repository's .git, .envrc, .vscode …) at PATH, inside a folder it may write — git may then run what it writes (repeatable)",
      collect,
    )
    .action(async (name: string, options: GrantOptions) => {
      const api = await context.api();
      const before = await api.invoke('servers.get', { name });
      checkGrants(options);
      const env = envOption(options.env);
      const { unsandboxed: _u, ...current } = before.profile;
      const profile = applyGrants(current, options);
      const trustedProblems = (options.writeTrusted ?? []).map((path) => writeTrustedProblem(resolve(path), profile.filesystem.write)).filter((problem) => problem !== undefined);
      if (trustedProblems.length) throw new CliExit(EXIT.usage, trustedProblems.join('\n'));
      if (options.writeTrusted?.length && !context.json()) io.err(`${palette(io.colour === true).warn('Warning:')} ${WRITE_TRUSTED_WARNING}`);
      const secrets = secretsFromEnv(io, options.secret);
      const settings = Object.entries(env).map(([key, value]) => `the setting ${key}=${value}`);
      await confirmOrExit(io, `Grant ${name} ${[describeChange(current, profile), ...settings].filter((part) => part !== 'nothing new' || settings.length === 0).join(', ')}${Object.keys(secrets).length ? ` and the secret(s) ${Object.keys(secrets).join(', ')}` : ''}?`, context.yes());
      let detail = await api.invoke('servers.updateProfile', { name, profile });
      if (settings.length) detail = await api.invoke('servers.setEnv', { name, env: { ...before.spec.env, ...env } });
      for (const [key, value] of Object.entries(secrets)) detail = await api.invoke('servers.setSecret', { name, key, value });
      out(detail.profile, () => formatDetail(detail, palette(io.colour === true)));
    });

  withGrantOptions(program.command('revoke').description('take grants back from a server (does not ask: it only takes away)').argument('<name>'), 'revoke')
    .option('--secret <NAME>', 'clear a secret and take its grant back', collect)
    .option('--write-trusted <path>', 'protect the files other programs trust at PATH again (repeatable)', collect)
    .option('--rules', "remove every rule and session grant for this server's tools")
    .action(async (name: string, options: GrantOptions & { rules?: boolean }) => {
      const api = await context.api();
      const before = await api.invoke('servers.get', { name });
      const { unsandboxed: _u, ...current } = before.profile;
      let detail = await api.invoke('servers.updateProfile', { name, profile: applyGrants(current, options, true) });
      if (options.env?.length) {
        const env = { ...before.spec.env };
        for (const key of options.env) delete env[key.split('=')[0]!];
        detail = await api.invoke('servers.setEnv', { name, env });
      }
      for (const key of options.secret ?? []) detail = await api.invoke('servers.clearSecret', { name, key });
      if (options.rules) detail = await api.invoke('servers.revokeRules', { name });
      out(detail.profile, () => formatDetail(detail, palette(io.colour === true)));
    });

  program
    .command('trust')
    .description("trust a server's annotations (on) or not (off); untrusted annotations never reduce prompts (does not ask)")
    .argument('<name>')
    .argument('<on|off>')
    .action(async (name: string, value: string) => {
      if (value !== 'on' && value !== 'off') throw new CliExit(EXIT.usage, 'Say `on` or `off`.');
      const summary = await (await context.api()).invoke('servers.setTrust', { name, trusted: value === 'on' });
      out(summary, () => formatSummaryLine(summary));
    });

  program
    .command('approve')
    .description('approve a changed or new (added after install) tool, or with --code a local server\'s changed code, after reviewing it with `airlock show`')
    .argument('<name>')
    .argument('[tool]')
    .option('--code', "approve the server's changed code (the hashes `airlock show` prints) and pin it; its \"always allow\" rules made before are removed")
    .action(async (name: string, tool: string | undefined, options: { code?: boolean }) => {
      if (options.code) {
        if (tool !== undefined) throw new CliExit(EXIT.usage, 'Approve either a tool or the code (--code), not both.');
        const change = (await warmDetail(context, name)).codeChange;
        if (!change) throw new CliExit(EXIT.failure, `${name}'s code has not changed since you approved it.`);
        const files = change.files.filter((file) => file.current !== null).map((file) => ({ path: file.path, sha256: file.current! }));
        await confirmOrExit(io, `Pin ${name}'s new code (${files.map((file) => `${file.path} sha256 ${file.sha256.slice(0, 12)}…`).join(', ')}) and remove its "always allow" rules?`, context.yes());
        const detail = await (await context.api()).invoke('servers.approveCode', { name, files });
        out(detail.provenance, () => `Approved ${name}'s new code. Its calls follow the usual rules again; "always allow" rules made for the old code were removed.`);
        return;
      }
      if (tool === undefined) throw new CliExit(EXIT.usage, 'Name the tool to approve, or use --code.');
      const shown = await warmDetail(context, name);
      const current = shown.tools.find((candidate) => candidate.name === tool);
      if (!current) throw new CliExit(EXIT.failure, unknownToolWords(shown, tool));
      await confirmOrExit(io, `Approve the current definition of ${name} › ${tool}?`, context.yes());
      const detail = await (await context.api()).invoke('servers.approveChange', { name, tool, fingerprint: current.fingerprint });
      out(detail.tools.find((t) => t.name === tool), () => `Approved ${name} › ${tool}.`);
    });

  program
    .command('review-claims')
    .description("after a tool did something its claims say it does not (`airlock show` lists what): keep trusting its claims (for its current definition), or distrust them (it is treated as claiming nothing)")
    .argument('<name>')
    .argument('<tool>')
    .argument('<keep|distrust>')
    .action(async (name: string, tool: string, decision: string) => {
      if (decision !== 'keep' && decision !== 'distrust') throw new CliExit(EXIT.usage, 'Say `keep` (trust its claims again) or `distrust` (treat it as claiming nothing).');
      const current = (await (await context.api()).invoke('servers.get', { name })).tools.find((candidate) => candidate.name === tool);
      const check = current?.claimsCheck;
      if (!check) throw new CliExit(EXIT.failure, `${name} › ${tool} has not done anything its claims say it does not; there is nothing to review.`);
      if (!context.json()) {
        io.out(`What ${tool} did against its claims (newest first):`);
        for (const item of check.evidence.slice(0, 10)) io.out(`  ${inert(item.at)} ${inert(item.words, 400)}`);
      }
      if (decision === 'keep') await confirmOrExit(io, `Trust what ${name} › ${tool} claims again, for its current definition (its read-only tools may then run without asking)?`, context.yes());
      const detail = await (await context.api()).invoke('servers.reviewClaims', { name, tool, decision, last: check.last });
      const after = detail.tools.find((candidate) => candidate.name === tool);
      out(after, () =>
        decision === 'keep'
          ? `Airlock trusts what ${name} › ${tool} claims again (for this definition); what it does against them is still recorded.`
          : `Airlock treats ${name} › ${tool} as a tool that claims nothing: it asks before each call.`,
      );
    });

  program
    .command('signin')
    .description('sign in to a remote server (OAuth): prints the sign-in page to open, waits for it, then restarts the server')
    .argument('<name>')
    .action(async (name: string) => {
      const status = await withProgress(io, context.json(), `Waiting for you to sign in to ${name} (open the page printed above)…`, async () => (await context.api()).invoke('servers.signIn', { name }));
      out(status, () => (status?.signedIn ? `Signed in to ${name}${status.account ? ` as ${inert(status.account)}` : ''}${status.scopes ? ` · scopes ${inert(status.scopes)}` : ''}.` : `${name} does not sign in with OAuth.`));
    });

  program
    .command('signout')
    .description("sign out of a remote server: asks its authorization server to revoke the tokens, and deletes them here whatever it says")
    .argument('<name>')
    .action(async (name: string) => {
      const outcome = await (await context.api()).invoke('servers.signOut', { name });
      out(outcome, () => `Signed out of ${name}. ${inert(signOutWords(outcome))}`);
    });

  program
    .command('remove')
    .description('remove a server with its installed files, data, secrets and rules (asks first)')
    .argument('<name>')
    .action(async (name: string) => {
      const api = await context.api();
      await api.invoke('servers.get', { name });
      await confirmOrExit(io, `Remove ${name}, its installed files, its data, its secrets and its rules?`, context.yes());
      const { signIn } = await withProgress(io, context.json(), `Removing ${name} (a sign-in it holds is revoked at its server first, waiting at most 10 s)…`, () => api.invoke('servers.remove', { name, confirm: true }));
      out({ ok: true, removed: name, ...(signIn ? { signIn } : {}) }, () => `Removed ${name}.${signIn ? ` ${inert(signOutWords(signIn))}` : ''}`);
    });
}

/**
 * A server's detail with its live tools: when this process runs the servers
 * and the server is enabled, it is started first (the owner already runs it).
 */
export async function warmDetail(context: CliContext, name: string) {
  const api = await context.api();
  const host = api.localHost;
  if (host && host.servers.record(name).enabled) await host.supervisor.start(name).catch(() => {}); // A server that cannot start is shown as such by the page read next.
  return api.invoke('servers.get', { name });
}

function describeChange(before: Omit<SandboxProfile, 'unsandboxed'>, after: Omit<SandboxProfile, 'unsandboxed'>): string {
  const added = (a: string[], b: string[]) => b.filter((item) => !a.includes(item));
  const parts = [
    ...added(before.filesystem.read, after.filesystem.read).map((p) => `read ${p}`),
    ...added(before.filesystem.write, after.filesystem.write).map((p) => `write ${p}`),
    ...added(before.network.allowedDomains, after.network.allowedDomains).map((d) => `network ${d}`),
    ...(after.filesystem.persistentData && !before.filesystem.persistentData ? ['a data folder of its own'] : []),
    ...added(before.filesystem.writeTrusted ?? [], after.filesystem.writeTrusted ?? []).map(
      (p) => `changes to the trusted files at ${p} (git, direnv or your editor may then run what it writes there, outside the sandbox)`,
    ),
  ];
  return parts.join(', ') || 'nothing new';
}

/** The install source of a server the organisation's policy provides, by its name there. */
async function providedSource(api: SharedHost, name: string): Promise<InstallSource> {
  const provided = (await api.invoke('organisation.get', {})).providedServers;
  const found = provided.find((server) => server.name === name);
  if (!found) {
    throw new CliExit(
      EXIT.usage,
      provided.length ? `Your organisation's policy provides no server named “${name}”; it provides: ${provided.map((server) => server.name).join(', ')}.` : "Your organisation's policy provides no servers (`airlock settings` shows the policy).",
    );
  }
  return found.installSource;
}

/** "files does not offer a tool named …. Did you mean …?" — or why it offers none now. */
export function unknownToolWords(detail: ServerDetail, tool: string): string {
  const shown = JSON.stringify(tool.length > 80 ? `${tool.slice(0, 80)}…` : tool);
  if (detail.tools.length === 0) return `${detail.name} offers no tools right now${detail.stateNote ? `: ${detail.stateNote}` : ` (it is ${detail.state})`}.`;
  const close = similarNames(tool, detail.tools.map((candidate) => candidate.name));
  return `${detail.name} does not offer a tool named ${inert(shown)}.${close.length ? ` Did you mean ${close.map((name) => inert(name)).join(' or ')}?` : ''} Its tools: ${detail.tools.map((candidate) => inert(candidate.name)).join(', ')}.`;
}

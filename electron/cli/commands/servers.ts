import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { SandboxProfile } from '../../../shared/domain';
import type { InstallSource } from '../../../shared/ipc';
import type { Disclosure } from '../../../shared/views';
import type { SharedHost } from '../../core/ipc/shared-host';
import { formatDetail, formatDisclosure, formatProbe, formatSummaryLine, inert } from '../format';
import { CliExit, EXIT, type CliIo } from '../output';

/** What every command gets: the host (opened on first use), the terminal, and the output mode. */
export interface CliContext {
  /** The core: this process's own, or the data folder's owner's (see core/ipc/shared-host.ts). */
  api(): Promise<SharedHost>;
  io: CliIo;
  json(): boolean;
  /** Sets the process exit code. */
  exit(code: number): void;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

interface GrantOptions {
  read?: string[];
  write?: string[];
  domain?: string[];
  persistentData?: boolean;
  secret?: string[];
}

function withGrantOptions(command: Command): Command {
  return command
    .option('--read <path>', 'let it read a folder or file (repeatable)', collect)
    .option('--write <path>', 'let it write a folder (repeatable)', collect)
    .option('--domain <domain>', 'let it reach a domain, e.g. api.example.com or *.example.com (repeatable)', collect)
    .option('--persistent-data', 'give it a data folder of its own that outlives it');
}

/** Asks a yes/no question, or accepts --yes; without a terminal and without --yes, refuses. */
export async function confirmOrExit(io: CliIo, question: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!io.confirm) throw new CliExit(EXIT.needsConfirmation, `${question} — this needs your confirmation; run it in a terminal, or pass --yes.`);
  if (!(await io.confirm(question))) throw new CliExit(EXIT.cancelled, 'Nothing was changed.');
}

function applyGrants(profile: Omit<SandboxProfile, 'unsandboxed'>, options: GrantOptions, remove = false): Omit<SandboxProfile, 'unsandboxed'> {
  const edit = (list: string[], values: string[] | undefined, absolute: boolean) => {
    const given = (values ?? []).map((value) => (absolute ? resolve(value) : value.trim().toLowerCase()));
    return remove ? list.filter((item) => !given.includes(item)) : [...new Set([...list, ...given])];
  };
  return {
    ...profile,
    filesystem: {
      read: edit(profile.filesystem.read, options.read, true),
      write: edit(profile.filesystem.write, options.write, true),
      persistentData: options.persistentData ? !remove : profile.filesystem.persistentData,
    },
    network: { allowedDomains: edit(profile.network.allowedDomains, options.domain, false) },
  };
}

function parseConfig(values: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values ?? []) {
    const at = value.indexOf('=');
    if (at < 1) throw new CliExit(EXIT.usage, `--config takes KEY=VALUE, got “${value}”.`);
    out[value.slice(0, at)] = value.slice(at + 1);
  }
  return out;
}

/** Secret values come from the environment variable of the same name, never from the command line (it is visible to other processes). */
function secretsFromEnv(io: CliIo, names: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names ?? []) {
    const value = io.env[name];
    if (value === undefined) throw new CliExit(EXIT.usage, `--secret ${name}: set the environment variable ${name} to the secret's value for this command.`);
    out[name] = value;
  }
  return out;
}

/** Disclosure → consented probe → grants and trust → commit: the install flow on a terminal. */
export async function installFromDisclosure(
  context: CliContext,
  disclosure: Disclosure,
  options: GrantOptions & { name?: string; trust?: boolean; yes?: boolean; probe?: boolean; enable?: boolean; config?: string[]; silentJson?: boolean },
): Promise<void> {
  const { io } = context;
  const api = await context.api();
  const name = options.name ?? disclosure.suggestedName;
  const userConfig = parseConfig(options.config);
  try {
    if (!context.json()) io.out(formatDisclosure(disclosure));
    let report;
    const profile = applyGrants(disclosure.profile, options);
    if (options.probe !== false) {
      await confirmOrExit(io, 'Inspect it in a locked sandbox (no network, no writes, no secrets)?', options.yes);
      // Inspected with the grants it is about to get, read-only (a server that checks its folders at start-up starts).
      report = await api.invoke('install.probe', { draftId: disclosure.draftId, userConfig, profile });
      if (!context.json()) io.out(formatProbe(report));
    }
    const secrets = secretsFromEnv(io, options.secret);
    const enable = options.enable !== false && !disclosure.importedFrom;
    const words = `${enable ? 'Add and enable' : 'Add (disabled)'} ${name} with: read ${profile.filesystem.read.join(', ') || 'nothing extra'} · write ${profile.filesystem.write.join(', ') || (profile.filesystem.persistentData ? 'its own data folder' : 'nowhere that lasts')} · network ${profile.network.allowedDomains.join(', ') || 'none'}${options.trust ? ' · its annotations trusted' : ''}?`;
    await confirmOrExit(io, words, options.yes);
    const summary = await api.invoke('install.commit', { draftId: disclosure.draftId, name, profile, trusted: options.trust === true, secrets, userConfig, enable });
    if (context.json()) {
      if (!options.silentJson) io.out(JSON.stringify({ ok: true, server: summary, probe: report ?? null }, null, 2));
    } else io.out(`Added.\n${formatSummaryLine(summary)}${summary.lastError ? `\n  ${summary.lastError}` : ''}`);
  } catch (error) {
    await api.invoke('install.cancel', { draftId: disclosure.draftId }).catch(() => {});
    throw error;
  }
}

export function registerServerCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const out = (value: unknown, text: () => string) => io.out(context.json() ? JSON.stringify(value, null, 2) : text());

  withGrantOptions(
    program
      .command('add')
      .description('add a server: `add NAME -- CMD ARGS…`, `add NAME --npm PKG[@VER] [-- ARGS…]`, or `add NAME --mcpb FILE`; shows what will run and asks first')
      .argument('<name>', "the server's name (lowercase letters, digits, dashes)")
      .argument('[argv...]', 'the command and its arguments (after --), or arguments for the npm package')
      .option('--npm <package>', 'install an npm package, pinned to an exact version')
      .option('--mcpb <file>', 'install an MCPB bundle')
      .option('--trust', "trust the server's annotations (read-only tools of a trusted server run without asking)")
      .option('--secret <NAME>', 'grant a secret, read from the environment variable NAME (repeatable)', collect)
      .option('--config <KEY=VALUE>', 'a setting the server needs (MCPB user_config; repeatable)', collect)
      .option('--no-probe', 'skip the inspection in a locked sandbox')
      .option('--disabled', 'add it without enabling it')
      .option('-y, --yes', 'answer yes to the questions (for scripts)'),
  ).action(async (name: string, argv: string[], options) => {
    let source: InstallSource;
    if (options.npm) source = { kind: 'npm', package: options.npm, ...(argv.length ? { args: argv } : {}) };
    else if (options.mcpb) source = { kind: 'mcpb', path: resolve(options.mcpb) };
    else if (argv.length) source = { kind: 'local', argv };
    else throw new CliExit(EXIT.usage, 'Say what to run: `airlock add NAME -- COMMAND ARGS…`, `--npm PACKAGE` or `--mcpb FILE`.');
    const disclosure = await (await context.api()).invoke('install.prepare', { source });
    await installFromDisclosure(context, disclosure, { ...options, name, enable: !options.disabled });
  });

  withGrantOptions(
    program
      .command('update')
      .description('update an npm server to another version: a new disclosure and inspection; the running version stays until you agree')
      .argument('<name>')
      .argument('[range]', 'the version or range to move to', 'latest')
      .option('--no-probe', 'skip the inspection in a locked sandbox')
      .option('-y, --yes', 'answer yes to the questions (for scripts)'),
  ).action(async (name: string, range: string, options) => {
    const api = await context.api();
    const current = await api.invoke('servers.get', { name });
    const disclosure = await api.invoke('install.prepare', { source: { kind: 'update', server: name, range } });
    // Trust and enablement carry over; the grants are shown and can be changed like at install.
    await installFromDisclosure(context, disclosure, { ...options, name, trust: current.trusted, enable: current.enabled });
  });

  program
    .command('import')
    .description("import servers from another app's config: claude, vscode, cursor, or a file path; they arrive disabled")
    .argument('[source]', 'claude | vscode | cursor | PATH (default: all three apps)')
    .option('--only <names>', 'import only these entries (comma-separated)')
    .option('--no-probe', 'skip the inspection in a locked sandbox')
    .option('-y, --yes', 'answer yes to the questions (for scripts)')
    .action(async (source: string | undefined, options) => {
      const api = await context.api();
      const request: { app?: 'claude' | 'vscode' | 'cursor'; path?: string } =
        source === 'claude' || source === 'vscode' || source === 'cursor' ? { app: source } : source ? { path: resolve(source) } : {};
      const files = await api.invoke('install.scanImports', request);
      const wanted = options.only ? new Set(String(options.only).split(',').map((name: string) => name.trim())) : undefined;
      const imported: string[] = [];
      if (files.length === 0) {
        out({ ok: true, files: [] }, () => 'No configs found. Give a path: `airlock import PATH`.');
        return;
      }
      for (const file of files) {
        if (!context.json()) io.out(`${file.path} (${file.app}):`);
        for (const entry of file.entries) {
          if (entry.status !== 'importable' || !entry.disclosure) {
            if (!context.json()) io.out(`  ${inert(entry.name)}: ${entry.status} — ${inert(entry.reason ?? '')}`);
            continue;
          }
          if (wanted && !wanted.has(entry.name)) {
            await api.invoke('install.cancel', { draftId: entry.disclosure.draftId });
            continue;
          }
          if (!context.json()) io.out(`\n── ${inert(entry.name)} ──`);
          await installFromDisclosure(context, entry.disclosure, { ...options, enable: false, silentJson: true });
          imported.push(entry.disclosure.suggestedName);
        }
      }
      if (context.json()) io.out(JSON.stringify({ ok: true, imported, files }, null, 2));
      else io.out(`\nImported ${imported.length} server(s), disabled. Review each with \`airlock show NAME\`, then \`airlock start NAME\`.`);
    });

  program
    .command('list')
    .description('list servers with their state, trust, sandbox and network')
    .action(async () => {
      const servers = await (await context.api()).invoke('servers.list', {});
      out(servers, () => (servers.length ? servers.map(formatSummaryLine).join('\n') : 'No servers yet. Add one with `airlock add NAME --npm PACKAGE`.'));
    });

  program
    .command('show')
    .description('show a server: where it came from, its permissions, its tools with their claimed annotations')
    .argument('<name>')
    .action(async (name: string) => {
      const detail = await warmDetail(context, name);
      out(detail, () => formatDetail(detail));
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
        const summary = await api.invoke(`servers.${verb}`, { name });
        const note = verb !== 'stop' && api.mode === 'owner' ? '\nNo Airlock app or gateway is running, so it stops again when this command ends; it runs whenever Airlock runs.' : '';
        out(summary, () => `${formatSummaryLine(summary)}${note}`);
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

  withGrantOptions(program.command('grant').description('grant a server more: paths, domains, a data folder, secrets').argument('<name>'))
    .option('--secret <NAME>', 'set and grant a secret, read from the environment variable NAME', collect)
    .option('-y, --yes', 'answer yes to the question')
    .action(async (name: string, options: GrantOptions & { yes?: boolean }) => {
      const api = await context.api();
      const { unsandboxed: _u, ...current } = (await api.invoke('servers.get', { name })).profile;
      const profile = applyGrants(current, options);
      const secrets = secretsFromEnv(io, options.secret);
      await confirmOrExit(io, `Grant ${name} ${describeChange(current, profile)}${Object.keys(secrets).length ? ` and the secret(s) ${Object.keys(secrets).join(', ')}` : ''}?`, options.yes);
      let detail = await api.invoke('servers.updateProfile', { name, profile });
      for (const [key, value] of Object.entries(secrets)) detail = await api.invoke('servers.setSecret', { name, key, value });
      out(detail.profile, () => formatDetail(detail));
    });

  withGrantOptions(program.command('revoke').description('take grants back from a server').argument('<name>'))
    .option('--secret <NAME>', 'clear a secret and take its grant back', collect)
    .option('--rules', "remove every rule and session grant for this server's tools")
    .action(async (name: string, options: GrantOptions & { rules?: boolean }) => {
      const api = await context.api();
      const { unsandboxed: _u, ...current } = (await api.invoke('servers.get', { name })).profile;
      let detail = await api.invoke('servers.updateProfile', { name, profile: applyGrants(current, options, true) });
      for (const key of options.secret ?? []) detail = await api.invoke('servers.clearSecret', { name, key });
      if (options.rules) detail = await api.invoke('servers.revokeRules', { name });
      out(detail.profile, () => formatDetail(detail));
    });

  program
    .command('trust')
    .description("trust a server's annotations (on) or not (off); untrusted annotations never reduce prompts")
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
    .option('-y, --yes', 'answer yes to the question')
    .action(async (name: string, tool: string | undefined, options: { yes?: boolean; code?: boolean }) => {
      if (options.code) {
        if (tool !== undefined) throw new CliExit(EXIT.usage, 'Approve either a tool or the code (--code), not both.');
        const change = (await warmDetail(context, name)).codeChange;
        if (!change) throw new CliExit(EXIT.failure, `${name}'s code has not changed since you approved it.`);
        const files = change.files.filter((file) => file.current !== null).map((file) => ({ path: file.path, sha256: file.current! }));
        await confirmOrExit(io, `Pin ${name}'s new code (${files.map((file) => `${file.path} sha256 ${file.sha256.slice(0, 12)}…`).join(', ')}) and remove its "always allow" rules?`, options.yes);
        const detail = await (await context.api()).invoke('servers.approveCode', { name, files });
        out(detail.provenance, () => `Approved ${name}'s new code. Its calls follow the usual rules again; "always allow" rules made for the old code were removed.`);
        return;
      }
      if (tool === undefined) throw new CliExit(EXIT.usage, 'Name the tool to approve, or use --code.');
      const current = (await warmDetail(context, name)).tools.find((candidate) => candidate.name === tool);
      if (!current) throw new CliExit(EXIT.failure, `${name} does not offer a tool named ${tool} right now.`);
      await confirmOrExit(io, `Approve the current definition of ${name} › ${tool}?`, options.yes);
      const detail = await (await context.api()).invoke('servers.approveChange', { name, tool, fingerprint: current.fingerprint });
      out(detail.tools.find((t) => t.name === tool), () => `Approved ${name} › ${tool}.`);
    });

  program
    .command('remove')
    .description('remove a server with its installed files, data, secrets and rules')
    .argument('<name>')
    .option('-y, --yes', 'answer yes to the question')
    .action(async (name: string, options: { yes?: boolean }) => {
      const api = await context.api();
      await api.invoke('servers.get', { name });
      await confirmOrExit(io, `Remove ${name}, its installed files, its data, its secrets and its rules?`, options.yes);
      await api.invoke('servers.remove', { name, confirm: true });
      out({ ok: true, removed: name }, () => `Removed ${name}.`);
    });
}

/**
 * A server's detail with its live tools: when this process runs the servers
 * and the server is enabled, it is started first (the owner already runs it).
 */
export async function warmDetail(context: CliContext, name: string) {
  const api = await context.api();
  const host = api.localHost;
  if (host && host.record(name).enabled) await host.supervisor.start(name).catch(() => {});
  return api.invoke('servers.get', { name });
}

function describeChange(before: Omit<SandboxProfile, 'unsandboxed'>, after: Omit<SandboxProfile, 'unsandboxed'>): string {
  const added = (a: string[], b: string[]) => b.filter((item) => !a.includes(item));
  const parts = [
    ...added(before.filesystem.read, after.filesystem.read).map((p) => `read ${p}`),
    ...added(before.filesystem.write, after.filesystem.write).map((p) => `write ${p}`),
    ...added(before.network.allowedDomains, after.network.allowedDomains).map((d) => `network ${d}`),
    ...(after.filesystem.persistentData && !before.filesystem.persistentData ? ['a data folder of its own'] : []),
  ];
  return parts.join(', ') || 'nothing new';
}


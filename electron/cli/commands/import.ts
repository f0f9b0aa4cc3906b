/**
 * `airlock import` (and the moving part of `airlock connect --move`): what
 * another app's config holds, first as an overview — each entry named, the
 * ones Airlock already has and its own entry said so, never copied — then,
 * entry by entry, the questions a person must answer (a name when the one it
 * had is taken, the secrets VS Code asked for, the folder `${workspaceFolder}`
 * means, the import itself), and then the inspections, several at a time,
 * each reported as it ends. Imported servers arrive turned off.
 */
import { isAbsolute, resolve } from 'node:path';
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import type { ImportEntryView, ServerSummary } from '../../../shared/views';
import { DID_NOT_START, nameProblem, suggestServerName } from '../../core/install';
import { messageOf } from '../../core/errors';
import { inert } from '../format';
import { CliExit, EXIT, withProgress } from '../output';
import { palette, type Palette } from '../terminal';
import { confirmOrExit, type CliContext } from './context';
import { applyGrants, collect, grantWords } from './grant-options';
import { ALLOW_CODE_HELP, codeArgumentsRefusal, headerSecrets, NO_PROBE_HELP } from './install-steps';

/** How many inspections run at once: each installs a package and starts a server; the machine is shared. */
export const INSPECTIONS_AT_ONCE = 3;

/** One config file as the scan lists it. */
interface ScanFile {
  app: string;
  path: string;
  workspace?: string;
  entries: ImportEntryView[];
  error?: string;
}

/** Why an entry the person said no to was not imported. */
const DECLINED = 'you said no';

/** What the person asked for on the command line. */
export interface ImportOptions {
  /** Only these entries (by their name in the file). */
  only?: ReadonlySet<string>;
  /** Inspect each in the locked sandbox before it is saved (default yes). */
  probe: boolean;
  /** Accept the grants Airlock proposes (paths its command line names, its API's domain); shown in the question. */
  proposed: boolean;
  allowCodeArguments?: boolean;
  /** The folder `${workspaceFolder}` stands for. */
  workspace?: string;
  /** Settings for the entries that ask for them (VS Code inputs inside a command line), by key. */
  config?: Readonly<Record<string, string>>;
  /** Secrets to give the entries that ask for them, read from the environment variable of the same name. */
  secretNames?: readonly string[];
}

/** One entry's fate. */
export interface ImportedEntry {
  /** The entry's name in the app's config. */
  entry: string;
  path: string;
  /** Its server in Airlock (imported now, or already there). */
  server?: string;
  outcome: 'imported' | 'in-airlock' | 'not-imported' | 'skipped';
  /** Why it was not imported, or what is still to do. */
  why?: string;
  /** Airlock tried to import it (it could be read) and could not: the command ends with exit 1. */
  failed?: boolean;
  /** Why, in a few words, for the summary line (`not supported yet`, `you said no`). */
  short?: string;
}

/** Where to read: an app's usual places, or one file. */
export type ImportWhere = { app?: 'claude' | 'vscode' | 'cursor'; path?: string };

/**
 * Imports the servers of the configs asked for (see the file's header) and
 * returns what became of each entry. Questions need a terminal or --yes
 * (exit 4 otherwise, before anything is inspected).
 */
export async function importServers(context: CliContext, where: ImportWhere, options: ImportOptions): Promise<{ entries: ImportedEntry[]; files: ScanFile[] }> {
  const { io } = context;
  const api = await context.api();
  const quiet = context.json();
  const c = palette(io.colour === true && !quiet);
  const scan = (request: ImportWhere & { workspace?: string; entries: string[] }) =>
    api.invoke('install.scanImports', { ...request, ...(options.allowCodeArguments ? { allowCodeArguments: true } : {}) });
  let files: ScanFile[] = await withProgress(io, quiet, 'Reading the configs…', () => scan({ ...where, ...(options.workspace ? { workspace: options.workspace } : {}), entries: [] }));
  files = await askForWorkspaces(context, files, (file, workspace) => scan({ ...fileWhere(file), workspace, entries: [] }));
  if (!quiet) for (const file of files) io.out(overview(file, options, c));

  // Look up the packages of every entry to import, several at a time (the core bounds it).
  const wanted = (file: ScanFile) => file.entries.filter((entry) => entry.status === 'importable' && (!options.only || options.only.has(entry.name))).map((entry) => entry.name);
  const lookups = new Set(files.flatMap((file) => wanted(file).map((name) => `${file.path}\0${name}`)));
  const count = lookups.size;
  if (count > 0) {
    files = await withProgress(io, quiet, `Looking up ${count === 1 ? 'its package' : `the packages of ${count} servers`}…`, () =>
      Promise.all(files.map((file) => (wanted(file).length ? scan({ ...fileWhere(file), ...(file.workspace ? { workspace: file.workspace } : {}), entries: wanted(file) }) : Promise.resolve([file]))).map((scanned) => scanned.then((list) => list[0]!))),
    );
  }

  const outcomes: ImportedEntry[] = [];
  const plans: Plan[] = [];
  try {
    for (const file of files) {
      for (const entry of file.entries) {
        const told = (outcome: ImportedEntry['outcome'], why?: string, server?: string, failed = false, short = shortWhy(entry, why)) =>
          outcomes.push({ entry: entry.name, path: file.path, outcome, ...(why ? { why } : {}), short, ...(server ? { server } : {}), ...(failed ? { failed } : {}) });
        if (options.only && !options.only.has(entry.name)) told('skipped', 'not chosen (--only)', undefined, false, 'not chosen');
        else if (entry.status === 'in-airlock') told('in-airlock', entry.inAirlock?.why, entry.inAirlock?.server);
        else if (entry.status === 'airlock') told('skipped', entry.reason);
        else if (entry.status !== 'importable' || !entry.disclosure) {
          // Read as importable, but its package could not be looked up: a failure, told now (the overview listed it as to import).
          const lookedUp = entry.status === 'invalid' && lookups.has(`${file.path}\0${entry.name}`);
          told('not-imported', entry.reason ?? 'it could not be read', undefined, lookedUp, lookedUp ? 'its package could not be looked up' : undefined);
          if (lookedUp && !quiet) io.out(`${c.danger('✗')} ${inert(entry.name).padEnd(16)} not imported: ${inert(entry.reason ?? '')}`);
        } else {
          const plan = await planEntry(context, file, entry, options, plans);
          if (typeof plan === 'string') {
            told('not-imported', plan, undefined, plan !== DECLINED);
            if (!quiet) io.out(`${c.warn('–')} ${inert(entry.name).padEnd(16)} not imported: ${inert(plan)}`);
          } else plans.push(plan);
        }
      }
    }
  } catch (error) {
    // A question that could not be asked (or was stopped) ends the import: nothing was inspected or saved.
    await Promise.all(plans.map((plan) => api.invoke('install.cancel', { draftId: plan.disclosure.draftId }).catch(() => {}))); // Dropped drafts are swept when Airlock stops anyway.
    await cancelUnplanned(context, files, plans);
    throw error;
  }
  await cancelUnplanned(context, files, plans);

  // The inspections, several at a time; each result printed in the file's order as soon as it is known.
  if (plans.length && !quiet && io.progress) io.err(`Inspecting ${plans.length} server(s) in a locked sandbox, ${Math.min(plans.length, INSPECTIONS_AT_ONCE)} at a time:`);
  const printed = inOrder<{ outcome: ImportedEntry; line: string }>(({ outcome, line }) => {
    outcomes.push(outcome);
    if (!quiet) io.out(line);
  });
  await Promise.all(
    limited(
      plans.map((plan, index) => async () => printed(index, await runPlan(context, plan, c))),
      INSPECTIONS_AT_ONCE,
    ),
  );
  return { entries: outcomes, files };
}

/** Everything decided about one entry before its inspection. */
interface Plan {
  file: ScanFile;
  entry: string;
  disclosure: NonNullable<ImportEntryView['disclosure']>;
  name: string;
  profile: NonNullable<ImportEntryView['disclosure']>['profile'];
  secrets: Record<string, string>;
  userConfig: Record<string, string>;
  /** Secrets it asks for that were not given (set them later). */
  unset: string[];
  probe: boolean;
}

/** The questions for one entry, in order: its name, its secrets and settings, then whether to import it. A string: why it is not imported. */
async function planEntry(context: CliContext, file: ScanFile, entry: ImportEntryView, options: ImportOptions, planned: readonly Plan[]): Promise<Plan | string> {
  const { io } = context;
  const disclosure = entry.disclosure!;
  const api = await context.api();
  // SECURITY (invariant 7): code from outside the pinned program is refused, as NODE_OPTIONS is, unless allowed.
  if (disclosure.codeArguments?.length && !disclosure.codeArgumentsAllowed) return codeArgumentsRefusal(disclosure.codeArguments).replace(/\n/g, ' ');
  const terminal = io.confirm !== undefined && !context.json() && !context.yes();
  const name = await chooseName(context, entry.name, disclosure.suggestedName, [...planned.map((plan) => plan.name)], terminal);
  if (name === undefined) return 'you did not give it a name';

  const secrets: Record<string, string> = {};
  const unset: string[] = [];
  for (const secret of disclosure.secrets.filter((asked) => !asked.held)) {
    const fromEnv = options.secretNames?.includes(secret.name) ? io.env[secret.name] : undefined;
    if (fromEnv) secrets[secret.name] = fromEnv;
    else if (terminal && io.promptSecret) {
      const typed = await io.promptSecret(`${entry.name} asks for the secret ${secret.name}${secret.description ? ` (${inert(secret.description)})` : ''}. Type it (it is not shown), or press Enter to set it later:`);
      if (typed.trim()) secrets[secret.name] = typed.trim();
      else if (secret.required) unset.push(secret.name);
    } else if (secret.required) unset.push(secret.name);
  }

  const userConfig: Record<string, string> = {};
  for (const field of disclosure.userConfig) {
    const given = options.config?.[field.key];
    if (given !== undefined) userConfig[field.key] = given;
    else if (terminal && io.prompt) {
      const shown = field.default !== undefined ? ` [${inert(String(field.default))}; Enter keeps it]` : '';
      const typed = (await io.prompt(`${entry.name} needs the setting “${inert(field.title)}” (${field.key})${shown}:`)).trim();
      if (typed) userConfig[field.key] = typed;
      else if (field.default === undefined && field.required) return `it needs the setting ${field.key} (${field.title}), which was left empty`;
    } else if (field.default === undefined && field.required) {
      return `it needs the setting ${field.key} (${field.title}): run the import in a terminal to be asked, or give it with --config ${field.key}=VALUE`;
    }
  }

  const proposals = options.proposed ? disclosure.proposals : [];
  const profile = applyGrants(disclosure.profile, {
    read: proposals.filter((p) => p.kind === 'read').map((p) => p.value),
    write: proposals.filter((p) => p.kind === 'write').map((p) => p.value),
    domain: proposals.filter((p) => p.kind === 'domain').map((p) => p.value),
  });
  const withSecrets = { ...profile, secrets: [...new Set([...profile.secrets, ...Object.keys(secrets)])] };
  const remoteHost = disclosure.provenance.kind === 'remote' ? disclosure.provenance.host : undefined;
  // A remote server is reached with its headers: without their secret it cannot be inspected, only added.
  const probe = options.probe && !(remoteHost && unset.length > 0);
  const how = !probe ? 'not inspected' : remoteHost ? `after connecting to ${remoteHost} to list what it offers` : 'after inspecting it in a locked sandbox (no network, no writes, no secrets)';
  const where = remoteHost ? `runs on ${remoteHost}, no sandbox` : grantWords(withSecrets);
  try {
    await confirmOrExit(io, `Import ${entry.name}${name !== entry.name ? ` as ${name}` : ''} (turned off) with: ${where}, ${how}?`, context.yes(), context);
  } catch (error) {
    if (error instanceof CliExit && error.exitCode === EXIT.cancelled) {
      await api.invoke('install.cancel', { draftId: disclosure.draftId }).catch(() => {}); // Nothing of it is kept; a draft left behind is swept when Airlock stops.
      return DECLINED;
    }
    throw error;
  }
  return { file, entry: entry.name, disclosure, name, profile: withSecrets, secrets, userConfig, unset, probe };
}

/**
 * Its name in Airlock: the entry's own when it is free. When another server
 * already has it, a terminal asks (Enter takes the free name shown); without
 * one, the free name is taken and the person told.
 */
async function chooseName(context: CliContext, entry: string, suggested: string, planned: readonly string[], terminal: boolean): Promise<string | undefined> {
  const { io } = context;
  const api = await context.api();
  const taken = [...(await api.invoke('servers.list', {})).map((server) => server.name), ...planned];
  let offer = suggested;
  for (let n = 2; taken.includes(offer); n += 1) offer = `${suggested.replace(/-\d+$/, '')}-${n}`;
  const own = suggestServerName(entry);
  if (offer === own) return offer;
  const because = taken.includes(own) ? `a different server is already called ${own} in Airlock` : `another entry of this file is also called ${own}`;
  if (!terminal || !io.prompt) {
    if (!context.json()) io.out(`  ${inert(entry)}: ${because}, so it is imported as ${offer}.`);
    return offer;
  }
  for (;;) {
    const typed = (await io.prompt(`${inert(entry)}: ${because}. Its name in Airlock [${offer}]:`)).trim();
    const name = typed || offer;
    const problem = nameProblem(name, taken);
    if (!problem) return name;
    io.err(problem);
  }
}

/** Inspects (when asked) and saves one planned entry; never throws — its outcome says what happened, its line says it to the person. */
async function runPlan(context: CliContext, plan: Plan, c: Palette): Promise<{ outcome: ImportedEntry; line: string }> {
  const { io } = context;
  const api = await context.api();
  const quiet = context.json();
  const base = { entry: plan.entry, path: plan.file.path };
  const commit = () =>
    api.invoke('install.commit', { draftId: plan.disclosure.draftId, name: plan.name, profile: plan.profile, trusted: false, secrets: plan.secrets, userConfig: plan.userConfig, env: plan.disclosure.env, enable: false });
  const later = plan.unset.length ? ` · set ${plan.unset.join(', ')} before starting it: \`${plan.unset.map((secret) => `${secret}=…`).join(' ')} airlock grant ${plan.name} ${plan.unset.map((secret) => `--secret ${secret}`).join(' ')}\`` : '';
  let tools: number | undefined;
  try {
    if (plan.probe) {
      if (!quiet && io.progress) io.err(`  ${plan.entry}: ${installingWords(plan.disclosure)}…`);
      const remote = plan.disclosure.provenance.kind === 'remote';
      try {
        const report = await api.invoke('install.probe', { draftId: plan.disclosure.draftId, userConfig: plan.userConfig, env: plan.disclosure.env, profile: plan.profile, trusted: false, ...(remote ? headerSecrets(plan.disclosure, plan.secrets) : {}) });
        tools = report.tools.length;
      } catch (error) {
        if (!messageOf(error).startsWith(DID_NOT_START)) throw error;
        // Installed, but it did not start: kept turned off with the reason, as an added server is.
        const summary = await commit();
        const why = `it did not start when inspected: ${firstLine(messageOf(error))} — \`airlock show ${summary.name}\` says more; grant what it needs, then \`airlock start ${summary.name}\``;
        return { outcome: { ...base, server: summary.name, outcome: 'imported', why, short: 'did not start when inspected', failed: true }, line: `${c.danger('✗')} ${summary.name.padEnd(16)} added, turned off, but ${inert(why)}` };
      }
    }
    const summary: ServerSummary = await commit();
    const saved = (await api.invoke('servers.get', { name: summary.name })).profile;
    return {
      outcome: { ...base, server: summary.name, outcome: 'imported', ...(later ? { why: later.replace(/^ · /, '') } : {}) },
      line: `${c.ok('✓')} ${summary.name.padEnd(16)} added, turned off · ${grantWords(saved)}${tools !== undefined ? ` · ${tools} tools` : ' · not inspected'}${later} — \`airlock show ${summary.name}\``,
    };
  } catch (error) {
    // One entry that cannot be imported does not stop the others; it is named with its reason.
    await api.invoke('install.cancel', { draftId: plan.disclosure.draftId }).catch(() => {}); // Its own failure is what the person is told; a draft left behind is swept when Airlock stops.
    return { outcome: { ...base, outcome: 'not-imported', why: messageOf(error), short: 'it failed', failed: true }, line: `${c.danger('✗')} ${inert(plan.entry).padEnd(16)} not imported: ${inert(messageOf(error))}` };
  }
}

/** The overview of one file: every entry, what it runs, and what will become of it. */
function overview(file: ScanFile, options: ImportOptions, c: Palette): string {
  const lines = [`${file.path} (${appWords(file.app)}): ${file.entries.length === 1 ? '1 server' : `${file.entries.length} servers`}${file.workspace ? ` · \${workspaceFolder} is ${file.workspace}` : ''}`];
  for (const entry of file.entries) {
    const name = inert(entry.name).padEnd(16);
    const what =
      options.only && !options.only.has(entry.name)
        ? c.dim('not chosen (--only)')
        : entry.status === 'importable'
          ? inert(entry.runs ?? '', 100)
          : entry.status === 'in-airlock'
            ? `= already in Airlock as ${entry.inAirlock?.server ?? '?'} — ${inert(entry.inAirlock?.why ?? '')}; not imported again`
            : entry.status === 'airlock'
              ? c.dim(`– ${inert(entry.reason ?? "Airlock's own entry")}: left as it is`)
              : `${c.warn('–')} not imported: ${entry.status === 'unsupported' ? 'not supported yet' : 'not valid'} — ${inert(entry.reason ?? '')}`;
    lines.push(`  ${name} ${what}`);
  }
  return lines.join('\n');
}

/**
 * Entries that need the folder `${workspaceFolder}` stands for: a terminal
 * asks for it once per file (Enter leaves them out), and the file is read
 * again with it. Without a terminal they stay out, their reason naming --workspace.
 */
async function askForWorkspaces(context: CliContext, files: ScanFile[], rescan: (file: ScanFile, workspace: string) => Promise<ScanFile[]>): Promise<ScanFile[]> {
  const { io } = context;
  if (!io.prompt || context.json() || context.yes()) return files;
  const out: ScanFile[] = [];
  for (const file of files) {
    const needing = file.entries.filter((entry) => entry.needsWorkspace).map((entry) => entry.name);
    if (needing.length === 0 || file.workspace) {
      out.push(file);
      continue;
    }
    let folder: string | undefined;
    for (;;) {
      const variable = '${workspaceFolder}';
      const typed = (await io.prompt(`${needing.join(', ')} in ${file.path} ${needing.length === 1 ? 'uses' : 'use'} ${variable}: which folder is it? Type its path, or press Enter to leave ${needing.length === 1 ? 'it' : 'them'} out:`)).trim();
      if (!typed) break;
      const path = isAbsolute(typed) ? typed : resolve(typed);
      if (isFolder(path)) {
        folder = path;
        break;
      }
      io.err(`${path} is not a folder here.`);
    }
    out.push(folder ? (await rescan(file, folder))[0]! : file);
  }
  return out;
}

/** Removes the drafts of entries that were looked up but are not imported (declined ones already are). */
async function cancelUnplanned(context: CliContext, files: readonly ScanFile[], plans: readonly Plan[]): Promise<void> {
  const api = await context.api();
  const planned = new Set(plans.map((plan) => plan.disclosure.draftId));
  const drafts = files.flatMap((file) => file.entries.flatMap((entry) => (entry.disclosure && !planned.has(entry.disclosure.draftId) ? [entry.disclosure.draftId] : [])));
  await Promise.all(drafts.map((draftId) => api.invoke('install.cancel', { draftId }).catch(() => {}))); // Cancelling twice is harmless; a draft left behind is swept when Airlock stops.
}

/** The request that reads `file` again. */
function fileWhere(file: ScanFile): ImportWhere {
  return { path: file.path, ...(file.app === 'claude' || file.app === 'vscode' || file.app === 'cursor' ? { app: file.app } : {}) };
}

function appWords(app: string): string {
  return app === 'claude' ? 'Claude Desktop' : app === 'vscode' ? 'VS Code' : app === 'cursor' ? 'Cursor' : 'a config file';
}

function installingWords(disclosure: NonNullable<ImportEntryView['disclosure']>): string {
  const p = disclosure.provenance;
  if (p.kind === 'npm') return `installing ${p.name}@${p.version} (install scripts off) and inspecting it`;
  if (p.kind === 'pypi') return `installing ${p.name}==${p.version} and inspecting it`;
  if (p.kind === 'remote') return `connecting to ${p.host}`;
  return 'inspecting it';
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.replace(new RegExp(`^${DID_NOT_START}: `), '');
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // Absent or unreadable: not a folder Airlock can use.
  }
}

/** Runs `jobs` at most `size` at a time. */
function limited(jobs: ReadonlyArray<() => Promise<void>>, size: number): Array<Promise<void>> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]!();
  };
  return Array.from({ length: Math.min(size, jobs.length) }, worker);
}

/** Collects results that arrive in any order and hands them on in their index order. */
function inOrder<T>(deliver: (item: T) => void): (index: number, item: T) => void {
  const waiting = new Map<number, T>();
  let next = 0;
  return (index, item) => {
    waiting.set(index, item);
    while (waiting.has(next)) {
      deliver(waiting.get(next)!);
      waiting.delete(next);
      next += 1;
    }
  };
}

/** The words of the summary: every entry counted, each not imported with why. */
export function importSummary(entries: readonly ImportedEntry[]): string {
  const imported = entries.filter((entry) => entry.outcome === 'imported');
  const there = entries.filter((entry) => entry.outcome === 'in-airlock');
  const not = entries.filter((entry) => entry.outcome === 'not-imported');
  const parts = [imported.length ? `Imported ${imported.length} server(s), turned off` : 'Imported nothing new'];
  if (there.length) parts.push(`${there.length} already in Airlock (${there.map((entry) => (entry.server && entry.server !== entry.entry ? `${entry.entry} as ${entry.server}` : entry.entry)).join(', ')})`);
  if (not.length) parts.push(`${not.length} not imported (${not.map((entry) => `${entry.entry}: ${entry.short ?? entry.why ?? ''}`).join('; ')})`);
  const left = entries.filter((entry) => entry.outcome === 'skipped');
  if (left.length) parts.push(`${left.length} left as ${left.length === 1 ? 'it is' : 'they are'} (${left.map((entry) => `${entry.entry}: ${entry.short ?? entry.why ?? ''}`).join('; ')})`);
  return `${parts.join('; ')}.${imported.length ? ' Review each with `airlock show NAME`, then `airlock start NAME`.' : ''}`;
}

/** Why an entry was not imported, in a few words (the whole reason is in the overview or on its line). */
function shortWhy(entry: ImportEntryView, why: string | undefined): string {
  if (why === DECLINED) return DECLINED;
  if (entry.status === 'airlock') return "Airlock's own entry";
  if (entry.status === 'unsupported') return entry.needsWorkspace ? 'no workspace folder was given' : 'not supported yet';
  if (entry.status === 'invalid') return 'not valid';
  const first = (why ?? '').split(/[.:—;]/)[0]!.trim();
  return first.length > 60 ? `${first.slice(0, 59)}…` : first;
}

export function registerImportCommand(program: Command, context: CliContext): void {
  const { io } = context;
  program
    .command('import')
    .description("import servers from another app's config: claude, vscode, cursor, or a file path; shows what it found first, skips servers already in Airlock; they arrive turned off")
    .argument('[source]', 'claude | vscode | cursor | PATH (default: all three apps)')
    .option('--only <names>', 'import only these entries (comma-separated)')
    .option('--workspace <folder>', 'the folder ${workspaceFolder} stands for in a VS Code or Cursor config (a .vscode/mcp.json is its own folder’s without it)')
    .option('--secret <NAME>', 'give an entry that asks for the secret NAME its value, read from the environment variable NAME (repeatable)', collect)
    .option('--config <KEY=VALUE>', 'a setting an entry asks for (a VS Code input used in its command line; repeatable)', collect)
    .option('--no-probe', NO_PROBE_HELP)
    .option('--no-proposed', 'do not accept the proposed grants (paths its command line and settings name, its API’s domain)')
    .option('--allow-code-arguments', ALLOW_CODE_HELP)
    .action(async (source: string | undefined, options: { only?: string; workspace?: string; secret?: string[]; config?: string[]; probe: boolean; proposed: boolean; allowCodeArguments?: boolean }) => {
      const where: ImportWhere = source === 'claude' || source === 'vscode' || source === 'cursor' ? { app: source } : source ? { path: resolve(source) } : {};
      if (options.workspace !== undefined && !isFolder(resolve(options.workspace))) throw new CliExit(EXIT.usage, `--workspace ${options.workspace}: there is no such folder.`);
      for (const name of options.secret ?? []) {
        if (io.env[name] === undefined) throw new CliExit(EXIT.usage, `--secret ${name}: set the environment variable ${name} to the secret's value for this command.`);
      }
      const config: Record<string, string> = {};
      for (const value of options.config ?? []) {
        const at = value.indexOf('=');
        if (at < 1) throw new CliExit(EXIT.usage, `--config takes KEY=VALUE, got “${value}”.`);
        config[value.slice(0, at)] = value.slice(at + 1);
      }
      const { entries, files } = await importServers(context, where, {
        ...(options.only ? { only: new Set(options.only.split(',').map((name) => name.trim())) } : {}),
        probe: options.probe,
        proposed: options.proposed,
        ...(options.allowCodeArguments ? { allowCodeArguments: true } : {}),
        ...(options.workspace ? { workspace: resolve(options.workspace) } : {}),
        config,
        ...(options.secret ? { secretNames: options.secret } : {}),
      });
      const failed = entries.filter((entry) => entry.failed);
      if (context.json()) {
        io.out(
          JSON.stringify(
            {
              ok: failed.length === 0,
              imported: entries.filter((entry) => entry.outcome === 'imported').map((entry) => entry.server),
              failed: failed.map((entry) => entry.entry),
              inAirlock: entries.filter((entry) => entry.outcome === 'in-airlock').map((entry) => ({ entry: entry.entry, server: entry.server })),
              notImported: entries.filter((entry) => entry.outcome === 'not-imported').map((entry) => ({ entry: entry.entry, why: entry.why })),
              entries,
              files,
            },
            null,
            2,
          ),
        );
      } else if (files.length === 0) io.out('No configs found. Give a path: `airlock import PATH`.');
      else io.out(`\n${importSummary(entries)}`);
      if (failed.length) context.exit(EXIT.failure);
    });
}

import type { Command } from 'commander';
import type { AuditExportView, OrganisationView, SettingsView } from '../../../shared/views';
import { AirlockError } from '../../core/errors';
import { resolve } from 'node:path';
import { CliExit, EXIT } from '../output';
import { confirmOrExit, type CliContext } from './servers';

/** One paragraph a person can read: what the audit log's durability setting means now. */
export function durabilitySentence(settings: SettingsView): string {
  return settings.strictDurability
    ? 'Strict durability: on — every decision is flushed to disk before its call is sent (each call waits for the disk).'
    : `Strict durability: off — every decision is written before its call is sent (a crash of Airlock loses nothing) and flushed to disk within ${settings.flushWindowMs} ms; a power cut can lose the entries of those last ${settings.flushWindowMs} ms. Decisions a person answered are always flushed before their call.`;
}

/** The organisation's policy in words: where it comes from, what it locks and blocks, and what is wrong with it. */
export function organisationLines(view: OrganisationView): string[] {
  if (view.status === 'none' && view.ignored.length === 0) return ['Organisation policy: none'];
  const lines: string[] = [];
  if (view.status === 'active') lines.push(`Organisation policy: in force (${(view.documents ?? []).map((doc) => doc.location).join(', ')})`);
  if (view.status === 'unreadable') {
    lines.push("Organisation policy: COULD NOT BE READ — nothing it could forbid runs, and every setting it could lock is locked:");
    for (const problem of view.problems ?? []) lines.push(`  ${problem.message}`);
  }
  if (view.status === 'none') lines.push('Organisation policy: none');
  for (const item of view.ignored) lines.push(`  IGNORED ${item.location}: ${item.why}`);
  for (const lock of view.locks) lines.push(`  ${lock.setting}: ${lock.words}`);
  if (view.network?.allowedDomains) lines.push(`  network grants only within: ${view.network.allowedDomains.join(', ')} (network.allowedDomains)`);
  if (view.network?.deniedDomains) lines.push(`  network grants never to: ${view.network.deniedDomains.join(', ')} (network.deniedDomains)`);
  if (view.writesOnlyInHome) lines.push('  write grants only inside your home folder (allowWritesOutsideHome: false)');
  if (view.allowedServers) lines.push(`  only these servers may run: ${view.allowedServers.join(' ') || 'none but the organisation’s own'} (allowedServers)`);
  if (view.deniedServers) lines.push(`  these servers never run: ${view.deniedServers.join(' ')} (deniedServers)`);
  for (const provided of view.providedServers) lines.push(`  provided by your organisation: ${provided.name} — ${provided.source}${provided.installedAs ? ` (installed as ${provided.installedAs})` : ` — install: ${provided.install}`}`);
  for (const blocked of view.blocked) lines.push(`  blocked: ${blocked.server} — ${blocked.message}`);
  return lines;
}

/**
 * Refuses, before it starts, what the organisation's policy locks in a
 * command that runs it itself (`gateway --http`, `run --http`): the same
 * refusal, naming the key, as the app's.
 */
export async function refuseIfLocked(api: { invoke(channel: 'organisation.get', request: Record<string, never>): Promise<OrganisationView> }, setting: OrganisationView['locks'][number]['setting'], what: string): Promise<void> {
  const lock = (await api.invoke('organisation.get', {})).locks.find((item) => item.setting === setting);
  if (lock) throw new AirlockError('locked-by-organisation', `This is ${lock.words}, so Airlock did not ${what}.`);
}

/** Where the audit log is streamed, in words. */
export function auditExportLines(view: AuditExportView): string[] {
  if (view.state === 'off') return [`Audit log streaming (OpenTelemetry): off${view.lastError ? ` — ${view.lastError}` : ''}`];
  if (view.state === 'paused') return [`Audit log streaming (OpenTelemetry): PAUSED — ${view.lastError ?? "your organisation's policy could not be read"}`];
  const who = view.from === 'policy' ? `set by your organisation (${view.lock?.key ?? 'audit.otlp'})` : view.from === 'environment' ? 'from OTEL_EXPORTER_OTLP_* variables' : 'your setting';
  return [
    `Audit log streaming (OpenTelemetry): ${view.endpoint} (${view.protocol}; ${who})${view.headerNames.length ? ` with headers ${view.headerNames.join(', ')}` : ''}`,
    `  ${view.state}: acknowledged up to #${view.acknowledged} of #${view.head}; backlog ${view.backlog}${view.lastError ? ` — last error: ${view.lastError}${view.nextRetryAt ? `, next try ${view.nextRetryAt}` : ''}` : ''}`,
    ...(view.warning ? [`  WARNING: ${view.warning}`] : []),
  ];
}

/** `airlock settings`: show the settings; `airlock settings strict-durability on|off`; `airlock settings audit-export URL|off`. */
export function registerSettingsCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const show = async (value?: SettingsView) => {
    const api = await context.api();
    const settings = value ?? (await api.invoke('settings.get', {}));
    const organisation = await api.invoke('organisation.get', {});
    const auditExport = await api.invoke('audit.exportStatus', {});
    const modeLock = organisation.locks.find((lock) => lock.setting === 'mode');
    io.out(
      context.json()
        ? JSON.stringify({ ...settings, organisation, auditExport }, null, 2)
        : [`Policy mode: ${settings.policyMode}${modeLock ? ` (${modeLock.words})` : ''}`, durabilitySentence(settings), ...auditExportLines(auditExport), ...organisationLines(organisation)].join('\n'),
    );
  };
  const settings = program.command('settings').description("show Airlock's settings and your organisation's policy; change how the audit log reaches the disk, and where it is streamed");
  settings
    .command('show', { isDefault: true })
    .description('show the settings')
    .option('--reload-policy', "read your organisation's policy again now")
    .action(async (options: { reloadPolicy?: boolean }) => {
      if (options.reloadPolicy) await (await context.api()).invoke('organisation.reload', {});
      await show();
    });
  settings
    .command('restore')
    .description("put back Airlock's settings from a file: the copy kept aside when the settings file could not be read (once repaired), or a backup; checks it first, asks, and keeps the settings in use now beside it")
    .argument('<file>')
    .action(async (file: string) => {
      const api = await context.api();
      const host = api.localHost;
      if (!host) throw new CliExit(EXIT.failure, 'Another Airlock process (the Airlock app, or a gateway an app started) is using this data folder: close it, then run this again.');
      const path = resolve(file);
      const found = host.store.checkFile(path);
      const now = host.store.read();
      const count = (data: { servers: object; rules: unknown[] }) => `${Object.keys(data.servers).length} server(s), ${data.rules.length} rule(s)`;
      await confirmOrExit(io, `Replace the settings in use now (${count(now)}) with those in ${path} (${count(found)})? The ones in use now are kept beside it.`, context.yes());
      const result = host.store.restore(path);
      io.out(context.json() ? JSON.stringify({ ok: true, ...result }) : `Restored ${result.servers} server(s) and ${result.rules} rule(s) from ${path}. The settings in use before are kept as ${result.keptAs}.`);
    });
  settings
    .command('strict-durability')
    .description('on: flush every decision to disk before its call is sent; off (default): within the audit window')
    .argument('<on|off>')
    .action(async (value: string) => {
      if (value !== 'on' && value !== 'off') throw new CliExit(EXIT.usage, 'Say `on` or `off`.');
      await show(await (await context.api()).invoke('settings.setStrictDurability', { strict: value === 'on' }));
    });
  settings
    .command('audit-export')
    .description('stream the audit log to an OpenTelemetry collector over OTLP/HTTP (URL: its base, e.g. http://127.0.0.1:4318, or its /v1/logs URL), or `off`')
    .argument('<url|off>')
    .option('--protocol <http/protobuf|http/json>', 'the OTLP encoding (default http/protobuf)')
    .option('--header <NAME=VALUE>', 'a header sent with every export, e.g. an API key (repeatable; the value is kept as a secret)', (value: string, all: string[] = []) => [...all, value])
    .action(async (url: string, options: { protocol?: string; header?: string[] }) => {
      if (options.protocol !== undefined && options.protocol !== 'http/protobuf' && options.protocol !== 'http/json') throw new CliExit(EXIT.usage, '--protocol is http/protobuf or http/json.');
      const headers: Record<string, string> = {};
      for (const header of options.header ?? []) {
        const at = header.indexOf('=');
        if (at <= 0) throw new CliExit(EXIT.usage, `--header is NAME=VALUE (not “${header}”).`);
        headers[header.slice(0, at).trim()] = header.slice(at + 1);
      }
      const api = await context.api();
      await api.invoke('audit.setExport', url === 'off' ? { endpoint: null } : { endpoint: url, ...(options.protocol ? { protocol: options.protocol } : {}), headers });
      await show();
    });
}

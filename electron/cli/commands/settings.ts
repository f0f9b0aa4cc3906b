import type { Command } from 'commander';
import type { SettingsView } from '../../../shared/views';
import { CliExit, EXIT } from '../output';
import type { CliContext } from './servers';

/** One paragraph a person can read: what the audit log's durability setting means now. */
export function durabilitySentence(settings: SettingsView): string {
  return settings.strictDurability
    ? 'Strict durability: on — every decision is flushed to disk before its call is sent (each call waits for the disk).'
    : `Strict durability: off — every decision is written before its call is sent (a crash of Airlock loses nothing) and flushed to disk within ${settings.flushWindowMs} ms; a power cut can lose the entries of those last ${settings.flushWindowMs} ms. Decisions a person answered are always flushed before their call.`;
}

/** `airlock settings`: show the settings; `airlock settings strict-durability on|off`. */
export function registerSettingsCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const out = (value: SettingsView) => io.out(context.json() ? JSON.stringify(value, null, 2) : [`Policy mode: ${value.policyMode}`, durabilitySentence(value)].join('\n'));
  const settings = program.command('settings').description("show Airlock's settings; change how the audit log reaches the disk");
  settings
    .command('show', { isDefault: true })
    .description('show the settings')
    .action(async () => out(await (await context.api()).invoke('settings.get', {})));
  settings
    .command('strict-durability')
    .description('on: flush every decision to disk before its call is sent; off (default): within the audit window')
    .argument('<on|off>')
    .action(async (value: string) => {
      if (value !== 'on' && value !== 'off') throw new CliExit(EXIT.usage, 'Say `on` or `off`.');
      out(await (await context.api()).invoke('settings.setStrictDurability', { strict: value === 'on' }));
    });
}

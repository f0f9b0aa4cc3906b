import type { Command } from 'commander';
import { readTool } from '../../core/policy/annotations';
import { inert } from '../format';
import { CliExit, EXIT } from '../output';
import { confirmOrExit, type CliContext } from './servers';

export function registerCallCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const out = (value: unknown, text: () => string) => io.out(context.json() ? JSON.stringify(value, null, 2) : text());

  program
    .command('call')
    .description("call a tool yourself (your own call is your consent; it is checked against your rules and recorded)")
    .argument('<server>')
    .argument('<tool>')
    .option('--args <json>', 'the arguments as a JSON object', '{}')
    .action(async (server: string, tool: string, options: { args: string }) => {
      let args: unknown;
      try {
        args = JSON.parse(options.args);
      } catch (error) {
        throw new CliExit(EXIT.usage, `--args is not valid JSON: ${(error as Error).message}`);
      }
      if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new CliExit(EXIT.usage, '--args must be a JSON object, like {"path": "/tmp/x"}.');
      const host = context.host();
      const result = await host.callTool({ server, tool, arguments: args as Record<string, unknown>, caller: { kind: 'user' } });
      const view = { outcome: result.outcome, content: result.result?.content ?? [], structuredContent: result.result?.structuredContent, message: result.message, callId: result.callId, reasons: result.decision.reasons };
      out(view, () => {
        const text = (result.result?.content ?? []).map((item) => (item.type === 'text' ? inert(item.text) : `[${item.type}]`)).join('\n');
        return [result.message ? `${result.outcome}: ${result.message}` : '', text].filter(Boolean).join('\n');
      });
      context.exit(result.outcome === 'ok' ? EXIT.ok : result.outcome === 'tool-error' ? EXIT.failure : EXIT.denied);
    });

  const rules = program.command('rules').description('list, add and remove standing rules (each bound to the exact tool definition it was made for)');
  rules
    .command('list', { isDefault: true })
    .description('list every rule')
    .action(() => {
      const list = context.host().rules();
      out(list, () => (list.length ? list.map((rule) => `${rule.effect.padEnd(5)} ${rule.server} › ${rule.tool}  (since ${rule.createdAt}${rule.current ? '' : '; VOID: the tool changed or is not listed'})`).join('\n') : 'No rules.'));
    });
  rules
    .command('add')
    .description('always allow or always deny one tool, as it is defined now')
    .argument('<server>')
    .argument('<tool>')
    .argument('<allow|deny>')
    .option('--confirm-destructive', 'the second, explicit confirmation an "always allow" for a destructive tool needs')
    .option('-y, --yes', 'answer yes to the question')
    .action(async (server: string, tool: string, effect: string, options: { confirmDestructive?: boolean; yes?: boolean }) => {
      if (effect !== 'allow' && effect !== 'deny') throw new CliExit(EXIT.usage, 'Say `allow` or `deny`.');
      const host = context.host();
      host.record(server);
      await host.supervisor.start(server).catch(() => {});
      const current = host.supervisor.tools.lookup(server, tool);
      if (!current) throw new CliExit(EXIT.failure, `${server} does not offer a tool named ${tool} right now (is it enabled and running?).`);
      const destructive = readTool(current.definition.annotations).toolClass === 'destructive';
      await confirmOrExit(io, `Always ${effect} ${server} › ${tool}${destructive ? ' (it may delete or overwrite things)' : ''}?`, options.yes);
      if (effect === 'allow' && destructive && !options.confirmDestructive) {
        if (!io.confirm) throw new CliExit(EXIT.needsConfirmation, `${tool} is destructive: always allowing it needs a second confirmation (--confirm-destructive).`);
        if (!(await io.confirm(`Are you sure? ${server} › ${tool} will then run without asking, even when it deletes or overwrites things.`))) throw new CliExit(EXIT.cancelled, 'Nothing was changed.');
      }
      host.saveRule({ server, tool, fingerprint: current.fingerprint, effect, createdAt: new Date().toISOString() });
      out({ ok: true }, () => `Saved: always ${effect} ${server} › ${tool} (for this exact definition).`);
    });
  rules
    .command('remove')
    .description('remove the rule for one tool')
    .argument('<server>')
    .argument('<tool>')
    .action((server: string, tool: string) => {
      context.host().removeRule(server, tool);
      out({ ok: true }, () => `Removed the rule for ${server} › ${tool}.`);
    });

  const audit = program.command('audit').description('read the audit log of every decision and outcome');
  audit
    .command('list', { isDefault: true })
    .description('list recent entries, newest first')
    .option('--server <name>')
    .option('--tool <name>')
    .option('--decision <allow|ask|deny>')
    .option('--limit <n>', 'how many calls', '50')
    .action(async (options: { server?: string; tool?: string; decision?: string; limit: string }) => {
      if (options.decision && !['allow', 'ask', 'deny'].includes(options.decision)) throw new CliExit(EXIT.usage, '--decision is allow, ask or deny.');
      const entries = await context.host().auditEntries({
        ...(options.server ? { server: options.server } : {}),
        ...(options.tool ? { tool: options.tool } : {}),
        ...(options.decision ? { verdict: options.decision as 'allow' | 'ask' | 'deny' } : {}),
        limit: Number(options.limit) || 50,
      });
      out(entries, () =>
        entries.length
          ? entries
              .map((entry) =>
                entry.kind === 'decision'
                  ? `${entry.time} #${entry.seq} ${entry.caller} → ${entry.server} › ${inert(entry.tool)}: ${entry.verdict}${entry.answeredBy ? ` [${entry.answeredBy}]` : ''}`
                  : `${entry.time} #${entry.seq}   ${entry.outcome} in ${entry.durationMs} ms`,
              )
              .join('\n')
          : 'No entries.',
      );
    });
  audit
    .command('verify')
    .description('check the hash chain: finds an edited, removed or reordered entry and says where')
    .action(async () => {
      const result = await context.host().audit.verify();
      out(result, () => (result.ok ? `The audit log verifies: ${result.entries} entries in ${result.files.length} file(s).` : `The audit log does NOT verify: ${result.problem?.file}:${result.problem?.line}: ${result.problem?.message}`));
      if (!result.ok) context.exit(EXIT.failure);
    });
}

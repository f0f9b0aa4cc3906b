import type { Command } from 'commander';
import { inert } from '../format';
import { CliExit, EXIT } from '../output';
import { confirmOrExit, warmDetail, type CliContext } from './servers';

/** One item of a tool result as terminal text (server text made inert). */
function contentText(item: unknown): string {
  const value = item as { type?: string; text?: string };
  return value.type === 'text' && typeof value.text === 'string' ? inert(value.text) : `[${String(value.type)}]`;
}

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
      const api = await context.api();
      const result = await api.invoke('tools.call', { server, tool, arguments: args as Record<string, unknown> });
      out(result, () => {
        const text = result.content.map((item) => contentText(item)).join('\n');
        // The server's own words come first, then Airlock's (hints); all inert.
        const heading = result.outcome === 'tool-error' ? `${server} › ${tool} reported an error:` : result.outcome === 'denied' ? 'Not run:' : result.outcome === 'unknown' ? 'Outcome unknown:' : '';
        return [heading, text, result.message ? inert(result.message) : ''].filter(Boolean).join('\n');
      });
      // A server that cannot start for want of the sandbox: exit 3, as `airlock doctor`.
      const sandboxMissing = result.outcome === 'denied' && !(await api.invoke('sandbox.status', {})).supported && !(await api.invoke('servers.get', { name: server })).profile.unsandboxed;
      context.exit(result.outcome === 'ok' ? EXIT.ok : result.outcome === 'tool-error' ? EXIT.failure : sandboxMissing ? EXIT.sandboxUnavailable : EXIT.denied);
    });

  const rules = program.command('rules').description('list, add and remove standing rules (each bound to the exact tool definition it was made for)');
  rules
    .command('list', { isDefault: true })
    .description('list every rule')
    .action(async () => {
      const list = await (await context.api()).invoke('rules.list', {});
      out(list, () => (list.length ? list.map((rule) => `${rule.effect.padEnd(5)} ${rule.server} › ${rule.tool}  (since ${rule.createdAt}${rule.current ? '' : '; VOID: the tool changed or is not listed'})`).join('\n') : 'No rules.'));
    });
  rules
    .command('add')
    .description('always allow or always deny one tool, as it is defined now')
    .argument('<server>')
    .argument('<tool>')
    .argument('<allow|deny>')
    .option('--confirm-destructive', 'the second, explicit confirmation an "always allow" for a destructive tool needs')
    .action(async (server: string, tool: string, effect: string, options: { confirmDestructive?: boolean }) => {
      if (effect !== 'allow' && effect !== 'deny') throw new CliExit(EXIT.usage, 'Say `allow` or `deny`.');
      const current = (await warmDetail(context, server)).tools.find((candidate) => candidate.name === tool);
      if (!current) throw new CliExit(EXIT.failure, `${server} does not offer a tool named ${tool} right now (is it enabled?).`);
      const destructive = current.reading.class === 'destructive';
      await confirmOrExit(io, `Always ${effect} ${server} › ${tool}${destructive ? ' (it may delete or overwrite things)' : ''}?`, context.yes());
      if (effect === 'allow' && destructive && !options.confirmDestructive) {
        if (!io.confirm) throw new CliExit(EXIT.needsConfirmation, `${tool} is destructive: always allowing it needs a second confirmation (--confirm-destructive).`);
        if (!(await io.confirm(`Are you sure? ${server} › ${tool} will then run without asking, even when it deletes or overwrites things.`))) throw new CliExit(EXIT.cancelled, 'Nothing was changed.');
      }
      await (await context.api()).invoke('rules.add', { server, tool, effect, fingerprint: current.fingerprint, confirmDestructive: effect === 'allow' && destructive });
      out({ ok: true }, () => `Saved: always ${effect} ${server} › ${tool} (for this exact definition).`);
    });
  rules
    .command('remove')
    .description('remove the rule for one tool (does not ask: every call then asks again)')
    .argument('<server>')
    .argument('<tool>')
    .action(async (server: string, tool: string) => {
      await (await context.api()).invoke('rules.remove', { server, tool });
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
      const entries = await (await context.api()).invoke('audit.list', {
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
      const result = await (await context.api()).invoke('audit.verify', {});
      const problem = result.problems[0];
      out(result, () => (result.ok ? `The audit log verifies: ${result.entries} entries in ${result.files} file(s).` : `The audit log does NOT verify: ${problem?.file}:${problem?.line}: ${problem?.message}`));
      if (!result.ok) context.exit(EXIT.failure);
    });
}

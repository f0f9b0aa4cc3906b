import type { Command } from 'commander';
import { inertText } from '../../core/inert';
import { inert, quoteBlock } from '../format';
import { refuseIfLocked } from './settings';
import { CliExit, EXIT } from '../output';
import { confirmOrExit, unknownToolWords, warmDetail, type CliContext } from './servers';

/**
 * A tool result's items as the terminal shows them: on a terminal, the
 * server's text behind the gutter; to a pipe, its text as it is (inert) for
 * scripts to read.
 */
function contentRows(content: readonly unknown[], onTerminal: boolean): string[] {
  return content.flatMap((item) => {
    const value = item as { type?: string; text?: string };
    if (value.type !== 'text' || typeof value.text !== 'string') return [`[${inert(String(value.type))}]`];
    return onTerminal ? quoteBlock(value.text, { indent: '' }) : [inertText(value.text)];
  });
}

export function registerCallCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const out = (value: unknown, text: () => string) => io.out(context.json() ? JSON.stringify(value, null, 2) : text());

  program
    .command('call')
    .description(
      'call a tool yourself, checked against your rules and recorded; your own call is your consent, except in strict mode, for a tool that may delete or overwrite things, or one that changed since you approved it: those ask on this terminal (exit 4 without one)',
    )
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
        // SECURITY: on a terminal the server's words are quoted (they cannot pass for Airlock's lines); a pipe gets them as they are.
        const rows = contentRows(result.content, io.outColumns?.() !== undefined);
        // The server's own words come first, then Airlock's (hints); all inert.
        const heading = result.outcome === 'tool-error' ? `${server} › ${tool} reported an error:` : result.outcome === 'denied' ? 'Not run:' : result.outcome === 'not-running' ? `Not sent: ${server} is not running.` : result.outcome === 'unknown' ? 'Outcome unknown:' : '';
        // Airlock's message keeps its lines (a server's words inside it are on one line already); each is made inert.
        return [heading, ...rows, ...(result.message ? result.message.split('\n').map((line) => inert(line)) : [])].filter(Boolean).join('\n');
      });
      // A server that cannot start for want of the sandbox: exit 3, as `airlock doctor`.
      const sandboxMissing = (result.outcome === 'denied' || result.outcome === 'not-running') && !(await api.invoke('sandbox.status', {})).supported && !(await api.invoke('servers.get', { name: server })).profile.unsandboxed;
      // A server that is not running refused nothing: a failure (1), not a denial (5).
      context.exit(
        result.outcome === 'ok'
          ? EXIT.ok
          : sandboxMissing
            ? EXIT.sandboxUnavailable
            : result.outcome === 'tool-error' || result.outcome === 'not-running'
              ? EXIT.failure
              : result.nobodyToAsk
                ? EXIT.needsConfirmation
                : EXIT.denied,
      );
    });

  program
    .command('mode')
    .description('show or set the policy mode: default (trust and containment spare some prompts) or strict (every call asks, `airlock call` too)')
    .argument('[mode]', 'default | strict')
    .action(async (mode: string | undefined) => {
      const api = await context.api();
      if (mode === undefined) {
        const current = await api.invoke('settings.get', {});
        out(current, () => `Policy mode: ${current.policyMode}`);
        return;
      }
      if (mode !== 'default' && mode !== 'strict') throw new CliExit(EXIT.usage, 'Say `default` or `strict`.');
      // The organisation's lock first: there is nothing to confirm when the change cannot be made.
      if (mode === 'default') await refuseIfLocked(api, 'mode', 'switch to the default mode');
      const current = (await api.invoke('settings.get', {})).policyMode;
      // Leaving strict mode means fewer prompts: only a person at a terminal may do that here (no --yes).
      if (current === 'strict' && mode === 'default') {
        if (!io.confirm) throw new CliExit(EXIT.needsConfirmation, 'Leaving strict mode needs your confirmation on a terminal (or the Airlock app’s Settings).');
        if (!(await io.confirm('Leave strict mode? Calls the policy allows will then run without asking.'))) throw new CliExit(EXIT.cancelled, 'Nothing was changed.');
      }
      const result = await api.invoke('settings.setPolicyMode', { mode });
      out(result, () => `Policy mode: ${result.policyMode}`);
    });

  const rules = program.command('rules').description('list, add and remove standing rules (each bound to the exact tool definition it was made for)');
  rules
    .command('list', { isDefault: true })
    .description('list every rule')
    .action(async () => {
      const list = await (await context.api()).invoke('rules.list', {});
      out(list, () => (list.length ? list.map((rule) => `${rule.effect.padEnd(5)} ${rule.server} › ${rule.tool}  (since ${rule.createdAt}${rule.current ? '' : '; VOID: the tool or the server’s code changed, or the tool is not listed'})`).join('\n') : 'No rules.'));
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
      const shown = await warmDetail(context, server);
      const current = shown.tools.find((candidate) => candidate.name === tool);
      if (!current) throw new CliExit(EXIT.failure, unknownToolWords(shown, tool));
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

  const audit = program.command('audit').description('read the audit log: every decision and outcome, network request, and change to rules, grants, trust and settings');
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
                  ? `${entry.time} #${entry.seq} ${inert(entry.caller)} → ${inert(entry.server)} › ${inert(entry.tool)}: ${inert(entry.verdict ?? '')}${entry.answeredBy ? ` [${inert(entry.answeredBy)}]` : ''}`
                  : entry.kind === 'network'
                    ? `${entry.time} #${entry.seq} ${inert(entry.server)} → network ${inert(entry.target ?? '')}: ${entry.verdict}${entry.repeats ? ` (${entry.repeats + 1} requests)` : ''}`
                    : entry.kind === 'sandbox'
                    ? `${entry.time} #${entry.seq} ${inert(entry.server)} → ${entry.verdict}: ${inert(entry.target ?? '')}${entry.repeats ? ` (${entry.repeats + 1} times)` : ''}`
                    : entry.kind === 'change'
                      ? [`${entry.time} #${entry.seq} ${inert(entry.caller)} → ${entry.server ? inert(entry.server) : 'settings'}: ${entry.verdict}`, ...(entry.changes ?? []).map((line) => `    ${inert(line)}`)].join('\n')
                    : entry.kind === 'claims'
                      ? [`${entry.time} #${entry.seq} ${inert(entry.server)} › ${inert(entry.tool)}: ${entry.verdict}`, ...(entry.changes ?? []).map((line) => `    ${inert(line)}`)].join('\n')
                    : `${entry.time} #${entry.seq}   ${entry.outcome}${entry.durationMs ? ` in ${entry.durationMs} ms` : ''}${entry.outcome === 'unknown' && entry.reasons?.length ? ` — ${inert(entry.reasons.join(' '))}` : ''}`,
              )
              .join('\n')
          : 'No entries.',
      );
    });
  audit
    .command('export')
    .description('send a range of entries to the configured OpenTelemetry collector now, by hand (the streamed position does not move)')
    .requiredOption('--otlp', 'over OTLP/HTTP, to the collector Settings, `airlock settings audit-export`, your organisation or OTEL_EXPORTER_OTLP_* name')
    .option('--from <seq>', 'the first entry (default 1)')
    .option('--to <seq>', 'the last entry (default the newest)')
    .action(async (options: { from?: string; to?: string }) => {
      const number = (value: string | undefined, name: string) => {
        if (value === undefined) return undefined;
        const n = Number(value);
        if (!Number.isSafeInteger(n) || n < 1) throw new CliExit(EXIT.usage, `--${name} is an entry's number (1 or more), not “${value}”.`);
        return n;
      };
      const from = number(options.from, 'from');
      const to = number(options.to, 'to');
      const result = await (await context.api()).invoke('audit.exportRange', { ...(from ? { from } : {}), ...(to ? { to } : {}) });
      out(result, () => (result.sent ? `Sent ${result.sent} entries (#${result.first}–#${result.last}) to ${result.endpoint}.` : `No entries in that range; nothing was sent to ${result.endpoint}.`));
    });
  audit
    .command('verify')
    .description('check the hash chain and the end: finds an edited, removed, reordered or cut-off entry and says where')
    .action(async () => {
      const result = await (await context.api()).invoke('audit.verify', {});
      const problem = result.problems[0];
      const end =
        result.end === 'confirmed'
          ? ' Its end is confirmed by the keyed record of where it ended.'
          : result.end === 'unchecked'
            ? ` Without the audit key, nothing confirms that no entries were cut from its end.${context.selfContained?.() && !io.env.AIRLOCK_AUDIT_KEY_FILE ? ' (A data folder you chose keeps no key outside it: set AIRLOCK_AUDIT_KEY_FILE to a file outside the folder to anchor its end.)' : ''}`
            : '';
      const notes = result.problems.filter((item) => item !== problem || result.ok).map((item) => `  ${item.file}:${item.line}: ${item.message}`);
      out(result, () =>
        [result.ok ? `The audit log verifies: ${result.entries} entries in ${result.files} file(s).${end}` : `The audit log does NOT verify: ${problem?.file}:${problem?.line}: ${problem?.message}`, ...(result.ok ? notes : [])].join('\n'),
      );
      if (!result.ok) context.exit(EXIT.failure);
    });
}

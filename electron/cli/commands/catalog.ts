import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { LogLevelSchema, type ServerRequestSettings } from '../../../shared/domain';
import type { CatalogWarning, PromptView, ResourceTemplateView } from '../../../shared/views';
import { inert, quoteBlock } from '../format';
import { CliExit, EXIT } from '../output';
import { confirmOrExit, type CliContext } from './servers';

const warningsOf = (warnings: CatalogWarning[], indent = '      ') => warnings.map((w) => `${indent}warning: ${inert(w.message)}`);

function pinning(item: PromptView | ResourceTemplateView): string[] {
  if (item.pendingChange) return [`      CHANGED since you approved it (withheld from apps until approved): ${inert(item.pendingChange.diff.changes.map((c) => c.field).join(', '))}`];
  return item.isNew ? ['      NEW since you reviewed this server — withheld from apps until you approve it (--approve)'] : [];
}

/**
 * What servers offer besides tools, on the command line: resources and
 * templates, reading one, prompts, getting one with arguments, the log
 * level Airlock asks a server for, and what a server may ask back. Server
 * text is printed inert; the server's words are never printed as Airlock's.
 */
export function registerCatalogCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const out = (value: unknown, text: () => string) => io.out(context.json() ? JSON.stringify(value, null, 2) : text());
  const catalog = async (name: string) => {
    const api = await context.api();
    const host = api.localHost;
    // This process runs the servers: start it (the owner, if another process, already runs it).
    if (host && host.servers.record(name).enabled) await host.supervisor.start(name).catch(() => {});
    return api.invoke('catalog.get', { name });
  };

  program
    .command('resources')
    .description("list a server's resources and resource templates (what they are is the server's claim)")
    .argument('<name>')
    .option('--approve-template <uriTemplate>', 'approve the current definition of a new or changed resource template')
    .action(async (name: string, options: { approveTemplate?: string }) => {
      let view = await catalog(name);
      if (options.approveTemplate) {
        const template = view.resourceTemplates.find((t) => t.uriTemplate === options.approveTemplate);
        if (!template) throw new CliExit(EXIT.failure, `${name} does not offer the template ${options.approveTemplate} right now.`);
        await confirmOrExit(io, `Approve the current definition of ${name}'s template ${inert(template.uriTemplate)}?`, context.yes());
        view = await (await context.api()).invoke('catalog.approve', { name, kind: 'resource-template', key: template.uriTemplate, fingerprint: template.fingerprint });
      }
      out({ resources: view.resources, resourceTemplates: view.resourceTemplates, ...(view.problem ? { problem: view.problem } : {}) }, () => {
        const lines: string[] = [];
        if (view.problem) lines.push(inert(view.problem));
        if (!view.offers.resources && !view.problem) lines.push(`${name} does not offer resources.`);
        lines.push(`Resources (${view.resources.length}):`);
        for (const r of view.resources) {
          lines.push(`  ${inert(r.uri)}  ${inert(r.title ?? r.name)}${r.mimeType ? ` (${inert(r.mimeType)})` : ''}`);
          if (r.description) lines.push(...quoteBlock(r.description, { indent: '      ', maxChars: 300, maxRows: 6 }));
          lines.push(...warningsOf(r.warnings));
        }
        if (view.resourceTemplates.length) {
          lines.push(`Templates (${view.resourceTemplates.length}):`);
          for (const t of view.resourceTemplates) {
            lines.push(`  ${inert(t.uriTemplate)}  ${inert(t.title ?? t.name)}`);
            if (t.description) lines.push(...quoteBlock(t.description, { indent: '      ', maxChars: 300, maxRows: 6 }));
            lines.push(...pinning(t), ...warningsOf(t.warnings));
          }
        }
        if (view.truncated.length) lines.push(`Airlock stopped reading early: ${view.truncated.join(', ')}.`);
        return lines.join('\n');
      });
    });

  program
    .command('read')
    .description('read one resource of a server (text printed inert; binary saved with --out, never printed)')
    .argument('<name>')
    .argument('<uri>')
    .option('--out <file>', 'save the (first) contents to a file instead of printing them')
    .action(async (name: string, uri: string, options: { out?: string }) => {
      await catalog(name);
      const read = await (await context.api()).invoke('resources.read', { server: name, uri });
      if (options.out) {
        const first = read.contents[0];
        if (!first) throw new CliExit(EXIT.failure, `${name} sent no contents for ${uri}.`);
        writeFileSync(options.out, first.kind === 'binary' ? Buffer.from(first.blob ?? '', 'base64') : first.text ?? '', { mode: 0o600 });
        out({ ok: true, file: options.out, bytes: first.bytes }, () => `Saved ${first.bytes} bytes to ${options.out}.`);
        return;
      }
      out(read, () =>
        read.contents
          .map((item) => {
            const head = `── ${inert(item.uri)}${item.mimeType ? ` (${inert(item.mimeType)})` : ''}, ${item.bytes} bytes, from ${name} ──`;
            // The server's text, every row behind the gutter.
            const body = item.kind === 'binary' ? [`[binary data, not printed; use --out FILE to save it]`] : quoteBlock(item.text ?? '', { indent: '' });
            return [head, ...warningsOf(item.warnings, ''), ...body].join('\n');
          })
          .join('\n'),
      );
    });

  program
    .command('prompts')
    .description("list a server's prompts (their text is the server's)")
    .argument('<name>')
    .option('--approve <prompt>', 'approve the current definition of a new or changed prompt')
    .action(async (name: string, options: { approve?: string }) => {
      let view = await catalog(name);
      if (options.approve) {
        const prompt = view.prompts.find((p) => p.name === options.approve);
        if (!prompt) throw new CliExit(EXIT.failure, `${name} does not offer a prompt named ${options.approve} right now.`);
        await confirmOrExit(io, `Approve the current definition of ${name}'s prompt ${inert(prompt.name)}?`, context.yes());
        view = await (await context.api()).invoke('catalog.approve', { name, kind: 'prompt', key: prompt.name, fingerprint: prompt.fingerprint });
      }
      out(view.prompts, () => {
        const lines = view.problem ? [inert(view.problem)] : [];
        lines.push(`Prompts (${view.prompts.length}):`);
        for (const p of view.prompts) {
          lines.push(`  ${inert(p.name)}${p.title ? ` — ${inert(p.title)}` : ''}`);
          if (p.description) lines.push(...quoteBlock(p.description, { indent: '      ', maxChars: 300, maxRows: 6 }));
          for (const a of p.arguments) lines.push(`      ${inert(a.name)}${a.required ? ' (required)' : ''}${a.description ? `: ${inert(a.description)}` : ''}`);
          lines.push(...pinning(p), ...warningsOf(p.warnings));
        }
        return lines.join('\n');
      });
    });

  program
    .command('prompt')
    .description('get a prompt with arguments: the messages the server wrote, printed as its words')
    .argument('<name>')
    .argument('<prompt>')
    .option('--args <json>', 'the arguments as a JSON object of strings', '{}')
    .action(async (name: string, prompt: string, options: { args: string }) => {
      let args: unknown;
      try {
        args = JSON.parse(options.args);
      } catch (error) {
        throw new CliExit(EXIT.usage, `--args is not valid JSON: ${(error as Error).message}`);
      }
      if (args === null || typeof args !== 'object' || Array.isArray(args) || !Object.values(args).every((v) => typeof v === 'string')) {
        throw new CliExit(EXIT.usage, '--args must be a JSON object of strings, like {"topic": "tides"}.');
      }
      await catalog(name);
      const result = await (await context.api()).invoke('prompts.get', { server: name, name: prompt, arguments: args as Record<string, string> });
      out(result, () =>
        [
          `── ${name}'s prompt ${inert(prompt)} (the server's words) ──`,
          ...quoteBlock(result.description ?? '', { indent: '' }),
          ...result.messages.flatMap((m) => {
            const c = m.content as { type?: string; text?: string; resource?: { uri?: string; text?: string } };
            const body = c.type === 'text' ? quoteBlock(c.text ?? '') : c.type === 'resource' ? [`  [resource ${inert(c.resource?.uri ?? '')}]`, ...quoteBlock(c.resource?.text ?? '')] : [`  [${inert(String(c.type))}]`];
            return [`${inert(String(m.role))}:`, ...body, ...warningsOf(m.warnings, '  ')];
          }),
        ].join('\n'),
      );
    });

  program
    .command('log-level')
    .description('the least severe log level Airlock asks a server for (debug … emergency), or `default` for the server’s own')
    .argument('<name>')
    .argument('<level>')
    .action(async (name: string, level: string) => {
      const parsed = level === 'default' ? null : LogLevelSchema.safeParse(level).success ? (level as never) : undefined;
      if (parsed === undefined) throw new CliExit(EXIT.usage, `Say one of ${LogLevelSchema.options.join(', ')}, or default.`);
      await catalog(name);
      const result = await (await context.api()).invoke('logging.setLevel', { name, level: parsed });
      out(result, () => (result.level ? `${name} is asked for log messages at ${result.level} and above; they appear in \`airlock logs ${name}\`.` : `${name} logs at its own default level.`));
    });

  program
    .command('requests')
    .description('what a server may ask back: sampling (ask each time, always within limits, never) and where its questions go (airlock, the client app, never)')
    .argument('<name>')
    .option('--sampling <rule>', 'ask | always | never')
    .option('--allow-context', 'let its sampling requests ask for context from other servers and conversations')
    .option('--no-allow-context', 'refuse sampling requests that ask for context (the default)')
    .option('--max-tokens <n>', 'the largest maxTokens a sampling request may ask for')
    .option('--per-minute <n>', 'most sampling requests and questions a minute')
    .option('--questions <where>', 'airlock (asked in Airlock) | client (the app using Airlock shows them) | never (declined without asking)')
    .action(async (name: string, options: { sampling?: string; allowContext?: boolean; maxTokens?: string; perMinute?: string; questions?: string }) => {
      const api = await context.api();
      const current = await api.invoke('requests.settings', { name });
      const next: ServerRequestSettings = structuredClone(current);
      if (options.sampling !== undefined) {
        if (!['ask', 'always', 'never'].includes(options.sampling)) throw new CliExit(EXIT.usage, '--sampling is ask, always or never.');
        next.sampling.rule = options.sampling as ServerRequestSettings['sampling']['rule'];
      }
      if (options.allowContext !== undefined) next.sampling.allowContext = options.allowContext;
      const number = (value: string | undefined, what: string, max: number) => {
        if (value === undefined) return undefined;
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1 || n > max) throw new CliExit(EXIT.usage, `${what} is a whole number from 1 to ${max}.`);
        return n;
      };
      next.sampling.maxTokens = number(options.maxTokens, '--max-tokens', 1_000_000) ?? next.sampling.maxTokens;
      const perMinute = number(options.perMinute, '--per-minute', 600);
      if (perMinute !== undefined) {
        next.sampling.perMinute = perMinute;
        next.elicitation.perMinute = perMinute;
      }
      if (options.questions !== undefined) {
        if (!['airlock', 'client', 'never'].includes(options.questions)) throw new CliExit(EXIT.usage, '--questions is airlock, client or never.');
        next.elicitation.answer = options.questions as ServerRequestSettings['elicitation']['answer'];
      }
      const describe = (s: ServerRequestSettings) =>
        [
          `Sampling: ${s.sampling.rule === 'ask' ? 'asks you each time (and shows the answer before it goes back)' : s.sampling.rule === 'always' ? 'ALWAYS ALLOWED without asking' : 'never'}; up to ${s.sampling.maxTokens} tokens, ${s.sampling.perMinute} a minute; context from other servers ${s.sampling.allowContext ? 'allowed' : 'refused'}.`,
          `Questions (elicitation): ${s.elicitation.answer === 'airlock' ? 'asked in Airlock' : s.elicitation.answer === 'client' ? 'shown by the app using Airlock, when it can' : 'declined without asking'}; ${s.elicitation.perMinute} a minute.`,
          'Roots: always exactly its granted folders.',
        ].join('\n');
      if (JSON.stringify(next) !== JSON.stringify(current)) {
        await confirmOrExit(io, `Change what ${name} may ask back?\n${describe(next)}\n`, context.yes());
        const saved = await api.invoke('requests.setSettings', { name, settings: next });
        out(saved, () => describe(saved));
        return;
      }
      out(current, () => describe(current));
    });
}

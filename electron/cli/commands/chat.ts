/**
 * `airlock chat`: the built-in agent in a terminal, on the same core as the
 * app. `-m` sends one message and exits when the turn ends; without it, the
 * chat goes on until Ctrl+D. Confirmations the model's calls need are asked
 * on this terminal when this process runs the servers; when the Airlock app
 * runs them, they appear in its window. `--json` prints one JSON object per
 * line (text, tool cards, statuses, the end) for scripts. `airlock models`
 * manages providers for headless use (keys from an environment variable).
 * A line may use a server's prompt (`/NAME arg=value … -- text`) and attach
 * its resources (`@SERVER:URI`), as the app's composer does (chat-line.ts).
 *
 * SECURITY: model and server text is printed inert (no escape sequences);
 * the answer to a confirmation comes only from the terminal, never from the
 * model.
 */
import { createInterface, type Interface } from 'node:readline/promises';
import type { Command } from 'commander';
import type { AssistantMessage, ChatEvent, ChatUpdate, ConversationView, ModelRef, ToolCard, UsageView } from '../../../shared/chat';
import type { ConfirmationView } from '../../../shared/views';
import type { AirlockHost } from '../../core/host';
import { SharedHost } from '../../core/ipc/shared-host';
import { listOffers, readChatLine, usesCommands } from '../chat-line';
import { inert, quoteBlock } from '../format';
import { inertText } from '../../core/inert';
import { CliExit, EXIT } from '../output';
import { terminalConfirmations } from '../terminal-confirmations';
import type { CliContext } from './servers';
import { messageOf } from '../../core/errors';

/** A server's prompt a message starts from. */
type ChatSendPrompt = { server: string; name: string; arguments: Record<string, string> };

interface ChatOptions {
  message?: string;
  model?: string;
  servers?: string;
  conversation?: string;
  terminal: boolean;
}

/** One terminal for the whole chat: the person's messages and the confirmations share it, one question at a time. */
interface ChatTerminal {
  /** Asks one question; `signal` withdraws it (the confirmation was answered elsewhere), and the promise rejects. */
  ask(question: string, signal?: AbortSignal): Promise<string>;
  columns(): number;
  /** Ctrl+C while a turn runs; returns the unsubscribe. */
  onInterrupt(listener: () => void): () => void;
  close(): void;
}

/**
 * The terminal the person runs `airlock chat` in — only when stdin is one.
 * SECURITY: a chat fed from a pipe (another program, an agent's shell tool)
 * never asks on the controlling terminal: keystrokes meant for that program
 * must not answer Airlock (as for gateways, issue 10.3).
 */
function openChatTerminal(): ChatTerminal | undefined {
  if (!process.stdin.isTTY) return undefined;
  const output = process.stdout.isTTY ? process.stdout : process.stderr;
  const rl: Interface = createInterface({ input: process.stdin, output, terminal: true });
  let queue: Promise<unknown> = Promise.resolve();
  const interrupts = new Set<() => void>();
  rl.on('SIGINT', () => {
    if (interrupts.size === 0) rl.close();
    for (const listener of interrupts) listener();
  });
  return {
    ask(question, signal) {
      const next = queue.then(() => rl.question(question, signal ? { signal } : {}));
      queue = next.catch(() => {}); // Each question's own promise reports its failure; the queue only keeps them in order.
      return next.then((answer) => answer.trim());
    },
    columns: () => (output as NodeJS.WriteStream).columns || 80,
    onInterrupt: (listener) => {
      interrupts.add(listener);
      return () => interrupts.delete(listener);
    },
    close: () => rl.close(),
  };
}

/** "provider/model", or a bare model name of the default provider. */
function parseModel(value: string, fallback: ModelRef | undefined): ModelRef {
  const at = value.indexOf('/');
  if (at > 0) return { provider: value.slice(0, at), model: value.slice(at + 1) };
  if (!fallback) throw new CliExit(EXIT.usage, `--model ${value}: say which provider too (provider/model); there is no default provider yet (see \`airlock models\`).`);
  return { provider: fallback.provider, model: value };
}

function usageLine(usage: UsageView): string {
  return `${usage.inputTokens.toLocaleString('en')} in · ${usage.outputTokens.toLocaleString('en')} out${usage.costUsd !== undefined ? ` · ~$${usage.costUsd.toFixed(4)}` : ''}`;
}

/** A finished tool card as terminal lines (server text inert, long results cut). */
function cardLines(card: ToolCard): string[] {
  const lines = [`  ⚙ ${card.server || '?'} › ${inert(card.tool)} — ${card.decision?.label ?? 'Not sent'}`];
  if (card.sentArguments) lines.push(`    you edited the arguments; sent: ${inert(JSON.stringify(card.sentArguments))}`);
  if (card.message) lines.push(`    ${inert(card.message)}`);
  if (card.contentFrom) lines.push(`    content from ${inert(card.contentFrom)} (the server's text, not Airlock's):`);
  for (const warning of card.warnings) lines.push(`    ! ${inert(warning.message)}`);
  // The server's result on rows of its own, every row behind the gutter.
  if (card.result) lines.push(...quoteBlock(card.result.text, { indent: '    ', maxChars: 800 }));
  return lines;
}

/**
 * Prints one turn as it streams and resolves with how it ended. In text mode
 * the model's words stream to stdout and notes go to stderr; in JSON mode
 * every line of stdout is one event.
 */
class TurnPrinter {
  private readonly printedCards = new Set<string>();
  private readonly startedMessages = new Set<string>();
  private atLineStart = true;

  constructor(
    private readonly json: boolean,
    private readonly write: (text: string) => void,
    private readonly note: (text: string) => void,
  ) {}

  handle(event: ChatEvent): void {
    if (this.json) return this.handleJson(event);
    if (event.type === 'delta') {
      this.text(event.text);
    } else if (event.type === 'message' && event.message.role === 'assistant') {
      this.message(event.message);
    } else if (event.type === 'status' && event.status.kind === 'retrying') {
      this.line();
      this.note(`… ${inert(event.status.message ?? 'waiting')}`);
    }
  }

  private handleJson(event: ChatEvent): void {
    if (event.type === 'delta') this.write(`${JSON.stringify({ type: 'text', messageId: event.messageId, text: event.text })}\n`);
    else if (event.type === 'status') this.write(`${JSON.stringify({ type: 'status', ...event.status })}\n`);
    else if (event.type === 'message' && event.message.role === 'assistant') {
      for (const part of event.message.parts) {
        if (part.type === 'tool' && part.card.state === 'done' && !this.printedCards.has(`${event.message.id}/${part.card.id}`)) {
          this.printedCards.add(`${event.message.id}/${part.card.id}`);
          this.write(`${JSON.stringify({ type: 'tool', card: part.card })}\n`);
        }
      }
      // The message once, when it has settled: its stream ended and every call in it is done.
      const settled = event.message.status !== 'streaming' && event.message.parts.every((part) => part.type !== 'tool' || part.card.state === 'done');
      if (settled && !this.startedMessages.has(event.message.id)) {
        this.startedMessages.add(event.message.id);
        this.write(`${JSON.stringify({ type: 'message', message: event.message })}\n`);
      }
    }
  }

  private message(message: AssistantMessage): void {
    if (!this.startedMessages.has(message.id)) {
      this.startedMessages.add(message.id);
      this.line();
      this.write(`${message.model.model}: `);
      this.atLineStart = false;
    }
    for (const part of message.parts) {
      if (part.type !== 'tool' || part.card.state !== 'done' || this.printedCards.has(`${message.id}/${part.card.id}`)) continue;
      this.printedCards.add(`${message.id}/${part.card.id}`);
      this.line();
      this.write(`${cardLines(part.card).join('\n')}\n`);
      this.atLineStart = true;
    }
    if (message.status === 'streaming') return;
    this.line();
    if (message.status === 'stopped') this.note('(stopped)');
    if (message.status === 'incomplete' && !message.error) this.note('(incomplete: the answer broke off)');
    if (message.error) this.note(`error: ${inert(message.error.message)}`);
    if (message.notice) this.note(message.notice);
    if (message.usage) this.note(`[${usageLine(message.usage)}]`);
  }

  private text(text: string): void {
    // The model's words keep their lines (they are a reply, not a server's text); control characters made visible.
    const safe = inertText(text);
    this.write(safe);
    this.atLineStart = safe.endsWith('\n');
  }

  private line(): void {
    if (!this.atLineStart) this.write('\n');
    this.atLineStart = true;
  }
}

export function registerChatCommands(program: Command, context: CliContext & { dataDir(): string; version: string; createHost: (hooks: ConstructorParameters<typeof AirlockHost>[0]['hooks']) => AirlockHost }): void {
  const { io } = context;

  program
    .command('chat')
    .description("chat with your default model (or --model); it uses your servers' tools, every call through Airlock's policy")
    .option('-m, --message <text>', 'send one message, print the answer, and exit (/ lists prompts, @ resources; /NAME arg=value -- text, @SERVER:URI)')
    .option('--model <provider/model>', 'the model to use (default: the default model of Settings › Models / `airlock models`)')
    .option('--servers <names>', 'let the model see only these servers (comma-separated; default: every enabled server)')
    .option('--conversation <id>', 'go on with an existing conversation')
    .option('--no-terminal', 'never ask on this terminal (calls needing a confirmation then need the Airlock app, or are denied)')
    .action(async (options: ChatOptions) => {
      const json = context.json();
      const terminal = options.terminal ? openChatTerminal() : undefined;
      // A reader that went away (`| head`) ends the chat quietly: the turn is stopped, nothing more is written.
      let readerGone = false;
      const write = (text: string) => void (readerGone || process.stdout.write(text));
      const note = (text: string) => io.err(text);
      const updates = new Set<(update: ChatUpdate) => void>();
      let api: SharedHost | undefined;
      // SECURITY: the person answers on this terminal — the confirmations of this chat's turns, routed
      // here by the owner (this process or another), laid out and coded like every terminal prompt; the
      // model has no way to answer them.
      const confirmations = terminal ? terminalConfirmations(terminal, () => api, note, { appCanAsk: () => api?.otherShellsCanAsk() ?? false }) : undefined;
      const shared = await SharedHost.open({
        dataDir: context.dataDir(),
        role: 'cli',
        label: 'airlock chat',
        canAsk: () => terminal !== undefined,
        onEvent: (event, payload) => {
          if (event === 'chat.didUpdate') for (const listener of updates) listener(payload as ChatUpdate);
          if (event === 'approvals.didChange') confirmations?.(payload as ConfirmationView[]);
        },
        createHost: (hooks) => context.createHost(hooks),
      });
      api = shared;
      let current: string | undefined;
      process.stdout.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') return;
        readerGone = true;
        if (current) void shared.invoke('chat.stop', { id: current }).catch(() => {}); // Best effort: the turn ends with the process anyway.
      });
      try {
        if (shared.mode === 'client' && !json) note(`Another Airlock process runs the servers${terminal ? ': confirmations are asked here and in the Airlock app, when it runs' : ': confirmations appear in the Airlock app'}.`);
        const conversation = await prepareConversation(shared, options);
        current = conversation.id;
        if (!json) note(`Conversation ${conversation.id}${conversation.model ? ` with ${conversation.model.model}` : ''}. ${options.message ? '' : 'Ctrl+C stops an answer; Ctrl+D ends the chat.'}`.trim());
        /**
         * What the line asks to send: its `/` prompt and `@` resources read against what the conversation's
         * servers offer (fetched only for a line that uses them). Undefined when nothing is to be sent (a
         * listing was printed); throws a CliExit (usage) with what was wrong.
         */
        const compose = async (line: string): Promise<{ text: string; prompt?: ChatSendPrompt; resources?: Array<{ server: string; uri: string }> } | undefined> => {
          if (!usesCommands(line)) return { text: line };
          const offered = await shared.invoke('chat.commands', { id: conversation.id });
          const read = readChatLine(line, offered);
          if (read.kind === 'text') return { text: read.text };
          if (read.kind === 'error') throw new CliExit(EXIT.usage, read.message);
          if (read.kind === 'list') {
            const offers = listOffers(read.what, offered);
            if (json) write(`${JSON.stringify({ type: 'offers', what: read.what, prompts: read.what === 'prompts' ? offered.prompts : undefined, resources: read.what === 'resources' ? offered.resources : undefined })}\n`);
            else for (const offer of offers) write(`${inert(offer)}\n`);
            return undefined;
          }
          const args: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, read.prompt?.arguments);
          for (const arg of read.missing) {
            // SECURITY: asked on this terminal only; a chat without one says what is missing instead.
            if (!terminal) throw new CliExit(EXIT.usage, `/${read.prompt!.name} needs ${read.missing.map((m) => `${m.name}=…`).join(' ')}.`);
            args[arg.name] = await terminal.ask(`${inert(arg.name)}${arg.description ? ` (${inert(arg.description)})` : ''}: `);
          }
          return { text: read.text, ...(read.prompt ? { prompt: { ...read.prompt, arguments: args } } : {}), ...(read.resources.length ? { resources: read.resources } : {}) };
        };
        const turn = async (line: string): Promise<string | undefined> => {
          const message = await compose(line);
          if (!message) return 'listed';
          const printer = new TurnPrinter(json, write, note);
          let finish: (outcome: string | undefined) => void = () => {};
          const ended = new Promise<string | undefined>((resolve) => (finish = resolve));
          const listener = (update: ChatUpdate) => {
            if (update.conversationId !== conversation.id) return;
            printer.handle(update.event);
            if (update.event.type === 'turn' && !update.event.running) finish(update.event.outcome);
          };
          updates.add(listener);
          const offInterrupt = terminal?.onInterrupt(() => void shared.invoke('chat.stop', { id: conversation.id }).catch(() => {})); // Best effort: a turn that cannot be stopped ends on its own, and says so.
          try {
            await shared.invoke('chat.send', { id: conversation.id, ...message });
            return await ended;
          } finally {
            updates.delete(listener);
            offInterrupt?.();
          }
        };

        if (options.message !== undefined) {
          const outcome = await turn(options.message);
          const view = await shared.invoke('chat.get', { id: conversation.id });
          if (json) write(`${JSON.stringify({ type: 'end', outcome, conversationId: conversation.id, usage: view.usage })}\n`);
          context.exit(outcome === 'done' || outcome === 'step-limit' || outcome === 'listed' ? EXIT.ok : EXIT.failure);
          return;
        }
        if (!terminal) throw new CliExit(EXIT.usage, 'An interactive chat needs a terminal; use -m "…" to send one message.');
        for (;;) {
          let text: string;
          try {
            text = await terminal.ask('you> ');
          } catch {
            break; // Ctrl+D or Ctrl+C at the prompt
          }
          if (!text) continue;
          await turn(text).catch((error: unknown) => note(error instanceof CliExit ? error.message : `error: ${messageOf(error)}`));
        }
      } finally {
        terminal?.close();
        await shared.close();
      }
    });

  const models = program.command('models').description('model providers for `airlock chat` and the app’s chat (keys are read from an environment variable)');
  models
    .command('list', { isDefault: true })
    .description('list providers, their models and the default model')
    .action(async () => {
      const view = await (await context.api()).invoke('models.get', {});
      if (context.json()) return io.out(JSON.stringify(view, null, 2));
      if (view.providers.length === 0) return io.out('No model providers yet. Add one: airlock models add anthropic --key-env ANTHROPIC_API_KEY');
      for (const provider of view.providers) {
        io.out(`${provider.id.padEnd(16)} ${inert(provider.label)} (${provider.kind})${provider.baseUrl ? ` at ${provider.baseUrl}` : ''} · ${provider.hasKey ? 'key set' : 'no key'} · ${provider.models.length} model(s)`);
      }
      io.out(`Default model: ${view.defaultModel ? `${view.defaultModel.provider}/${view.defaultModel.model}` : 'none'} · tool steps per turn: ${view.stepLimit}`);
    });
  models
    .command('add')
    .description('add a provider: anthropic, openai, or openai-compatible (with --base-url); then it is tested')
    .argument('<kind>', 'anthropic | openai | openai-compatible')
    .option('--name <label>', 'what to call it (default: from the kind)')
    .option('--base-url <url>', 'the endpoint, e.g. http://localhost:11434/v1 for Ollama')
    .option('--key-env <VAR>', 'read the key from this environment variable (never from the command line)')
    .option('--default <model>', 'make this model of the provider the default')
    .action(async (kind: string, options: { name?: string; baseUrl?: string; keyEnv?: string; default?: string }) => {
      if (kind !== 'anthropic' && kind !== 'openai' && kind !== 'openai-compatible') throw new CliExit(EXIT.usage, 'The kind is anthropic, openai or openai-compatible.');
      const apiKey = options.keyEnv ? io.env[options.keyEnv] : undefined;
      if (options.keyEnv && !apiKey) throw new CliExit(EXIT.usage, `--key-env ${options.keyEnv}: that environment variable is not set.`);
      const api = await context.api();
      const label = options.name ?? (kind === 'anthropic' ? 'Anthropic' : kind === 'openai' ? 'OpenAI' : 'Local model');
      const provider = await api.invoke('models.addProvider', { kind, label, ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), ...(apiKey ? { apiKey } : {}) });
      const test = await api.invoke('models.test', { id: provider.id });
      if (options.default) await api.invoke('models.setDefault', { provider: provider.id, model: options.default });
      if (context.json()) return io.out(JSON.stringify({ provider, test }, null, 2));
      io.out(`Added ${provider.id}. ${inert(test.message)}`);
      if (test.models.length) io.out(`Models: ${test.models.slice(0, 20).map((model) => inert(model)).join(', ')}${test.models.length > 20 ? ', …' : ''}`);
      if (!test.ok) context.exit(EXIT.failure);
    });
  models
    .command('default')
    .description('choose the default model')
    .argument('<provider/model>')
    .action(async (value: string) => {
      const api = await context.api();
      const ref = parseModel(value, (await api.invoke('models.get', {})).defaultModel);
      const view = await api.invoke('models.setDefault', ref);
      io.out(context.json() ? JSON.stringify(view.defaultModel) : `Default model: ${ref.provider}/${ref.model}`);
    });
  models
    .command('test')
    .description('test a provider’s connection and refresh its model list')
    .argument('<provider>')
    .action(async (id: string) => {
      const test = await (await context.api()).invoke('models.test', { id });
      io.out(context.json() ? JSON.stringify(test) : inert(test.message));
      if (!test.ok) context.exit(EXIT.failure);
    });
  models
    .command('remove')
    .description('remove a provider and its key')
    .argument('<provider>')
    .action(async (id: string) => {
      await (await context.api()).invoke('models.removeProvider', { id, confirm: true });
      io.out(context.json() ? JSON.stringify({ ok: true }) : `Removed ${id}.`);
    });
}

/** The conversation to talk in: an existing one, or a new one with the model and servers asked for. */
async function prepareConversation(shared: SharedHost, options: ChatOptions): Promise<ConversationView> {
  const models = await shared.invoke('models.get', {});
  const model = options.model ? parseModel(options.model, models.defaultModel) : undefined;
  if (model && !models.providers.some((provider) => provider.id === model.provider)) {
    throw new CliExit(EXIT.usage, `--model: there is no provider named ${model.provider} (see \`airlock models\`).`);
  }
  if (!model && !models.defaultModel && !options.conversation) {
    throw new CliExit(EXIT.failure, 'No model is chosen yet. Add a provider: airlock models add anthropic --key-env ANTHROPIC_API_KEY --default claude-sonnet-4-5');
  }
  let conversation = options.conversation ? await shared.invoke('chat.get', { id: options.conversation }) : await shared.invoke('chat.create', model ? { model } : {});
  if (options.conversation && model) conversation = await shared.invoke('chat.setModel', { id: conversation.id, model });
  if (options.servers !== undefined) {
    const names = options.servers.split(',').map((name) => name.trim()).filter(Boolean);
    const known = new Set((await shared.invoke('servers.list', {})).map((server) => server.name));
    const unknown = names.filter((name) => !known.has(name));
    if (unknown.length) throw new CliExit(EXIT.usage, `--servers: there is no server named ${unknown.join(', ')}.`);
    conversation = await shared.invoke('chat.setTools', { id: conversation.id, tools: { servers: names, hiddenTools: [] } });
  }
  return conversation;
}

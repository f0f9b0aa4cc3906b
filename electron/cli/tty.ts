/**
 * The terminal a gateway asks on while stdin and stdout carry MCP — its
 * controlling terminal (/dev/tty), one question at a time, and its width —
 * and the questions about servers' own requests (sampling, elicitation)
 * asked there. Tool confirmations are laid out by confirmation-prompt.ts
 * and routed by terminal-confirmations.ts.
 *
 * SECURITY: only a gateway a person started in their own terminal asks here
 * (see gateway-shell.ts); everything a server wrote is printed inert and
 * marked as the server's; sending anything to a model needs the code shown.
 */
import { createReadStream, createWriteStream, openSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { WriteStream } from 'node:tty';
import type { ServerRequestView } from '../../shared/views';
import type { AirlockHost } from '../core/host';
import type { ShellIdentity } from '../core/ipc/shell-identity';
import { answererOf, isRoutedTo, toServerRequestView } from '../core/server-requests';
import { judgeTerminalAnswer, newAnswerCode } from './confirmation-prompt';
import { inert } from './format';
import { fitToTerminal, quoteBlock } from './server-text';
import type { AskingTerminal } from './terminal-confirmations';

/** A terminal Airlock asks on: one question at a time, withdrawn by `signal`; its width. */
export interface Terminal extends AskingTerminal {
  ask(question: string, signal?: AbortSignal): Promise<string>;
  columns(): number;
  close(): void;
}

/** The process's controlling terminal (/dev/tty), when it has one. */
export function openTerminal(): Terminal | undefined {
  if (process.platform === 'win32') return undefined;
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'r+');
  } catch {
    return undefined;
  }
  const input = createReadStream('', { fd, autoClose: false });
  const output = createWriteStream('', { fd, autoClose: false });
  const rl = createInterface({ input, output });
  // The width comes from a second, write-only handle (a tty.WriteStream changes its handle's mode; the reader keeps its own).
  let size: WriteStream | undefined;
  try {
    size = new WriteStream(openSync('/dev/tty', 'w'));
    size.unref();
  } catch {
    size = undefined;
  }
  // One question at a time; the MCP traffic on stdin/stdout goes on meanwhile.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    ask(question, signal) {
      const next = queue.then(() => rl.question(question, signal ? { signal } : {}));
      queue = next.catch(() => {}); // Each question's own promise reports its failure; the queue only keeps them in order.
      return next.then((answer) => answer.trim());
    },
    columns: () => size?.columns || 80,
    close: () => {
      rl.close();
      input.destroy();
      output.destroy();
      size?.destroy();
    },
  };
}

/** The server's own words, quoted and inert — every row behind the gutter — so they cannot pass for Airlock's. */
function quoted(text: string): string {
  return quoteBlock(text, { indent: '  ', maxChars: 4000 }).join('\n');
}

function contentText(content: unknown): string {
  const items = Array.isArray(content) ? content : [content];
  return items.map((item) => (item && typeof item === 'object' && (item as { type?: unknown }).type === 'text' ? String((item as { text?: unknown }).text ?? '') : `[${String((item as { type?: unknown })?.type ?? 'content')}]`)).join('\n');
}

/**
 * Shows a question about a server's request on the terminal and answers
 * it: a sampling request (allow once, edit the last message, or deny), the
 * model's answer (send or refuse), a form (answer field by field, decline
 * or cancel) or a URL (printed in full; the person opens it themselves).
 */
export async function askServerRequestOnTerminal(host: Pick<AirlockHost, 'serverRequests'>, terminal: AskingTerminal, question: ServerRequestView, shell: ShellIdentity): Promise<void> {
  // Answered as this terminal, by the origin the owner knows it by: the queue takes only questions routed here.
  const by = answererOf(shell);
  const answer = (value: unknown) => host.serverRequests.answer(question.id, value, by);
  const header = [`\n── Airlock: ${inert(question.headline)} ──`, ...question.reasons.map((reason) => `  ${inert(reason)}`)];
  // Airlock wraps every row to the terminal's width itself: a long value cannot wrap onto a row of its own.
  const ask = (text: string) => terminal.ask(fitToTerminal(text, terminal.columns?.()));
  switch (question.kind) {
    case 'sampling-request': {
      // SECURITY: as for tool calls, only the code shown here sends — "y⏎" meant for another program denies.
      const code = newAnswerCode();
      const lines = [
        ...header,
        `  The server's request (its own words):`,
        ...(question.systemPrompt ? [`  system prompt:`, quoted(question.systemPrompt)] : []),
        ...question.messages.map((message) => `  ${message.role}:\n${quoted(contentText(message.content))}`),
        `  context asked for: ${question.includeContext} · up to ${question.maxTokens} tokens (your limit: ${question.limits.maxTokens})`,
        `To send it to the model once, type the code “${code}”; “e” edits the last message first; anything else denies: `,
      ];
      const reply = await ask(lines.join('\n'));
      if (reply.trim().toLowerCase() === 'e') {
        const text = await ask('New text for the last message: ');
        const messages = structuredClone(question.params.messages) as Array<{ role: string; content: unknown }>;
        if (messages.length > 0) messages[messages.length - 1]!.content = { type: 'text', text };
        const result = answer({ choice: 'allow-once', params: { ...question.params, messages } });
        if (!result.accepted) answer({ choice: 'deny' });
        return;
      }
      answer({ choice: judgeTerminalAnswer(reply, code) === 'allow' ? 'allow-once' : 'deny' });
      return;
    }
    case 'sampling-response': {
      const code = newAnswerCode();
      const result = question.result as { model?: unknown; content?: unknown };
      const lines = [...header, `  ${question.answererLabel} (${inert(String(result.model ?? ''))}) answered:`, quoted(contentText(result.content)), `To send this answer back to ${inert(question.server)}, type the code “${code}” (anything else refuses): `];
      answer({ choice: judgeTerminalAnswer(await ask(lines.join('\n')), code) === 'allow' ? 'approve' : 'refuse' });
      return;
    }
    case 'elicitation-form': {
      const lines = [
        ...header,
        `  ${question.server} says:`,
        quoted(question.message),
        ...question.fields.map((field) => `  - ${inert(field.title ?? field.key)}${field.required ? ' (required)' : ''}${field.secretLooking ? '  !! looks like it asks for a secret' : ''}${field.description ? `: ${inert(field.description)}` : ''}`),
        'Answer it? [y = answer / n = decline / Enter = cancel] ',
      ];
      const reply = (await ask(lines.join('\n'))).toLowerCase();
      if (reply === 'n' || reply === 'no') return void answer({ action: 'decline' });
      if (reply !== 'y' && reply !== 'yes') return void answer({ action: 'cancel' });
      const content: Record<string, unknown> = {};
      for (const field of question.fields) {
        const options = field.options ? ` (${field.options.map((o) => `${o.value}${o.title !== o.value ? `=${inert(o.title)}` : ''}`).join(', ')}${field.type === 'choices' ? '; separate with commas' : ''})` : '';
        const shown = field.default !== undefined ? ` [${inert(JSON.stringify(field.default))}; Enter keeps it]` : field.required ? '' : ' [Enter skips]';
        const raw = await ask(`  ${inert(field.title ?? field.key)}${options}${shown}: `);
        if (raw === '') {
          // The default is taken only because the person pressed Enter on it, shown.
          if (field.default !== undefined) content[field.key] = field.default;
          continue;
        }
        content[field.key] =
          field.type === 'boolean' ? /^(y|yes|true)$/i.test(raw) : field.type === 'number' || field.type === 'integer' ? Number(raw) : field.type === 'choices' ? raw.split(',').map((v) => v.trim()).filter(Boolean) : raw;
      }
      const result = answer({ action: 'accept', content });
      if (!result.accepted) {
        await ask(`  Airlock did not send that: ${result.reason ?? 'it does not fit the form'}. Press Enter; the question is cancelled.`);
        answer({ action: 'cancel' });
      }
      return;
    }
    case 'elicitation-url': {
      const lines = [
        ...header,
        `  ${question.server} says:`,
        quoted(question.message),
        `  The address, in full: ${inert(question.url)}`,
        `  It goes to: ${inert(question.host.toUpperCase())}${question.punycode ? `  !! an internationalised name (${inert(question.asciiHost)}) that can look like another site` : ''}`,
        '  Airlock does not open it for you here. Open it yourself in your browser if you want to.',
        'Did you complete it? [d = done / n = decline / Enter = cancel] ',
      ];
      const reply = (await ask(lines.join('\n'))).toLowerCase();
      answer({ action: reply === 'd' || reply === 'done' ? 'accept' : reply === 'n' ? 'decline' : 'cancel' });
      return;
    }
  }
}

/** Asks the questions about `host`'s servers' requests (sampling, elicitation) routed to `shell` on `terminal`; returns the unsubscribe. */
export function askServerRequestsOnTerminal(host: AirlockHost, terminal: Terminal, shell: ShellIdentity): () => void {
  const by = answererOf(shell);
  return host.serverRequests.onDidOpen((entry) => {
    if (!isRoutedTo(entry, by)) return;
    // A terminal that fails to ask leaves the question to its deadline (it expires as unanswered, and is logged so).
    void askServerRequestOnTerminal(host, terminal, toServerRequestView(entry), shell).catch(() => {});
  });
}

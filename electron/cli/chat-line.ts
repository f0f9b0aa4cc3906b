/**
 * A line typed to `airlock chat` (or given with `-m`), read for the same `/`
 * and `@` the app's composer has: `/PROMPT arg=value … [-- message]` uses a
 * server's prompt (`/SERVER:PROMPT` when two servers offer one of that name),
 * and `@SERVER:URI` attaches a resource the conversation's servers offer. `/`
 * alone lists the prompts, `@` alone the resources; `//…` is text starting
 * with a slash.
 *
 * Only what the servers offer counts: an `@` word that names no offered
 * resource (an e-mail address, a handle) stays text, unless it names one of
 * the servers (then it is a typo, said as one). Pure: the caller fetches
 * what is offered (`chat.commands`) only when the line asks for it.
 */
import type { ChatCommandsView } from '../../shared/chat';

type OfferedPrompt = ChatCommandsView['prompts'][number];

/** What a line asks for. */
export type ChatLine =
  | { kind: 'text'; text: string }
  | { kind: 'list'; what: 'prompts' | 'resources' }
  | {
      kind: 'send';
      text: string;
      prompt?: { server: string; name: string; arguments: Record<string, string> };
      resources: Array<{ server: string; uri: string }>;
      /** Required arguments of the prompt the line did not give (a terminal asks for them). */
      missing: Array<{ name: string; description?: string }>;
    }
  | { kind: 'error'; message: string };

/** Whether the line uses `/` or `@` at all (only then is what the servers offer fetched). */
export function usesCommands(line: string): boolean {
  const trimmed = line.trimStart();
  return (trimmed.startsWith('/') && !trimmed.startsWith('//')) || /(^|\s)@[a-z0-9][a-z0-9-]*:\S/.test(line) || line.trim() === '@';
}

/** Reads a line against what the conversation's servers offer. */
export function readChatLine(line: string, offered: ChatCommandsView): ChatLine {
  const trimmed = line.trim();
  // `//…` is text that starts with a slash (a path): sent with one slash.
  if (trimmed.startsWith('//')) return { kind: 'text', text: line.replace('//', '/') };
  if (trimmed === '/') return { kind: 'list', what: 'prompts' };
  if (trimmed === '@') return { kind: 'list', what: 'resources' };
  if (!usesCommands(line)) return { kind: 'text', text: line };
  if (!offered.available) return trimmed.startsWith('/') ? { kind: 'error', message: 'Prompts and resources from servers are not available here.' } : { kind: 'text', text: line };

  let rest = line;
  let prompt: { server: string; name: string; arguments: Record<string, string> } | undefined;
  let missing: Array<{ name: string; description?: string }> = [];
  if (trimmed.startsWith('/')) {
    const [, head = '', after = ''] = /^(\S*)\s*([\s\S]*)$/.exec(trimmed.slice(1))!;
    const found = findPrompt(head, offered.prompts);
    if (typeof found === 'string') return { kind: 'error', message: found };
    const parsed = readArguments(after, found);
    if (typeof parsed === 'string') return { kind: 'error', message: parsed };
    prompt = { server: found.server, name: found.name, arguments: parsed.arguments };
    missing = (found.arguments ?? []).filter((arg) => arg.required && !Object.hasOwn(parsed.arguments, arg.name)).map((arg) => ({ name: arg.name, ...(arg.description ? { description: arg.description } : {}) }));
    rest = parsed.message;
  }

  const resources: Array<{ server: string; uri: string }> = [];
  const servers = new Set([...offered.resources.map((resource) => resource.server), ...offered.prompts.map((p) => p.server)]);
  const words: string[] = [];
  for (const word of rest.split(/(\s+)/)) {
    const attach = /^@([a-z0-9][a-z0-9-]*):(\S+)$/.exec(word);
    if (!attach) {
      words.push(word);
      continue;
    }
    const [, server = '', uri = ''] = attach;
    if (offered.resources.some((resource) => resource.server === server && resource.uri === uri)) {
      if (!resources.some((resource) => resource.server === server && resource.uri === uri)) resources.push({ server, uri });
    } else if (servers.has(server)) {
      return { kind: 'error', message: `${server} offers no resource ${uri}. Type @ alone to list what can be attached.` };
    } else words.push(word);
  }
  const text = words.join('').replace(/\s+/g, (space) => (space.includes('\n') ? '\n' : ' ')).trim();
  if (!prompt && resources.length === 0) return { kind: 'text', text: line };
  return { kind: 'send', text, ...(prompt ? { prompt } : {}), resources, missing };
}

/** The listing `/` or `@` prints: one offer per line, the server's words as they are (the caller makes them inert). */
export function listOffers(what: 'prompts' | 'resources', offered: ChatCommandsView): string[] {
  if (!offered.available) return ['Prompts and resources from servers are not available here.'];
  if (what === 'prompts') {
    if (offered.prompts.length === 0) return ['No prompts: none of this conversation’s servers offers one.'];
    const ambiguous = (name: string) => offered.prompts.filter((p) => p.name === name).length > 1;
    return offered.prompts.map((p) => {
      const args = (p.arguments ?? []).map((arg) => `${arg.name}=…${arg.required ? '' : ' (optional)'}`).join(' ');
      return `/${ambiguous(p.name) ? `${p.server}:` : ''}${p.name}${args ? ` ${args}` : ''} — ${p.server}’s prompt${p.description ? `: ${p.description}` : ''}`;
    });
  }
  if (offered.resources.length === 0) return ['No resources: none of this conversation’s servers offers one.'];
  return offered.resources.map((resource) => `@${resource.server}:${resource.uri}${resource.name ? ` — ${resource.name}` : ''}`);
}

/** The prompt `/HEAD` names: `SERVER:NAME`, or a name only one server offers. */
function findPrompt(head: string, prompts: readonly OfferedPrompt[]): OfferedPrompt | string {
  const colon = head.indexOf(':');
  const server = colon > 0 ? head.slice(0, colon) : undefined;
  const name = colon > 0 ? head.slice(colon + 1) : head;
  const matches = prompts.filter((p) => p.name === name && (server === undefined || p.server === server));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) return `Two servers offer /${name} (${matches.map((p) => p.server).join(', ')}): say which, e.g. /${matches[0]!.server}:${name}.`;
  return `No prompt /${head} among this conversation’s servers. Type / alone to list them.`;
}

/** `key=value` pairs (values quoted with "…" or '…' may hold spaces), then, after `--`, the message. */
function readArguments(text: string, prompt: OfferedPrompt): { arguments: Record<string, string>; message: string } | string {
  const known = new Map((prompt.arguments ?? []).map((arg) => [arg.name, arg]));
  // Names are data (a server may name an argument `__proto__`): a record without a prototype.
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  let at = 0;
  const pair = /\s*([^\s=]+)=("((?:[^"\\]|\\.)*)"|'([^']*)'|(\S*))/y;
  for (;;) {
    const space = /\s*/y;
    space.lastIndex = at;
    space.exec(text);
    at = space.lastIndex;
    if (at >= text.length) return { arguments: out, message: '' };
    if (text.startsWith('--', at) && (at + 2 === text.length || /\s/.test(text[at + 2]!))) return { arguments: out, message: text.slice(at + 2).trim() };
    pair.lastIndex = at;
    const match = pair.exec(text);
    if (!match) {
      const names = [...known.keys()];
      return `After /${prompt.name} come its arguments as name=value${names.length ? ` (${names.join(', ')})` : ' (it takes none)'}, then -- and your message. “${text.slice(at).split(/\s/)[0]}” is neither.`;
    }
    const [, key = '', , doubleQuoted, singleQuoted, bare] = match;
    if (!known.has(key)) return `/${prompt.name} takes no argument ${key}${known.size ? `; it takes ${[...known.keys()].join(', ')}` : ''}.`;
    out[key] = doubleQuoted !== undefined ? doubleQuoted.replace(/\\(.)/g, '$1') : (singleQuoted ?? bare ?? '');
    at = pair.lastIndex;
  }
}

import type { ToolDefinition } from '../../../shared/domain';
import type { ToolWarning } from '../../../shared/views';
import { readTool } from '../policy/annotations';

/**
 * Signals of tool poisoning and shadowing (SECURITY.md, "Attacks to design
 * against"): text that addresses the model, mentions of other tools or
 * servers, secret-looking paths, hidden characters, name collisions. Signals
 * inform the person; approval and the sandbox are what protect.
 */
export interface ToolWarningContext {
  /** This tool's server. */
  server: string;
  /** Other servers' tool names (for collisions and cross-references), by server. */
  otherServersTools: ReadonlyMap<string, readonly string[]>;
  /** Whether the server's profile grants any network. */
  hasNetwork: boolean;
  /** This server's own tool names: a description naming one of them refers to its own tool, not another server's. */
  ownTools?: readonly string[];
}

/** Text that gives orders to the model rather than describing something (also used on tool results, agent/result-safety.ts). */
export const MODEL_ADDRESS: readonly RegExp[] = [
  /\bignore (all |any |the )?(previous|prior|above|earlier)\b/i,
  /\b(before|after) (answering|responding|using|calling)\b/i,
  // "Use this tool when you need to…" is ordinary documentation; orders to the model are not.
  /\byou must (always|never|first|not|ignore|call|use|send|include|read)\b/i,
  /\balways (use|call|run|send|include|read|pass)\b/i,
  /\bnever (tell|mention|reveal|show|inform)\b/i,
  /\bdo not (tell|mention|reveal|show|inform)\b/i,
  /<\s*(important|system|instructions?)\s*>/i,
  /\b(the )?(assistant|model|ai|llm)\b.{0,40}\b(must|should)\b/i,
];

/** Places where secrets are kept. */
export const SECRET_PATHS: readonly RegExp[] = [/~\/\.ssh\b/, /\bid_(rsa|ed25519|ecdsa)\b/, /~\/\.aws\b/, /\.aws\/credentials/, /~\/\.gnupg\b/, /\.config\/gcloud/, /(^|[\s/'"])\.env\b/, /\bmcp\.json\b/, /claude_desktop_config\.json/, /\/etc\/(passwd|shadow)\b/];

// Bidi controls, zero-width characters, C0/C1 controls other than tab/newline.
export const HIDDEN = /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2060-\u2064\uFEFF\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\u{E0000}-\u{E007F}]/u;

/** Longest description that is still reasonable to show in full. */
export const LONG_DESCRIPTION = 16_384;

/** Every piece of server text a tool carries: description, title, parameter descriptions. */
export function toolTexts(definition: ToolDefinition): string[] {
  const texts: string[] = [];
  const push = (value: unknown) => {
    if (typeof value === 'string' && value) texts.push(value);
  };
  push(definition.name);
  push(definition.title);
  push(definition.description);
  push(definition.annotations?.title);
  const visit = (schema: unknown, depth: number) => {
    if (depth > 8 || schema === null || typeof schema !== 'object') return;
    const record = schema as Record<string, unknown>;
    push(record.description);
    push(record.title);
    for (const key of ['properties', 'items', 'anyOf', 'oneOf', 'allOf', '$defs', 'definitions']) {
      const child = record[key];
      if (Array.isArray(child)) child.forEach((item) => visit(item, depth + 1));
      else if (child && typeof child === 'object') {
        if (key === 'items') visit(child, depth + 1);
        else for (const value of Object.values(child)) visit(value, depth + 1);
      }
    }
  };
  visit(definition.inputSchema, 0);
  return texts;
}

/** True when text carries hidden, bidi or control characters (shown as visible markers). */
export function hasHiddenCharacters(text: string): boolean {
  return HIDDEN.test(text);
}

/** True when prose gives orders to the AI model ("ignore previous…", "you must always…"). */
export function addressesModel(text: string): boolean {
  return MODEL_ADDRESS.some((pattern) => pattern.test(text));
}

/** The warnings for one tool. Pure. */
export function toolWarnings(definition: ToolDefinition, context: ToolWarningContext): ToolWarning[] {
  const warnings: ToolWarning[] = [];
  const texts = toolTexts(definition);
  const prose = texts.slice(1).join('\n');
  const reading = readTool(definition.annotations);
  if (reading.contradictory) {
    warnings.push({ kind: 'contradictory', message: 'It claims to be read-only and destructive at once; Airlock treats it as destructive.' });
  }
  if (MODEL_ADDRESS.some((pattern) => pattern.test(prose))) {
    warnings.push({ kind: 'addresses-model', message: 'Its description gives instructions to the AI model, not just a description of the tool.' });
  }
  const mentioned = new Set<string>();
  // Every pattern below needs its name in the text: a plain substring test first spares building a
  // pattern per other tool (2,000 tools made a detail page build 80,000 of them). Same result.
  const lowerProse = prose.toLowerCase();
  for (const [server, tools] of context.otherServersTools) {
    if (server === context.server) continue;
    // A tool name counts when it reads as an identifier (`read_file`, `sendEmail`), not as an
    // ordinary word another server's docs use anyway ("search", "files").
    for (const tool of tools) {
      if (tool.length < 4 || !prose.includes(tool) || !looksLikeIdentifier(tool)) continue;
      // A name this server offers too counts only when qualified by the other server ("files
      // read_text_file", files__read_text_file: the shadowing pattern); unqualified, it names its own.
      const pattern = context.ownTools?.includes(tool)
        ? `\\b${escapeRegExp(server)}(?:\\s*›\\s*|\\s+|__|\\.)${escapeRegExp(tool)}\\b`
        : `(?:\\b|__)${escapeRegExp(tool)}\\b`;
      if (new RegExp(pattern).test(prose)) mentioned.add(`${server} › ${tool}`);
    }
    // A server counts when named as one ("the files server", `files__x`, "files › x"), not as a word.
    const named = escapeRegExp(server);
    const maybeNamed = !/^[\x20-\x7e]*$/.test(server) || lowerProse.includes(server.toLowerCase());
    if (server.length >= 4 && maybeNamed && new RegExp(`\\b${named}__|\\b${named}\\s*›|\\b${named}['’]s\\b|\\b${named}\\s+(?:server|mcp|tools?)\\b|\\bserver\\s+${named}\\b`, 'i').test(prose)) mentioned.add(server);
  }
  if (mentioned.size > 0) {
    warnings.push({ kind: 'mentions-other-tool', message: `Its description mentions another server's tools: ${[...mentioned].slice(0, 5).join(', ')}.` });
  }
  if (SECRET_PATHS.some((pattern) => pattern.test(prose))) {
    warnings.push({ kind: 'secret-path', message: 'Its description mentions a place where secrets are kept (keys, credentials or config files).' });
  }
  if (texts.some((text) => HIDDEN.test(text))) {
    warnings.push({ kind: 'hidden-characters', message: 'Its name or description contains hidden or direction-changing characters; they are shown as visible markers.' });
  }
  const collisions = [...context.otherServersTools].filter(([server, tools]) => server !== context.server && tools.includes(definition.name)).map(([server]) => server);
  if (collisions.length > 0) {
    warnings.push({ kind: 'name-collision', message: `Another server offers a tool with the same name (${collisions.join(', ')}). Airlock keeps them apart by server.` });
  }
  if ((definition.description?.length ?? 0) > LONG_DESCRIPTION) {
    warnings.push({ kind: 'oversized', message: `Its description is unusually long (${definition.description!.length.toLocaleString('en')} characters).` });
  }
  if (reading.openWorld && !context.hasNetwork && definition.annotations?.openWorldHint === true) {
    warnings.push({ kind: 'open-world-without-network', message: 'It claims it reaches the internet, but has no network access.' });
  }
  return warnings;
}

function looksLikeIdentifier(name: string): boolean {
  return /[_.-]/.test(name) || /[a-z][A-Z]/.test(name);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

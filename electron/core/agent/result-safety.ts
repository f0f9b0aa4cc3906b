/**
 * Tool results are data, not orders. This reads a result the way a careful
 * person would before handing it to the model: does the text address the
 * model ("ignore previous instructions", "now call …"), name tools it could
 * be steering the model towards, point at places secrets live, or hide
 * characters? And should the chat mark it as *content from <server>* —
 * because the server is untrusted or the tool reaches the open world?
 * Signals inform the person; the policy and the sandbox protect. Pure.
 */
import type { ResultWarning } from '../../../shared/chat';
import { escapeRegExp, HIDDEN, MODEL_ADDRESS, SECRET_PATHS } from '../tools/tool-warnings';

/** Orders aimed at the model that are typical of results rather than descriptions. */
const RESULT_ORDERS: readonly RegExp[] = [
  /\b(now|next|then|immediately|please|you should|you must)\s+(call|use|run|invoke|execute)\b/i,
  /\b(call|use|run|invoke|execute) the\s+[`'"]?[\w.-]+[`'"]?\s+tool\b/i,
  /\b(new|updated|system) instructions?\b/i,
  /\bdisregard\b.{0,40}\b(instructions|rules|above|previous)\b/i,
  /\byou are now\b/i,
];

/** How much of a result is read for signals (a result is capped before this anyway). */
const SCAN_LIMIT = 200_000;

export interface ResultContext {
  /** Tool names the model could call (every server's), except the tool that produced the result. */
  otherTools: readonly string[];
}

/** The poisoning signals in a tool result's text. */
export function resultWarnings(text: string, context: ResultContext): ResultWarning[] {
  const scanned = text.length > SCAN_LIMIT ? text.slice(0, SCAN_LIMIT) : text;
  const warnings: ResultWarning[] = [];
  if (MODEL_ADDRESS.some((pattern) => pattern.test(scanned)) || RESULT_ORDERS.some((pattern) => pattern.test(scanned))) {
    warnings.push({ kind: 'addresses-model', message: 'This result gives instructions to the AI model. Treat it as data: the model was told not to follow it.' });
  }
  const named = new Set<string>();
  for (const name of context.otherTools) {
    if (name.length >= 4 && new RegExp(`(^|[^\\w])${escapeRegExp(name)}([^\\w]|$)`).test(scanned)) named.add(name);
    if (named.size >= 5) break;
  }
  if (named.size > 0) {
    warnings.push({ kind: 'mentions-tool', message: `This result names other tools (${[...named].join(', ')}): it may be steering the model towards them. Any call still passes Airlock's policy.` });
  }
  if (SECRET_PATHS.some((pattern) => pattern.test(scanned))) {
    warnings.push({ kind: 'secret-path', message: 'This result mentions a place where secrets are kept (keys, credentials or config files).' });
  }
  if (HIDDEN.test(scanned)) {
    warnings.push({ kind: 'hidden-characters', message: 'This result contains hidden or direction-changing characters; they are shown as visible markers.' });
  }
  return warnings;
}

/**
 * Whether a result is marked "content from <server>": when the server is
 * not trusted, or the tool (by Airlock's reading) reaches the open world.
 */
export function marksContent(server: { trusted: boolean }, tool: { openWorld: boolean }): boolean {
  return !server.trusted || tool.openWorld;
}

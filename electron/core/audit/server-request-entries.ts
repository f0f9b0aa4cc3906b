/**
 * Audit entries for requests *from* servers (sampling, elicitation, roots):
 * the decision, written before a model, a person or a folder list is
 * involved, and the outcome, written after. They share the log's one hash
 * chain with tool calls; `AuditLog.appendServerRequest` writes them, and
 * `readServerRequestEntries` reads them back from the log's files (using only
 * the log's public surface).
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { Verdict } from '../../../shared/domain';

/**
 * The kinds of requests a server may send back. `screen`: what a server's
 * screen (MCP Apps) asked of Airlock's window — a tool call refused before
 * the call pipeline, a link to open, a message for the chat — its method
 * in the entry's `tool` field.
 */
export type ServerRequestAuditKind = 'sampling' | 'elicitation' | 'roots' | 'screen';

/** The MCP method of each kind (the `tool` field of the entry), unless the input names its own. */
export const SERVER_REQUEST_METHODS: Record<ServerRequestAuditKind, string> = {
  sampling: 'sampling/createMessage',
  elicitation: 'elicitation/create',
  roots: 'roots/list',
  screen: 'ui/request',
};

/** What `appendServerRequest` takes. Summaries are already redacted by the caller. */
export interface ServerRequestAuditInput {
  /** Joins a decision with its outcome. */
  requestId: string;
  server: string;
  kind: ServerRequestAuditKind;
  /** The request's own method, when the kind has several (`screen`: `tools/call`, `ui/open-link`, `ui/message`…). */
  method?: string;
  stage: 'decision' | 'outcome';
  /** decision: what the policy said and what happened. */
  verdict?: Verdict;
  final?: 'allow' | 'deny';
  reasons?: readonly string[];
  decidedBy?: string;
  /** decision: who is asked or answers (`airlock`, `client`, `model`), and who that is. */
  route?: string;
  answerer?: string;
  /** How a person answered (`allow-once`, `deny`, `accept`, `expired`…), where, and whether they edited. */
  answer?: { how: string; by?: string; edited?: boolean } | null;
  /** A redacted summary of what the server asked. */
  request?: unknown;
  /** outcome: `answered`, `refused`, `failed`, `accept`, `decline`, `cancel`. */
  outcome?: string;
  /** outcome: a redacted summary of what went back to the server. */
  response?: unknown;
  durationMs?: number;
  detail?: string;
}

/** One server-request line of the log. */
export interface ServerRequestAuditEntry {
  v: 1;
  seq: number;
  time: string;
  type: 'server-request';
  callId: string;
  server: string;
  tool: string;
  kind: ServerRequestAuditKind;
  stage: 'decision' | 'outcome';
  verdict?: Verdict;
  final?: 'allow' | 'deny';
  reasons?: string[];
  decidedBy?: string;
  route?: string;
  answerer?: string;
  answer?: { how: string; by?: string; edited?: boolean };
  request?: unknown;
  outcome?: string;
  response?: unknown;
  durationMs?: number;
  detail?: string;
  prevHash: string;
  hash: string;
}

/** The body the log chains (everything but v, seq, time, prevHash and hash). */
export function serverRequestBody(input: ServerRequestAuditInput): Record<string, unknown> {
  return {
    type: 'server-request',
    callId: String(input.requestId),
    server: String(input.server),
    tool: input.method !== undefined ? String(input.method).slice(0, 100) : SERVER_REQUEST_METHODS[input.kind] ?? String(input.kind),
    kind: input.kind,
    stage: input.stage,
    ...(input.verdict ? { verdict: input.verdict } : {}),
    ...(input.final ? { final: input.final } : {}),
    ...(input.reasons ? { reasons: [...input.reasons].map(String) } : {}),
    ...(input.decidedBy ? { decidedBy: String(input.decidedBy) } : {}),
    ...(input.route ? { route: String(input.route) } : {}),
    ...(input.answerer ? { answerer: String(input.answerer).slice(0, 200) } : {}),
    ...(input.answer ? { answer: { how: String(input.answer.how), ...(input.answer.by ? { by: String(input.answer.by) } : {}), ...(input.answer.edited ? { edited: true } : {}) } } : {}),
    ...(input.request !== undefined ? { request: input.request } : {}),
    ...(input.outcome ? { outcome: String(input.outcome) } : {}),
    ...(input.response !== undefined ? { response: input.response } : {}),
    ...(input.durationMs !== undefined ? { durationMs: Math.max(0, Math.round(input.durationMs)) } : {}),
    ...(input.detail !== undefined ? { detail: String(input.detail).slice(0, 500) } : {}),
  };
}

/** A decision with its outcome, as `readServerRequestEntries` returns them (newest first). */
export interface ServerRequestAuditRecord {
  decision: ServerRequestAuditEntry;
  outcome?: ServerRequestAuditEntry;
}

/**
 * The server-request entries of the log, newest first, each decision with its
 * outcome. Reads the log's files as they are (verification is `verify()`'s job).
 */
export async function readServerRequestEntries(
  log: { dir: string; files(): Promise<string[]> },
  query: { server?: string; kind?: ServerRequestAuditKind; limit?: number } = {},
): Promise<ServerRequestAuditRecord[]> {
  const decisions: ServerRequestAuditEntry[] = [];
  const outcomes = new Map<string, ServerRequestAuditEntry>();
  for (const file of await log.files()) {
    let text: string;
    try {
      text = await fs.readFile(join(log.dir, file), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (!line.includes('"server-request"')) continue;
      let entry: ServerRequestAuditEntry;
      try {
        entry = JSON.parse(line) as ServerRequestAuditEntry;
      } catch {
        continue;
      }
      if (entry.type !== 'server-request') continue;
      if (entry.stage === 'outcome') outcomes.set(entry.callId, entry);
      else decisions.push(entry);
    }
  }
  const limit = query.limit ?? 100;
  const out: ServerRequestAuditRecord[] = [];
  for (let i = decisions.length - 1; i >= 0 && out.length < limit; i--) {
    const decision = decisions[i]!;
    if (query.server !== undefined && decision.server !== query.server) continue;
    if (query.kind !== undefined && decision.kind !== query.kind) continue;
    const outcome = outcomes.get(decision.callId);
    out.push(outcome ? { decision, outcome } : { decision });
  }
  return out;
}

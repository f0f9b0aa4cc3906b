/**
 * Malformed params of a known MCP request are the client's mistake, and are
 * answered as one: JSON-RPC "Invalid params" (-32602) saying which field was
 * wrong and how, before any handler runs.
 *
 * Why this exists: the SDK's `Protocol` parses a request with its handler's
 * schema inside the handler wrapper, so a zod error escapes as "Internal
 * error" (-32603) whose message is the raw issue dump — telling an app that
 * Airlock broke when the app sent `arguments: null` (found by the gateway
 * fuzz, test/reliability/gateway-fuzz.test.ts).
 *
 * Invariant guarded: a request of a method MCP defines reaches a handler only
 * when its params match MCP's schema for it; unknown methods are left to the
 * SDK (Method not found). Each request is parsed once here; `tools/call`'s
 * handler takes only params parsed here (`ParsedCallToolRequestSchema`).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ClientRequestSchema, ErrorCode, type CallToolRequest, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { messageOf } from '../errors';

type RequestSchema = (typeof ClientRequestSchema.options)[number];

/** Every request a client may send, by method. */
const SCHEMAS = new Map<string, RequestSchema>(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

const MAX_ISSUES = 3;
const MAX_PATH = 80;

/** The params of `tools/call` requests parsed here: the only ones the gateway's handler takes. */
const parsedToolCalls = new WeakSet<object>();

/**
 * What the gateway's `tools/call` handler is registered with: params that
 * `refuseMalformedRequests` parsed against MCP's CallToolRequestSchema for
 * this very message. A call is parsed once, not twice (issue 15: the SDK's
 * `Protocol` would parse it again with the handler's schema); a request
 * that did not go through that parse fails here (fail closed).
 */
export const ParsedCallToolRequestSchema = z.object({
  method: z.literal('tools/call'),
  params: z.custom<CallToolRequest['params']>(
    (value) => typeof value === 'object' && value !== null && parsedToolCalls.has(value),
    'the tools/call params were not checked by the gateway',
  ),
});

/**
 * A client's message checked before any handler: a request of a method MCP
 * defines must match MCP's schema for it (its params parsed, for
 * `tools/call`, into what the handler takes); anything else is left as it
 * is — unknown methods to the SDK (Method not found). `problem`: what is
 * wrong, in words.
 */
export function checkRequest(message: JSONRPCMessage): { message: JSONRPCMessage; problem?: undefined } | { problem: string; request: JSONRPCRequest } {
  // The transport delivered a JSON-RPC message (it checked the envelope): a request is one with a method and an id.
  if (!('method' in message) || !('id' in message)) return { message };
  const schema = SCHEMAS.get(message.method);
  if (!schema) return { message };
  const parsed = schema.safeParse(message);
  if (parsed.success) {
    if (parsed.data.method !== 'tools/call') return { message };
    parsedToolCalls.add(parsed.data.params);
    return { message: { ...message, params: parsed.data.params } };
  }
  const issues = parsed.error.issues.slice(0, MAX_ISSUES).map((issue) => {
    // The path names fields of the client's own message; bounded, since the client chose the keys.
    const path = issue.path.map(String).join('.').slice(0, MAX_PATH) || 'the request';
    return `${path}: ${issue.message}`;
  });
  const more = parsed.error.issues.length > MAX_ISSUES ? ` (and ${parsed.error.issues.length - MAX_ISSUES} more)` : '';
  return { problem: `Invalid params for ${message.method}: ${issues.join('; ')}${more}`, request: message };
}

/**
 * Wraps a connected transport's `onmessage` (set by `Server.connect`) so a
 * malformed request is answered with Invalid params and goes no further,
 * and a `tools/call` reaches its handler parsed.
 */
export function refuseMalformedRequests(transport: Transport, log: (message: string) => void): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('refuseMalformedRequests: the transport is not connected');
  transport.onmessage = (message, extra) => {
    const checked = checkRequest(message);
    if (checked.problem === undefined) return deliver(checked.message, extra);
    const { request } = checked;
    transport
      .send({ jsonrpc: '2.0', id: request.id, error: { code: ErrorCode.InvalidParams, message: checked.problem } }, { relatedRequestId: request.id })
      .catch((error: unknown) => log(`gateway: could not answer a malformed ${request.method}: ${messageOf(error)}`));
  };
}

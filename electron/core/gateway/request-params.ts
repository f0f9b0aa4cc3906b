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
 * SDK (Method not found).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ClientRequestSchema, ErrorCode, isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { messageOf } from '../errors';

type RequestSchema = (typeof ClientRequestSchema.options)[number];

/** Every request a client may send, by method. */
const SCHEMAS = new Map<string, RequestSchema>(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

const MAX_ISSUES = 3;
const MAX_PATH = 80;

/** What is wrong with a request of a known method, in words; undefined when it is fine or the method is not MCP's. */
export function malformedRequest(message: JSONRPCMessage): string | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  const schema = SCHEMAS.get(message.method);
  if (!schema) return undefined;
  const parsed = schema.safeParse(message);
  if (parsed.success) return undefined;
  const issues = parsed.error.issues.slice(0, MAX_ISSUES).map((issue) => {
    // The path names fields of the client's own message; bounded, since the client chose the keys.
    const path = issue.path.map(String).join('.').slice(0, MAX_PATH) || 'the request';
    return `${path}: ${issue.message}`;
  });
  const more = parsed.error.issues.length > MAX_ISSUES ? ` (and ${parsed.error.issues.length - MAX_ISSUES} more)` : '';
  return `Invalid params for ${message.method}: ${issues.join('; ')}${more}`;
}

/**
 * Wraps a connected transport's `onmessage` (set by `Server.connect`) so a
 * malformed request is answered with Invalid params and goes no further.
 */
export function refuseMalformedRequests(transport: Transport, log: (message: string) => void): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('refuseMalformedRequests: the transport is not connected');
  transport.onmessage = (message, extra) => {
    const problem = malformedRequest(message);
    if (problem === undefined || !isJSONRPCRequest(message)) return deliver(message, extra);
    transport
      .send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } }, { relatedRequestId: message.id })
      .catch((error: unknown) => log(`gateway: could not answer a malformed ${message.method}: ${messageOf(error)}`));
  };
}

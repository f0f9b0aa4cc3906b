/**
 * The gateway's one check of a client's request before any handler
 * (request-params.ts): malformed params are the client's mistake (Invalid
 * params, saying which field), and a `tools/call` is parsed once — its
 * handler's schema takes only params this check parsed, so a request that
 * did not pass it fails closed.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { checkRequest, ParsedCallToolRequestSchema } from '../../../electron/core/gateway/request-params';

const call = (params: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) as JSONRPCMessage;

describe('checkRequest', () => {
  it('hands a good tools/call on parsed, and only those params pass the handler’s schema', () => {
    const raw = call({ name: 'files__read', arguments: { path: '/tmp/a' }, _meta: { progressToken: 7 } });
    const checked = checkRequest(raw);
    expect(checked.problem).toBeUndefined();
    const delivered = (checked as { message: JSONRPCMessage }).message as { params: unknown };
    expect(delivered.params).toEqual({ name: 'files__read', arguments: { path: '/tmp/a' }, _meta: { progressToken: 7 } });
    expect(ParsedCallToolRequestSchema.safeParse(delivered).success).toBe(true);
    // The same request, not through the check (or its params copied): refused, never run unchecked.
    expect(ParsedCallToolRequestSchema.safeParse(raw).success).toBe(false);
    expect(ParsedCallToolRequestSchema.safeParse({ method: 'tools/call', params: { ...(delivered.params as object) } }).success).toBe(false);
  });

  it.each([
    ['arguments that are not an object', { name: 'files__read', arguments: null }, /^Invalid params for tools\/call: params\.arguments: /],
    ['a name that is not a string', { name: 5 }, /^Invalid params for tools\/call: params\.name: /],
    ['no params at all', undefined, /^Invalid params for tools\/call: params: /],
  ])('says what is wrong with %s', (_what, params, problem) => {
    expect(checkRequest(call(params)).problem).toMatch(problem);
  });

  it('leaves notifications, responses and methods MCP does not define as they are', () => {
    const messages: JSONRPCMessage[] = [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 3, result: {} },
      { jsonrpc: '2.0', id: 4, method: 'vendor/thing', params: { anything: true } },
      { jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} },
    ];
    for (const message of messages) {
      const checked = checkRequest(message);
      expect(checked.problem).toBeUndefined();
      expect((checked as { message: JSONRPCMessage }).message).toBe(message);
    }
  });
});

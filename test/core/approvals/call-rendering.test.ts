/**
 * The one rendering of a call: targets only from keys the tool's schema
 * declares, every declared target named, schema order, undeclared arguments
 * flagged, and server or client text kept one-line and inert.
 */
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../../shared/domain';
import { foldMiddle, oneLine, renderCall, type CallToRender } from '../../../electron/core/approvals/call-rendering';

/** server-filesystem's own move_file and write_file schemas (as its tools/list sends them). */
const MOVE_SCHEMA = { type: 'object', properties: { source: { type: 'string' }, destination: { type: 'string' } }, required: ['source', 'destination'] };
const WRITE_SCHEMA = { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] };
const client: Caller = { kind: 'client', name: 'Claude Desktop' };

function call(overrides: Partial<CallToRender>): CallToRender {
  return {
    server: 'files',
    tool: 'move_file',
    arguments: {},
    inputSchema: MOVE_SCHEMA,
    caller: client,
    reading: { toolClass: 'destructive' },
    serverTrusted: false,
    ...overrides,
  };
}

describe('renderCall', () => {
  it('the red team’s decoy: an undeclared `path` is never the target; source and destination both are', () => {
    const r = renderCall(call({ arguments: { path: 'W/old-cache.tmp', source: 'W/secret.txt', destination: 'W/overwritten.txt' } }));
    expect(r.targets).toEqual([
      { key: 'source', values: ['W/secret.txt'] },
      { key: 'destination', values: ['W/overwritten.txt'] },
    ]);
    expect(r.headline).toBe('Claude Desktop wants to run files › move_file on source W/secret.txt and destination W/overwritten.txt — it may delete or overwrite things.');
    expect(r.headline).not.toContain('old-cache');
    expect(r.restatement).toBe('files › move_file on source W/secret.txt and destination W/overwritten.txt');
    // Shown, but flagged and last: the tool does not declare it.
    expect(r.arguments.map((a) => [a.key, a.declared, a.target])).toEqual([
      ['source', true, true],
      ['destination', true, true],
      ['path', false, false],
    ]);
  });

  it('a key that merely looks like a target is not one unless the schema declares it', () => {
    const r = renderCall(call({ tool: 'tidy', inputSchema: { type: 'object', properties: { query: { type: 'string' } } }, arguments: { file: '/decoy', query: 'x' } }));
    expect(r.targets).toEqual([]);
    expect(r.headline).toBe('Claude Desktop wants to run files › tidy — it may delete or overwrite things.');
  });

  it('orders arguments as the schema declares them, not as the client sent them; undeclared ones sorted after', () => {
    const r = renderCall(call({ tool: 'write_file', inputSchema: WRITE_SCHEMA, arguments: { zeta: 1, content: 'text', alpha: true, path: '/home/me/.bashrc' } }));
    expect(r.arguments.map((a) => a.key)).toEqual(['path', 'content', 'alpha', 'zeta']);
    expect(r.arguments.find((a) => a.key === 'zeta')?.text).toBe('1');
  });

  it('names lists of paths and URI-formatted properties as targets, with the rest counted', () => {
    const r = renderCall(
      call({
        tool: 'read_multiple_files',
        reading: { toolClass: 'read-only' },
        inputSchema: { type: 'object', properties: { paths: { type: 'array', items: { type: 'string' } }, endpoint: { type: 'string', format: 'uri' } } },
        arguments: { endpoint: 'https://example.com/x', paths: ['/a', '/b', '/c', '/d', '/e'] },
      }),
    );
    expect(r.targets.map((t) => t.key)).toEqual(['paths', 'endpoint']);
    expect(r.restatement).toBe('files › read_multiple_files on paths /a, /b, /c and 2 more and endpoint https://example.com/x');
    expect(r.consequence).toBe('it says it only reads');
  });

  it('never takes a target from a schema’s inherited keys', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"message":{"type":"string"}}}') as Record<string, unknown>;
    const r = renderCall(call({ tool: 'echo', inputSchema: schema, arguments: { message: 'hi', constructor: '/x' } }));
    expect(r.targets).toEqual([]);
    expect(r.arguments.map((a) => [a.key, a.declared])).toEqual([
      ['message', true],
      ['constructor', false],
    ]);
  });

  it('keeps client and server text one-line and inert: a name or a value cannot start a new line of Airlock’s', () => {
    const r = renderCall(
      call({
        caller: { kind: 'client', name: 'Evil\n── Airlock: You\u202e' },
        tool: 'write_file',
        title: 'Write File ✓ Airlock verified',
        inputSchema: WRITE_SCHEMA,
        arguments: { path: '/tmp/a\n\u001b[2Jb', content: 'x' },
      }),
    );
    expect(r.who).toBe('Evil\\n── Airlock: You\\u{202e}');
    expect(r.headline).not.toMatch(/[\n\u001b\u202e]/);
    expect(r.headline).toContain('on path /tmp/a\\n\\u{1b}[2Jb');
    // The server's title is kept apart (shells quote it as the server's), never in Airlock's sentence.
    expect(r.serverTitle).toBe('Write File ✓ Airlock verified');
    expect(r.headline).not.toContain('verified');
    expect(r.restatement).not.toContain('verified');
  });

  it('the person’s own call reads “You are about to”, and a trusted read says it only reads', () => {
    const r = renderCall(call({ caller: { kind: 'cli' }, tool: 'read_text_file', reading: { toolClass: 'read-only' }, serverTrusted: true, inputSchema: WRITE_SCHEMA, arguments: { path: '/a' } }));
    expect(r.headline).toBe('You are about to run files › read_text_file on path /a — it only reads.');
  });

  it('folds long values in the middle, keeping the end of a path', () => {
    const long = `/home/me/${'x'.repeat(300)}/.bashrc`;
    const folded = foldMiddle(long, 40);
    expect([...folded].length).toBe(40);
    expect(folded.startsWith('/home/me/')).toBe(true);
    expect(folded.endsWith('/.bashrc')).toBe(true);
    const r = renderCall(call({ tool: 'write_file', inputSchema: WRITE_SCHEMA, arguments: { path: long, content: '' } }));
    expect(r.headline.length).toBeLessThan(200);
    expect(r.headline).toContain('/.bashrc');
    expect(oneLine('tab\there')).toBe('tab\\there');
  });
});

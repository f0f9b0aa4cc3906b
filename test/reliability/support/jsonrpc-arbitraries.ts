/**
 * Raw JSON-RPC for fuzzing the gateways: for every kind of message an app can
 * send (each request and notification of MCP, an unknown method, a response
 * to nothing, a batch, plain garbage), lines that are right, nearly right, or
 * wrong in the ways parsers trip on — wrong types, missing or odd ids, a wrong
 * `jsonrpc`, huge and deeply nested params, `__proto__` keys. Generated as
 * specs; `render` turns one into the exact line sent, with a fresh id.
 */
import fc from 'fast-check';

/** The tools the fuzz target offers through the gateway (server `fuzz`). */
export const ECHO_TOOL = 'fuzz__echo';
export const DESTRUCTIVE_TOOL = 'fuzz__write_note';

export const MESSAGE_KINDS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'unknown-method',
  'response',
  'batch',
  'garbage',
] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** How the id of a request looks. Only `string`, `number` and `huge` (a 100,000-character string) are ids JSON-RPC allows (and get a fresh, unique value). */
type IdShape = 'string' | 'number' | 'missing' | 'null' | 'object' | 'array' | 'float' | 'bool' | 'huge';

/** Params as generated: a value, or raw JSON text (deep nesting, `__proto__`) spliced in as is. */
type Params = { value: unknown } | { raw: string } | { absent: true };

export interface MessageSpec {
  kind: MessageKind;
  jsonrpc: unknown;
  method: string;
  idShape: IdShape;
  params: Params;
  /** For `batch`: the messages inside. */
  batch?: MessageSpec[];
  /** For `garbage`: the line itself. */
  garbage?: string;
  /** For `response`: the result or error it carries. */
  reply?: unknown;
}

/** A rendered message: the line, and what a correct gateway owes for it. */
export interface Rendered {
  line: string;
  /** Requests in it with a valid id, whether each is valid JSON-RPC (so it may get a result), and the tool each calls (for tools/call). */
  requests: Array<{ id: string | number; kind: MessageKind; tool?: string; wellFormed: boolean }>;
}

const text = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30, unit: 'binary' }), fc.constantFrom('', '__proto__', 'constructor', '\u202e\u0000', '../../../etc/passwd'));
const junk = fc.jsonValue({ maxDepth: 3 });

const HUGE = 'h'.repeat(1_200_000);
/** Params broken in one way, whatever the method. */
const brokenParams: fc.Arbitrary<Params> = fc.oneof(
  junk.map((value) => ({ value })),
  fc.constantFrom<Params>({ value: 'a string' }, { value: 42 }, { value: [1, 2] }, { value: null }, { value: true }, { absent: true }),
  fc.constant<Params>({ value: { data: HUGE } }),
  fc.integer({ min: 1_000, max: 20_000 }).map((depth): Params => ({ raw: `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` })),
  fc.integer({ min: 1_000, max: 20_000 }).map((depth): Params => ({ raw: `${'['.repeat(depth)}${']'.repeat(depth)}` })),
  junk.map((value): Params => ({ raw: `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"x":${JSON.stringify(value)}}` })),
);

/** Params as the method expects them (or nearly). */
function goodParams(kind: MessageKind): fc.Arbitrary<Params> {
  const v = (arb: fc.Arbitrary<unknown>) => arb.map((value): Params => ({ value }));
  switch (kind) {
    case 'initialize':
      return v(
        fc.record({
          protocolVersion: fc.oneof(fc.constantFrom('2025-11-25', '2025-06-18', '2024-11-05'), text),
          capabilities: fc.oneof(fc.constant({}), fc.constant({ roots: { listChanged: true }, sampling: {}, elicitation: {} }), junk),
          clientInfo: fc.oneof(fc.record({ name: text, version: text }), junk),
        }),
      );
    case 'tools/call':
      return v(
        fc.record(
          {
            name: fc.oneof({ weight: 3, arbitrary: fc.constant(ECHO_TOOL) }, { weight: 2, arbitrary: fc.constant(DESTRUCTIVE_TOOL) }, { weight: 1, arbitrary: text }),
            arguments: fc.oneof(fc.record({ message: text }), fc.record({ text }), fc.dictionary(text, junk, { maxKeys: 4 }), junk),
            _meta: fc.record({ progressToken: fc.oneof(fc.string({ maxLength: 8 }), fc.integer()) }),
          },
          { requiredKeys: ['name'] },
        ),
      );
    case 'tools/list':
    case 'resources/list':
    case 'resources/templates/list':
    case 'prompts/list':
      return v(fc.record({ cursor: fc.oneof(text, junk) }, { requiredKeys: [] }));
    case 'resources/read':
    case 'resources/subscribe':
      return v(fc.record({ uri: fc.oneof(fc.constantFrom('note://today', 'airlock://fuzz/note://today', 'file:///etc/passwd'), text, junk) }));
    case 'prompts/get':
      return v(fc.record({ name: fc.oneof(fc.constantFrom('fuzz__greet', 'greet'), text), arguments: fc.oneof(fc.record({ who: text }), fc.dictionary(text, junk, { maxKeys: 3 })) }, { requiredKeys: ['name'] }));
    case 'completion/complete':
      return v(
        fc.record({
          ref: fc.oneof(fc.record({ type: fc.constant('ref/prompt'), name: fc.oneof(fc.constant('fuzz__greet'), text) }), fc.record({ type: fc.constant('ref/resource'), uri: text }), junk),
          argument: fc.oneof(fc.record({ name: text, value: text }), junk),
        }),
      );
    case 'logging/setLevel':
      return v(fc.record({ level: fc.oneof(fc.constantFrom('debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'), text) }));
    case 'notifications/cancelled':
      return v(fc.record({ requestId: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), junk), reason: text }, { requiredKeys: [] }));
    case 'notifications/progress':
      return v(fc.record({ progressToken: fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), progress: fc.oneof(fc.double(), junk), total: fc.double() }, { requiredKeys: [] }));
    default:
      return fc.oneof(fc.constant<Params>({ absent: true }), v(fc.constant({})), v(junk));
  }
}

const idShape: fc.Arbitrary<IdShape> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<IdShape>('string', 'number') },
  { weight: 2, arbitrary: fc.constantFrom<IdShape>('missing', 'null', 'object', 'array', 'float', 'bool', 'huge') },
);
const jsonrpc = fc.oneof({ weight: 9, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: fc.constantFrom<unknown>('1.0', 2, null, undefined, '2.0 ') });

const NOTIFICATION = (kind: MessageKind) => kind.startsWith('notifications/');

function specOf(kind: MessageKind, depth = 0): fc.Arbitrary<MessageSpec> {
  switch (kind) {
    case 'garbage':
      return fc
        .oneof(
          fc.string({ maxLength: 200 }),
          fc.constantFrom('', ' ', '{', '}', '[]', '[', 'null', '42', '"text"', 'true', '{"jsonrpc":"2.0"', '\u0000\u0001\u0002', '\ud800', 'x'.repeat(2_000_000), '{"jsonrpc":"2.0","method":"ping","id":1}{"jsonrpc":"2.0"}'),
          fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
        )
        .map((garbage) => ({ kind, jsonrpc: '2.0', method: '', idShape: 'missing' as IdShape, params: { absent: true } as Params, garbage: garbage.replace(/\n/g, ' ') }));
    case 'batch':
      return fc
        .array(depth > 0 ? specOf('ping', depth + 1) : fc.constantFrom<MessageKind>('ping', 'tools/list', 'tools/call', 'notifications/initialized', 'unknown-method').chain((inner) => specOf(inner, depth + 1)), { maxLength: 5 })
        .map((batch) => ({ kind, jsonrpc: '2.0', method: '', idShape: 'missing' as IdShape, params: { absent: true } as Params, batch }));
    case 'response':
      return fc
        .tuple(idShape, jsonrpc, fc.oneof(fc.record({ result: junk }), fc.record({ error: fc.record({ code: fc.integer(), message: text }) }), junk))
        .map(([shape, version, reply]) => ({ kind, jsonrpc: version, method: '', idShape: shape, params: { absent: true } as Params, reply }));
    default: {
      const method = kind === 'unknown-method' ? fc.oneof(text, fc.constantFrom('tools/delete', 'admin/shutdown', 'Tools/Call', 'tools/call ', '__proto__', 'rpc.discover')) : fc.oneof({ weight: 19, arbitrary: fc.constant(kind as string) }, { weight: 1, arbitrary: fc.constant(`${kind.toUpperCase()}`) });
      const params = fc.oneof({ weight: 3, arbitrary: goodParams(kind) }, { weight: 2, arbitrary: brokenParams });
      return fc
        .tuple(method, params, NOTIFICATION(kind) ? fc.constant<IdShape>('missing') : idShape, jsonrpc)
        .map(([m, p, shape, version]) => ({ kind, jsonrpc: version, method: m, idShape: shape, params: p }));
    }
  }
}

/** Specs for one kind of message. */
export function messagesOf(kind: MessageKind): fc.Arbitrary<MessageSpec> {
  return specOf(kind);
}

let counter = 0;

/** Renders a spec as the exact line to send; ids that JSON-RPC allows are fresh and unique (never the `ping-` ids a runner uses). */
export function render(spec: MessageSpec): Rendered {
  const requests: Rendered['requests'] = [];
  const body = renderOne(spec, requests);
  return { line: spec.kind === 'garbage' ? spec.garbage! : body, requests };
}

function renderOne(spec: MessageSpec, requests: Rendered['requests']): string {
  if (spec.kind === 'batch') return `[${(spec.batch ?? []).map((inner) => renderOne(inner, requests)).join(',')}]`;
  counter += 1;
  let id: string | undefined;
  switch (spec.idShape) {
    case 'string':
      id = JSON.stringify(`fuzz-${counter}`);
      break;
    case 'number':
      id = String(1_000_000 + counter);
      break;
    case 'null':
      id = 'null';
      break;
    case 'object':
      id = '{"id":1}';
      break;
    case 'array':
      id = '[1]';
      break;
    case 'float':
      id = `${counter}.5`;
      break;
    case 'bool':
      id = 'true';
      break;
    case 'huge':
      id = JSON.stringify(`${'i'.repeat(100_000)}-${counter}`);
      break;
    default:
      id = undefined;
  }
  const parts: string[] = [];
  if (spec.jsonrpc !== undefined) parts.push(`"jsonrpc":${JSON.stringify(spec.jsonrpc)}`);
  if (id !== undefined) parts.push(`"id":${id}`);
  if (spec.kind === 'response') {
    const reply = spec.reply && typeof spec.reply === 'object' && !Array.isArray(spec.reply) ? JSON.stringify(spec.reply).slice(1, -1) : `"result":${JSON.stringify(spec.reply ?? null)}`;
    if (reply) parts.push(reply);
    return `{${parts.join(',')}}`;
  }
  parts.push(`"method":${JSON.stringify(spec.method)}`);
  if ('value' in spec.params) parts.push(`"params":${JSON.stringify(spec.params.value) ?? 'null'}`);
  else if ('raw' in spec.params) parts.push(`"params":${spec.params.raw}`);
  if (spec.idShape === 'string' || spec.idShape === 'number' || spec.idShape === 'huge') {
    const value = spec.idShape === 'string' ? `fuzz-${counter}` : spec.idShape === 'huge' ? (JSON.parse(id!) as string) : 1_000_000 + counter;
    // Params, when present, must be an object (raw text: the __proto__ and deeply nested objects are; nested arrays are not).
    const paramsOk = 'value' in spec.params ? isObject(spec.params.value) : 'raw' in spec.params ? spec.params.raw.startsWith('{') : true;
    const wellFormed = spec.jsonrpc === '2.0' && paramsOk;
    const tool = spec.kind === 'tools/call' && 'value' in spec.params && isObject(spec.params.value) ? String((spec.params.value as { name?: unknown }).name) : undefined;
    requests.push({ id: value, kind: spec.kind, ...(tool !== undefined ? { tool } : {}), wellFormed });
  }
  return `{${parts.join(',')}}`;
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

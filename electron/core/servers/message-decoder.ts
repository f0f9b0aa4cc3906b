import { isUtf8 } from 'node:buffer';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Why a line a server wrote to stdout was not taken as a message. */
export type StdoutFaultKind = 'oversize-line' | 'invalid-utf8' | 'too-deep' | 'not-json' | 'not-jsonrpc';

/** The result of decoding one stdout line. */
export type DecodedLine =
  | { ok: true; message: JSONRPCMessage; sanitized: boolean }
  | { ok: false; fault: StdoutFaultKind }
  | { ok: false; fault: null };

/**
 * The deepest nesting of arrays and objects in a JSON text, counted over its
 * bytes without parsing (string contents are skipped), stopping as soon as
 * `limit` is passed. Works on raw UTF-8: no multi-byte sequence contains the
 * ASCII bytes it looks at.
 */
export function jsonDepthExceeds(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c) i++;
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) {
      if (++depth > limit) return true;
    } else if (b === 0x7d || b === 0x5d) depth--;
  }
  return false;
}

/**
 * Decodes one line of a server's stdout into a JSON-RPC message, or says
 * why it is not one. Never throws.
 * SECURITY: invariant 7 — invalid UTF-8 is refused rather than silently
 * replaced; nesting deeper than `maxDepth` is refused before parsing (later
 * recursive code — schema checks, canonical JSON, fingerprints — cannot
 * overflow the stack); `__proto__` keys are removed so no later copy of the
 * message can change an object's prototype.
 */
export function decodeLine(line: Buffer, maxDepth: number): DecodedLine {
  if (line.length === 0) return { ok: false, fault: null };
  if (!isUtf8(line)) return { ok: false, fault: 'invalid-utf8' };
  if (jsonDepthExceeds(line, maxDepth)) return { ok: false, fault: 'too-deep' };
  const text = line.toString('utf8');
  if (text.trim() === '') return { ok: false, fault: null };
  // A `__proto__` key may be spelt with escapes (`"\u005f_proto__"`), so any escape takes the careful path.
  if (text.includes('__proto__') || text.includes('\\u')) {
    let value: unknown;
    let sanitized = false;
    try {
      value = JSON.parse(text, (key, member: unknown) => {
        if (key !== '__proto__') return member;
        sanitized = true;
        return undefined;
      });
    } catch {
      return { ok: false, fault: 'not-json' };
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) return { ok: false, fault: 'not-jsonrpc' };
    return { ok: true, message: parsed.data, sanitized };
  }
  try {
    return { ok: true, message: deserializeMessage(text), sanitized: false };
  } catch (error) {
    return { ok: false, fault: error instanceof SyntaxError ? 'not-json' : 'not-jsonrpc' };
  }
}

/**
 * Counts faults in a sliding window: `record()` says when more than
 * `maxFaults` happened within `windowMs`. Holds at most `maxFaults` times.
 */
export class FaultMeter {
  private readonly times: number[] = [];

  constructor(
    private readonly maxFaults: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records one fault; true when the limit is now exceeded. */
  record(): boolean {
    const at = this.now();
    this.times.push(at);
    if (this.times.length > this.maxFaults) {
      const oldest = this.times.shift() as number;
      return at - oldest <= this.windowMs;
    }
    return false;
  }
}

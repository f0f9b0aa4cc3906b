/**
 * Property lists, as macOS writes a configuration profile's managed
 * preferences (`/Library/Managed Preferences/<bundle id>.plist`): binary
 * (`bplist00`, what the system writes) or XML (what administrators write by
 * hand). Decoded to plain JSON values: dictionaries become null-prototype
 * objects, integers and reals numbers, booleans booleans. Dates and data
 * have no place in a policy and are refused with the key they were under.
 */

/** A property list that cannot be read, with where. */
export class PlistError extends Error {
  override name = 'PlistError';
}

/** Decodes a binary or XML property list. */
export function parsePlist(bytes: Uint8Array): unknown {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.subarray(0, 8).toString('latin1') === 'bplist00') return parseBinaryPlist(buffer);
  return parseXmlPlist(buffer.toString('utf8'));
}

// ── Binary ──────────────────────────────────────────────────────────────

const MAX_OBJECTS = 100_000;

function parseBinaryPlist(buffer: Buffer): unknown {
  if (buffer.length < 40) throw new PlistError('the binary property list is too short');
  const trailer = buffer.subarray(buffer.length - 32);
  const offsetSize = trailer[6]!;
  const refSize = trailer[7]!;
  const count = Number(trailer.readBigUInt64BE(8));
  const top = Number(trailer.readBigUInt64BE(16));
  const tableAt = Number(trailer.readBigUInt64BE(24));
  if (count > MAX_OBJECTS || top >= count || tableAt + count * offsetSize > buffer.length - 32 || ![1, 2, 4, 8].includes(offsetSize) || ![1, 2, 4, 8].includes(refSize)) {
    throw new PlistError('the binary property list has a damaged trailer');
  }
  const uint = (at: number, size: number): number => {
    if (at + size > buffer.length) throw new PlistError('the binary property list is cut short');
    let n = 0;
    for (let k = 0; k < size; k++) n = n * 256 + buffer[at + k]!;
    return n;
  };
  const offsetOf = (ref: number) => {
    if (ref >= count) throw new PlistError('the binary property list refers to an object it does not hold');
    return uint(tableAt + ref * offsetSize, offsetSize);
  };
  const visiting = new Set<number>();
  const object = (ref: number, path: string): unknown => {
    if (visiting.has(ref)) throw new PlistError(`the binary property list refers to itself at ${path || 'the top'}`);
    visiting.add(ref);
    try {
      return decode(offsetOf(ref), path);
    } finally {
      visiting.delete(ref);
    }
  };
  // A length in the low nibble, or 0xF and an integer object after the marker.
  const lengthAt = (at: number): { length: number; start: number } => {
    const low = buffer[at]! & 0x0f;
    if (low !== 0x0f) return { length: low, start: at + 1 };
    const marker = buffer[at + 1]!;
    if (marker >> 4 !== 0x1) throw new PlistError('the binary property list has a damaged length');
    const size = 1 << (marker & 0x0f);
    return { length: uint(at + 2, size), start: at + 2 + size };
  };
  const decode = (at: number, path: string): unknown => {
    const marker = buffer[at];
    if (marker === undefined) throw new PlistError('the binary property list is cut short');
    const kind = marker >> 4;
    switch (kind) {
      case 0x0:
        if (marker === 0x08) return false;
        if (marker === 0x09) return true;
        if (marker === 0x00) return null;
        break;
      case 0x1: {
        const size = 1 << (marker & 0x0f);
        if (size === 8) return Number(buffer.readBigInt64BE(at + 1));
        if (size > 8) throw new PlistError(`a number at ${path} is too large`);
        return uint(at + 1, size);
      }
      case 0x2: {
        const size = 1 << (marker & 0x0f);
        if (size === 4) return buffer.readFloatBE(at + 1);
        if (size === 8) return buffer.readDoubleBE(at + 1);
        break;
      }
      case 0x3:
        throw new PlistError(`${path || 'the top'} is a date; a policy holds no dates`);
      case 0x4:
        throw new PlistError(`${path || 'the top'} is data; a policy holds no data`);
      case 0x5: {
        const { length, start } = lengthAt(at);
        return buffer.subarray(start, start + length).toString('latin1');
      }
      case 0x6: {
        const { length, start } = lengthAt(at);
        const chars = Buffer.from(buffer.subarray(start, start + length * 2));
        return chars.swap16().toString('utf16le');
      }
      case 0xa: {
        const { length, start } = lengthAt(at);
        const out: unknown[] = [];
        for (let k = 0; k < length; k++) out.push(object(uint(start + k * refSize, refSize), `${path}[${k}]`));
        return out;
      }
      case 0xd: {
        const { length, start } = lengthAt(at);
        const out = Object.create(null) as Record<string, unknown>;
        for (let k = 0; k < length; k++) {
          const name = object(uint(start + k * refSize, refSize), path);
          if (typeof name !== 'string') throw new PlistError(`a key at ${path || 'the top'} is not text`);
          const member = object(uint(start + (length + k) * refSize, refSize), path ? `${path}.${name}` : name);
          Object.defineProperty(out, name, { value: member, enumerable: true, writable: true, configurable: true });
        }
        return out;
      }
      default:
        break;
    }
    throw new PlistError(`${path || 'the top'} holds a kind of value a policy cannot have (marker 0x${marker.toString(16)})`);
  };
  return object(top, '');
}

// ── XML ─────────────────────────────────────────────────────────────────

function parseXmlPlist(text: string): unknown {
  let i = 0;
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  const fail = (message: string): never => {
    throw new PlistError(`line ${lineAt(i)}: ${message}`);
  };
  // Skips the prolog, the doctype and comments.
  const skip = () => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i]!)) i++;
      if (text.startsWith('<?', i)) i = text.indexOf('?>', i) + 2;
      else if (text.startsWith('<!--', i)) i = text.indexOf('-->', i) + 3;
      else if (text.startsWith('<!', i)) i = text.indexOf('>', i) + 1;
      else return;
      if (i <= 1) fail('an unclosed declaration');
    }
  };
  const tag = (): { name: string; closing: boolean; empty: boolean } => {
    skip();
    if (text[i] !== '<') fail('expected a tag');
    const end = text.indexOf('>', i);
    if (end < 0) fail('an unclosed tag');
    const inner = text.slice(i + 1, end);
    i = end + 1;
    const closing = inner.startsWith('/');
    const empty = inner.endsWith('/');
    const name = inner.replace(/^\//, '').replace(/\/$/, '').trim().split(/\s+/)[0] ?? '';
    return { name, closing, empty };
  };
  const textUntil = (name: string): string => {
    const end = text.indexOf(`</${name}>`, i);
    if (end < 0) fail(`<${name}> is not closed`);
    const raw = text.slice(i, end);
    i = end + name.length + 3;
    return raw.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
      const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
      if (entity.startsWith('#x') || entity.startsWith('#X')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
      if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)));
      return named[entity.toLowerCase()] ?? '';
    });
  };
  const value = (open: { name: string; empty: boolean }, path: string, depth: number): unknown => {
    if (depth > 64) fail('nested too deeply');
    switch (open.name) {
      case 'true':
      case 'false':
        if (!open.empty) textUntil(open.name);
        return open.name === 'true';
      case 'string':
        return open.empty ? '' : textUntil('string');
      case 'integer': {
        const raw = textUntil('integer').trim();
        if (!/^[-+]?\d+$/.test(raw)) fail(`${path} is not a whole number`);
        return Number(raw);
      }
      case 'real': {
        const raw = Number(textUntil('real').trim());
        if (!Number.isFinite(raw)) fail(`${path} is not a number`);
        return raw;
      }
      case 'date':
        return fail(`${path || 'the top'} is a date; a policy holds no dates`);
      case 'data':
        return fail(`${path || 'the top'} is data; a policy holds no data`);
      case 'array': {
        const out: unknown[] = [];
        if (open.empty) return out;
        for (;;) {
          const next = tag();
          if (next.closing && next.name === 'array') return out;
          if (next.closing) fail(`</${next.name}> where </array> was expected`);
          out.push(value(next, `${path}[${out.length}]`, depth + 1));
        }
      }
      case 'dict': {
        const out = Object.create(null) as Record<string, unknown>;
        if (open.empty) return out;
        for (;;) {
          const next = tag();
          if (next.closing && next.name === 'dict') return out;
          if (next.name !== 'key') fail(`<${next.name}> where a <key> was expected`);
          const name = next.empty ? '' : textUntil('key');
          if (Object.prototype.hasOwnProperty.call(out, name)) fail(`the key "${name}" appears twice`);
          const member = tag();
          if (member.closing) fail(`the key "${name}" has no value`);
          Object.defineProperty(out, name, { value: value(member, path ? `${path}.${name}` : name, depth + 1), enumerable: true, writable: true, configurable: true });
        }
      }
      default:
        return fail(`<${open.name}> is not a property list value`);
    }
  };
  const root = tag();
  if (root.name !== 'plist' || root.closing) fail('this is not a property list (no <plist>)');
  const top = value(tag(), '', 0);
  const close = tag();
  if (!close.closing || close.name !== 'plist') fail('more than one value inside <plist>');
  return top;
}

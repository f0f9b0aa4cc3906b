import { describe, expect, it } from 'vitest';
import { BoundedLineSplitter } from '../../../electron/core/servers/line-splitter';
import { inertText, LogRing } from '../../../electron/core/servers/log-ring';
import { decodeLine, FaultMeter, jsonDepthExceeds } from '../../../electron/core/servers/message-decoder';
import { collectPages } from '../../../electron/core/servers/paging';

function splitter(max: number) {
  const lines: string[] = [];
  const oversize: number[] = [];
  const s = new BoundedLineSplitter(max, (l) => lines.push(l.toString()), (n) => oversize.push(n));
  return { s, lines, oversize };
}

describe('BoundedLineSplitter', () => {
  it('splits lines across chunks and strips CR', () => {
    const { s, lines } = splitter(100);
    s.push(Buffer.from('ab'));
    s.push(Buffer.from('c\r\nde\n\nf'));
    s.push(Buffer.from('g\n'));
    expect(lines).toEqual(['abc', 'de', '', 'fg']);
  });

  it('drops a line over the cap without holding it, then carries on', () => {
    const { s, lines, oversize } = splitter(10);
    s.push(Buffer.from('ok\n0123456'));
    s.push(Buffer.from('789abcdef'));
    s.push(Buffer.from('ghij\nnext\n'));
    expect(lines).toEqual(['ok', 'next']);
    expect(oversize.length).toBe(1);
    expect(s.highWaterBytes).toBeLessThanOrEqual(10);
  });

  it('reports again for every cap of an endless line, holding nothing', () => {
    const { s, oversize } = splitter(1000);
    for (let i = 0; i < 50; i++) s.push(Buffer.alloc(500, 0x78));
    expect(oversize.length).toBe(25); // 25 000 bytes = 25 caps
    expect(s.highWaterBytes).toBeLessThanOrEqual(1000);
  });

  it('drops an oversized line that arrives whole in one chunk', () => {
    const { s, lines, oversize } = splitter(4);
    s.push(Buffer.from('toolong\nok\n'));
    expect(lines).toEqual(['ok']);
    expect(oversize).toEqual([7]);
  });
});

describe('decodeLine', () => {
  const ok = (text: string | Buffer) => decodeLine(Buffer.isBuffer(text) ? text : Buffer.from(text), 100);

  it('accepts a JSON-RPC message', () => {
    const d = ok('{"jsonrpc":"2.0","id":1,"result":{}}');
    expect(d.ok && d.message).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it.each([
    ['a log line', 'Server started on port 3000', 'not-json'],
    ['JSON that is not JSON-RPC', '{"hello":"world"}', 'not-jsonrpc'],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'invalid-utf8'],
    ['nesting deeper than the cap', `${'['.repeat(101)}${']'.repeat(101)}`, 'too-deep'],
  ])('refuses %s', (_what, input, fault) => {
    const d = ok(input);
    expect(d.ok).toBe(false);
    expect(!d.ok && d.fault).toBe(fault);
  });

  it('ignores blank lines without counting them', () => {
    expect(ok('   ')).toEqual({ ok: false, fault: null });
  });

  it('counts depth outside strings only', () => {
    expect(jsonDepthExceeds(Buffer.from(`{"a":"${'['.repeat(500)}\\"["}`), 3)).toBe(false);
    expect(jsonDepthExceeds(Buffer.from('[[[[1]]]]'), 3)).toBe(true);
  });

  it('removes __proto__ keys, plain or escaped, and says so', () => {
    for (const key of ['__proto__', '\\u005f_proto__']) {
      const d = ok(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"${key}":{"polluted":1}},"${key}":{"polluted":1}}}`);
      expect(d.ok).toBe(true);
      if (!d.ok) return;
      expect(d.sanitized).toBe(true);
      const params = (d.message as { params: Record<string, unknown> }).params;
      expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
      expect((params as { polluted?: unknown }).polluted).toBeUndefined();
      expect(Object.keys(params.data as object)).toEqual([]);
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe('FaultMeter', () => {
  it('trips when more than the limit fall inside the window', () => {
    let now = 0;
    const meter = new FaultMeter(3, 1000, () => now);
    expect([meter.record(), meter.record(), meter.record()]).toEqual([false, false, false]);
    now = 2000; // the first three are old now
    expect(meter.record()).toBe(false);
    expect(meter.record()).toBe(false);
    expect(meter.record()).toBe(false);
    expect(meter.record()).toBe(true);
  });
});

describe('LogRing', () => {
  it('keeps at most maxLines and maxChars, cutting long lines', () => {
    const ring = new LogRing({ maxLines: 5, maxChars: 100, maxLineChars: 30 });
    for (let i = 0; i < 1000; i++) ring.push('stderr', `line ${i} ${'x'.repeat(i % 50)}`);
    const stats = ring.stats();
    expect(stats.lines).toBeLessThanOrEqual(5);
    expect(stats.chars).toBeLessThanOrEqual(100 + 30 + 20);
    expect(ring.snapshot().at(-1)?.text).toMatch(/^line 999/);
  });

  it('bounds a partial stderr line that never ends', () => {
    const ring = new LogRing({ maxLines: 10, maxChars: 1000, maxLineChars: 50 });
    for (let i = 0; i < 100; i++) ring.write('stderr', 'y'.repeat(1000));
    expect(ring.stats().chars).toBeLessThanOrEqual(50);
    ring.write('stderr', 'end\nnext\n');
    const [first, second] = ring.snapshot().map((l) => l.text);
    expect(first).toMatch(/^y{50} …\[cut/);
    expect(second).toBe('next');
  });
});

describe('collectPages', () => {
  it('stops an endless cursor at maxPages', async () => {
    let calls = 0;
    const listing = await collectPages(async () => ({ items: [++calls], nextCursor: `c${calls}` }), { maxPages: 7, maxItems: 100, maxCursorChars: 10, maxTotalChars: 1e9 });
    expect(listing).toMatchObject({ pages: 7, truncated: true, reason: 'max-pages' });
    expect(calls).toBe(7);
  });

  it('stops on a repeated cursor, an oversized cursor and at maxItems', async () => {
    expect(await collectPages(async () => ({ items: [1], nextCursor: 'same' }), { maxPages: 50, maxItems: 100, maxCursorChars: 10, maxTotalChars: 1e9 })).toMatchObject({
      pages: 2,
      reason: 'repeated-cursor',
    });
    expect(await collectPages(async () => ({ items: [1], nextCursor: 'x'.repeat(11) }), { maxPages: 50, maxItems: 100, maxCursorChars: 10, maxTotalChars: 1e9 })).toMatchObject({
      pages: 1,
      reason: 'oversize-cursor',
    });
    const many = await collectPages(async (c) => ({ items: Array.from({ length: 40 }, (_, i) => i), nextCursor: c ? `${c}x` : 'a' }), {
      maxPages: 50,
      maxItems: 100,
      maxCursorChars: 100,
      maxTotalChars: 1e9,
    });
    expect(many.items.length).toBe(100);
    expect(many.reason).toBe('max-items');
    const heavy = await collectPages(async () => ({ items: [1], nextCursor: `n${Math.random()}`, chars: 400 }), {
      maxPages: 50,
      maxItems: 100,
      maxCursorChars: 100,
      maxTotalChars: 1000,
    });
    expect(heavy).toMatchObject({ items: [1, 1], pages: 3, reason: 'max-size' });
  });

  it('returns a complete listing untruncated', async () => {
    const pages: Record<string, { items: number[]; nextCursor?: string }> = { '': { items: [1, 2], nextCursor: 'b' }, b: { items: [3] } };
    expect(await collectPages(async (c) => pages[c ?? '']!, { maxPages: 5, maxItems: 10, maxCursorChars: 10, maxTotalChars: 1e9 })).toEqual({ items: [1, 2, 3], pages: 2, truncated: false });
  });
});

describe('inertText', () => {
  it('makes terminal escapes and bidi controls visible instead of active', () => {
    expect(inertText('red \u001b[31mtext\u001b[0m and \u202eevil\u202c ok\ttab')).toBe('red \\u{1b}[31mtext\\u{1b}[0m and \\u{202e}evil\\u{202c} ok\ttab');
    const ring = new LogRing();
    ring.write('stderr', '\u001b]0;pwned\u0007title\n');
    expect(ring.snapshot()[0]!.text).toBe('\\u{1b}]0;pwned\\u{7}title');
  });
});

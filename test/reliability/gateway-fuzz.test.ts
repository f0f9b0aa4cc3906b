/**
 * Gateway fuzz (issue 16.2): raw JSON-RPC — every kind of message an app can
 * send, right, nearly right and wrong — to a real `airlock gateway` process
 * over stdio and over HTTP, with a real sandboxed server behind it (see
 * support/gateway-fuzz.ts for what each run checks). 15 messages per kind
 * here (a fixed seed, so a failure can be replayed); 1,000 per kind in
 * `npm run soak`. Needs `npm run build` (the real CLI).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fuzzGateway, type GatewayTransport } from './support/gateway-fuzz';
import { MESSAGE_KINDS } from './support/jsonrpc-arbitraries';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe.each<GatewayTransport>(['stdio', 'http'])('the %s gateway, fuzzed', (transport) => {
  it('answers every valid request once, accepts nothing the contract forbids, never crashes, and still answers afterwards', async () => {
    const root = mkdtempSync(join(tmpdir(), `airlock-gateway-fuzz-${transport}-`));
    roots.push(root);
    const report = await fuzzGateway(root, transport, 15, { seed: 16_02 });
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({
      kinds: MESSAGE_KINDS.length,
      payloads: 15 * MESSAGE_KINDS.length,
      unanswered: 0,
      answeredTwice: 0,
      acceptedForbidden: 0,
      internalErrors: 0,
      crashes: 0,
      answersAfter: true,
      auditVerifies: true,
    });
    // The fuzz reached the server through the gateway, and asked for the destructive tool too.
    expect(report.echoSucceeded).toBeGreaterThan(0);
    expect(report.destructiveAsked).toBeGreaterThan(0);
    expect(report.wellFormed).toBeGreaterThan(report.payloads / 3);
    expect(report.reachedServer['tools/call write_note'] ?? 0).toBe(0);
  }, 300_000);
});

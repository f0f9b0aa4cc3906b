// TESTING.md hostile behaviour 5: protocol abuse.
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintTool } from '../../../electron/core/tools/fingerprint';
import { fixtureSpec, recordDir, supervised } from './support/fixtures';
import { makeSupervisor } from './support/harness';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('protocol abuse', () => {
  it('shrugs off unknown and duplicate response ids, and answers undeclared capabilities with -32601', async () => {
    const rec = recordDir();
    const { supervisor } = makeSupervisor({ p: supervised('p', fixtureSpec('protocol-abuse.mjs', [], { AIRLOCK_RECORD_DIR: rec.dir })) });
    cleanups.push(rec.cleanup, () => supervisor.stopAll());
    await supervisor.start('p'); // the unknown id 424242 arrived before the handshake

    const twice = await supervisor.callTool('p', 'answer_twice', {});
    expect(twice.content).toEqual([{ type: 'text', text: 'first' }]);

    const asked = await supervisor.callTool('p', 'ask_client', {});
    expect(asked.isError).toBeFalsy();
    expect(rec.lines('client-answers')).toEqual(['sampling/createMessage -32601', 'elicitation/create -32601', 'roots/list -32601']);

    expect(supervisor.state('p')).toBe('ready');
    const notes = supervisor.log('p').filter((l) => l.source === 'airlock').map((l) => l.text);
    expect(notes.filter((t) => /unknown message ID/.test(t)).length).toBeGreaterThanOrEqual(2);
    await expect(supervisor.callTool('p', 'bad_result', {})).rejects.toMatchObject({ kind: 'invalid-result', outcomeUnknown: true });
    await expect(supervisor.callTool('p', 'rpc_error', {})).rejects.toMatchObject({
      kind: 'server-error',
      outcomeUnknown: false,
      details: { code: -32602 },
    });
    // The server still works after all that.
    expect((await supervisor.callTool('p', 'answer_twice', {})).content).toEqual([{ type: 'text', text: 'first' }]);
  });

  it('caps an endless tools/list cursor and says the listing is truncated', async () => {
    const rec = recordDir();
    const { supervisor } = makeSupervisor(
      { c: supervised('c', fixtureSpec('endless-cursor.mjs', [], { AIRLOCK_RECORD_DIR: rec.dir })) },
      { connection: { paging: { maxPages: 10 } } },
    );
    cleanups.push(rec.cleanup, () => supervisor.stopAll());
    await supervisor.start('c');
    const tools = supervisor.tools.get('c')!;
    expect(tools.truncated).toBe(true);
    expect(tools.tools.map((t) => t.name)).toHaveLength(10);
    expect(rec.lines('list-requests')).toHaveLength(10);
    expect(supervisor.log('c').some((l) => /tools\/list stopped early \(max-pages\)/.test(l.text))).toBe(true);
  });

  it('lists and fingerprints a tool with a 1 MiB description', async () => {
    const { supervisor } = makeSupervisor({ h: supervised('h', fixtureSpec('huge-description.mjs')) });
    cleanups.push(() => supervisor.stopAll());
    await supervisor.start('h');
    const big = supervisor.tools.lookup('h', 'big')!;
    expect(big.definition.description).toHaveLength(1024 * 1024);
    expect(big.fingerprint).toBe(fingerprintTool(big.definition));
    expect((await supervisor.callTool('h', 'echo', { message: 'ok' })).content).toEqual([{ type: 'text', text: 'ok' }]);
  });
});

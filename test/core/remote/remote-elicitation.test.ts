// A remote server's question (elicitation/create) takes Airlock's own path, as the conformance entry
// point drives it: a real MCP server over HTTP asks a form with suggested answers during a tool call;
// the policy decides, the question is asked at a terminal (electron/cli/tty.ts), the decision and the
// outcome are written to a real audit log, and only the person's answer goes back. With nobody to ask,
// the server gets no answer at all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRemoteConnector } from '../../../electron/core/remote/remote-connector';
import { MemoryVault } from '../../../electron/core/remote/oauth-vault';
import { askingPerson } from '../../conformance/asking-person';
import { recordDir } from '../servers/support/fixtures';
import { startRemoteFixture } from './support/remote-fixture';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function askedCall(canAsk: boolean) {
  const rec = recordDir();
  const server = await startRemoteFixture({ AIRLOCK_RECORD_DIR: rec.dir, REMOTE_ASKS: '1' });
  const auditDir = mkdtempSync(join(tmpdir(), 'airlock-remote-ask-'));
  cleanups.push(rec.cleanup, () => server.stop(), () => rmSync(auditDir, { recursive: true, force: true }));
  const person = await askingPerson({ name: 'asker', url: server.url, auditDir, canAsk });
  cleanups.push(() => person.dispose());
  const link = createRemoteConnector({ label: 'asker', spec: person.record.spec.remote!, secrets: () => ({}), vault: new MemoryVault() });
  cleanups.push(() => link.close());
  const connection = await link.open({ initializeTimeoutMs: 10_000, requests: person.room.handlersFor('asker') }, new AbortController().signal);
  cleanups.push(() => connection.close());
  const result = await connection.callTool('asker', 'ask_with_defaults', {}, { timeoutMs: 20_000, maxTotalMs: 30_000 });
  const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
  return { rec, person, answer: JSON.parse(text) as { action: string; content?: Record<string, unknown> } };
}

describe('a remote server asks a question', () => {
  it('is asked at the terminal and decided on record; taking the suggestions sends exactly them', async () => {
    const { rec, person, answer } = await askedCall(true);

    // Every suggestion taken with its type; the field without one left out (never invented).
    expect(answer).toEqual({ action: 'accept', content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true } });
    expect(rec.lines('elicitation').map((line) => JSON.parse(line).action)).toEqual(['accept']);

    // The terminal showed the server's words and each suggestion; the person answered y, then Enter.
    const shown = person.transcript.join('\n');
    expect(shown).toContain('Please confirm your details');
    expect(shown).toContain('["John Doe"; Enter keeps it]');
    expect(shown).toContain('[30; Enter keeps it]');

    // On record: asked in Airlock, answered at the terminal, the values as a digest only.
    const history = await person.room.history({ server: 'asker', kind: 'elicitation' });
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ kind: 'elicitation', decision: 'asked in Airlock', outcome: 'accept' });
    expect(history[0]!.answeredBy).toMatch(/terminal/);
    expect(JSON.stringify(history)).not.toContain('John Doe');
  });

  it('with nobody to ask, the server gets no answer and the refusal is on record', async () => {
    const { rec, person, answer } = await askedCall(false);

    expect(answer.action).not.toBe('accept');
    expect(answer.content).toBeUndefined();
    expect(rec.lines('elicitation').map((line) => JSON.parse(line).action)).toEqual([answer.action]);
    expect(person.transcript.filter((line) => line.includes('Answer it?'))).toEqual([]);
    const history = await person.room.history({ server: 'asker', kind: 'elicitation' });
    expect(history).toHaveLength(1);
    expect(history[0]!.decision).toMatch(/^denied/);
  });
});

/**
 * A server granted a secret tries to carry it out by every path it has — its
 * sampling request, a question's message and a web page's address, its tool
 * result, an error, a host name it asks for — and a call's arguments carry it
 * too. Then the value is looked for, byte for byte, in every file Airlock
 * wrote (the data folder and the home folder, where the audit key lives) and
 * in every request the model provider received. The secret store is sealed
 * with a test cipher, so the only place the value may appear is nowhere.
 * Last, the secrets file is made unreadable while the server runs: what could
 * hold a secret is withheld, never written or sent in clear.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRequestView } from '../../../shared/views';
import { readServerRequestEntries } from '../../../electron/core/audit/server-request-entries';
import { SECRETS_FILE, type SecretCipher } from '../../../electron/core/secrets/secret-store';
import { createAgentHarness, until, type AgentHarness } from '../agent/agent-support';
import { fixture } from '../host/host-support';

// Plain letters and digits, nothing a "looks like a key" pattern would catch: only the person's own marking hides it.
const SECRET = 'opensesame4821';
// One with capitals: Airlock writes host names in small letters, so it must find it in any case.
const MIXED = 'CaseSesame9073';

/** Seals values so the secrets file itself never holds the value in clear (as the OS keychain does in the app). */
const cipher: SecretCipher = {
  id: 'test-reverse-base64',
  encrypt: (plain) => Buffer.from([...plain].reverse().join('')).toString('base64'),
  decrypt: (sealed) => [...Buffer.from(sealed, 'base64').toString()].reverse().join(''),
};

/**
 * Every file under `dir` that holds the secret, byte for byte — or, `loosely`, in any capitals
 * and with dots and dashes between its letters (as a host name can carry it).
 */
function filesHolding(dir: string, value: string, loosely = false): string[] {
  const fold = (text: string) => text.toLowerCase().replace(/[.\-_/]/g, '');
  const found: string[] = [];
  for (const name of readdirSync(dir, { recursive: true }).map(String)) {
    const path = join(dir, name);
    let stat;
    try {
      stat = statSync(path);
    } catch {
      continue;
    }
    if (!stat.isFile()) continue;
    if (loosely ? fold(readFileSync(path, 'latin1')).includes(fold(value)) : readFileSync(path).includes(value)) found.push(path);
  }
  return found;
}

async function answerNext(t: AgentHarness, kind: ServerRequestView['kind'], answer: (q: ServerRequestView) => unknown): Promise<ServerRequestView> {
  let question: ServerRequestView | undefined;
  await until(() => (question = t.host.serverRequests.pending().find((q) => q.kind === kind)) !== undefined, `a ${kind} question`);
  expect(t.host.serverRequests.answer(question!.id, answer(question!), { shell: 'test' })).toEqual({ accepted: true });
  return question!;
}

describe('a secret given to a server stays out of every log and every model request', () => {
  let t: AgentHarness;

  beforeAll(async () => {
    t = await createAgentHarness({ secretCipher: cipher, confirmationTimeoutMs: 20_000 });
    t.useProvider('anthropic');
    t.ask.available = true;
    await t.add('leaker', [process.execPath, fixture('servers/secret-leaker.mjs')], {
      trusted: true,
      profile: { secrets: ['LEAK_KEY'], network: { allowedDomains: ['api.example.com'] } },
      secrets: { LEAK_KEY: SECRET },
    });
    await t.add('mixed', [process.execPath, fixture('servers/secret-leaker.mjs')], {
      trusted: true,
      profile: { secrets: ['LEAK_KEY'], network: { allowedDomains: ['api.example.com'] } },
      secrets: { LEAK_KEY: MIXED },
    });
  });
  afterAll(() => t?.close());

  it('sampling: the question says the request holds a secret; the model receives it redacted; the log holds neither', async () => {
    t.model.push({ text: 'a scripted reply' });
    const call = t.host.calls.call({ server: 'leaker', tool: 'leak_sampling', arguments: {}, caller: { kind: 'user' } });
    const question = await answerNext(t, 'sampling-request', (q) => ({ choice: 'allow-once', params: (q as Extract<ServerRequestView, { kind: 'sampling-request' }>).params }));
    expect(question.reasons.join(' ')).toMatch(/contains a value you gave this server as a secret/);
    await answerNext(t, 'sampling-response', () => ({ choice: 'approve' }));
    expect((await call).outcome).toBe('ok');
    const sent = JSON.stringify(t.model.requests.at(-1)!.body);
    expect(sent).not.toContain(SECRET);
    expect(sent).toContain('[redacted]');
    const [entry] = await readServerRequestEntries(t.host.audit, { kind: 'sampling' });
    expect(JSON.stringify(entry)).toContain('[redacted]');
  });

  it('a question and a web page carrying it: asked, and logged redacted', async () => {
    const form = t.host.calls.call({ server: 'leaker', tool: 'leak_question', arguments: {}, caller: { kind: 'user' } });
    await answerNext(t, 'elicitation-form', () => ({ action: 'decline' }));
    await form;
    const page = t.host.calls.call({ server: 'leaker', tool: 'leak_page', arguments: {}, caller: { kind: 'user' } });
    await answerNext(t, 'elicitation-url', () => ({ action: 'decline' }));
    await page;
    const entries = await readServerRequestEntries(t.host.audit, { kind: 'elicitation' });
    expect(entries.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(entries)).toContain('[redacted]');
  });

  it('a call whose arguments carry it, an error that names it, a host name that spells it: all logged redacted', async () => {
    expect((await t.host.calls.call({ server: 'leaker', tool: 'echo', arguments: { message: `the key is ${SECRET}` }, caller: { kind: 'user' } })).outcome).toBe('ok');
    await t.host.calls.call({ server: 'leaker', tool: 'leak_error', arguments: {}, caller: { kind: 'user' } });
    // Nobody can be asked about the host (the question would show it to the person, which is theirs to see).
    t.ask.available = false;
    await t.host.calls.call({ server: 'leaker', tool: 'leak_host', arguments: {}, caller: { kind: 'user' } });
    t.ask.available = true;
    await until(() => t.events.some((e) => e.event === 'audit.didAppend'), 'an append');
    await t.host.audit.flush();
    const rows = await t.host.activity.entries({ server: 'leaker', limit: 200 });
    expect(rows.some((row) => row.kind === 'network' && String(row.target).includes('[redacted]'))).toBe(true);
  });

  it('the agent: a tool result carrying it reaches the model redacted, and the saved conversation does not hold it', async () => {
    t.model.push({ toolCalls: [{ name: 'leaker__leak_result', input: {} }] }, { text: 'done' });
    const id = t.host.agent.create().id;
    await t.host.agent.send(id, { text: 'show me the result' });
    expect(await t.host.agent.whenIdle(id)).toBe('done');
    const results = t.model.requests.at(-1)!.toolResults.map((result) => result.text).join('\n');
    expect(results).toContain('Here is your key: [redacted]');
    expect(JSON.stringify(t.model.requests.map((request) => request.body))).not.toContain(SECRET);
  });

  it('a host name that spells it in capitals or across labels is hidden too (Airlock writes host names in small letters)', async () => {
    t.ask.available = false;
    for (const server of ['leaker', 'mixed']) {
      for (const shape of ['split', 'upper', 'as-is']) await t.host.calls.call({ server, tool: 'leak_host', arguments: { shape }, caller: { kind: 'user' } });
    }
    t.ask.available = true;
    await t.host.audit.flush();
    const targets = (await t.host.activity.entries({ limit: 500 })).filter((row) => row.kind === 'network' && (row.server === 'mixed' || row.server === 'leaker')).map((row) => String(row.target));
    expect(targets.length).toBeGreaterThanOrEqual(4);
    for (const target of targets) expect(target, target).toContain('[redacted]');
    expect(filesHolding(t.dataDir, MIXED, true)).toEqual([]);
    expect(filesHolding(t.dataDir, SECRET, true)).toEqual([]);
  });

  it("the sandbox's refusals name what the server tried: a path that carries it is hidden, in any capitals", async () => {
    // On macOS the sandbox reports the path the server tried (it chooses it); the launcher passes the report on.
    t.host.activity.recordSandboxRefusal('leaker', `deny(1) file-write-create /private/tmp/${SECRET}/out`);
    t.host.activity.recordSandboxRefusal('mixed', `deny(1) file-read-data /Users/me/${MIXED.toUpperCase()}.txt`);
    let refusals: Array<{ kind: string }> = [];
    while (refusals.length < 2) {
      await t.host.audit.flush();
      refusals = (await t.host.activity.entries({ limit: 500 })).filter((row) => row.kind === 'sandbox');
    }
    expect(JSON.stringify(refusals)).toContain('[redacted]');
    expect(filesHolding(t.dataDir, SECRET, true)).toEqual([]);
    expect(filesHolding(t.dataDir, MIXED, true)).toEqual([]);
  });

  it('nothing Airlock wrote holds the value: not the data folder, not the home folder', async () => {
    await t.host.audit.flush();
    await t.host.changes.settled();
    expect(filesHolding(t.dataDir, SECRET)).toEqual([]);
    expect(filesHolding(t.home, SECRET)).toEqual([]);
  });

  it('with the secrets unreadable while the server runs: the arguments are withheld, never written in clear', async () => {
    const path = join(t.dataDir, SECRETS_FILE);
    const saved = readFileSync(path);
    // The server already has its secret in its environment; Airlock can no longer read the store.
    writeFileSync(path, '{ this is not the secrets file');
    try {
      expect((await t.host.calls.call({ server: 'leaker', tool: 'echo', arguments: { message: `still ${SECRET}` }, caller: { kind: 'user' } })).outcome).toBe('ok');
      const [latest] = await t.host.audit.read({ server: 'leaker', limit: 1 });
      expect(JSON.stringify(latest!.decision.arguments)).toMatch(/withheld/);
      // A result the agent would send a model is withheld the same way (the provider's own key is in the same file
      // here, so the model-bound half is shown on its own in model-bound.test.ts).
    } finally {
      writeFileSync(path, saved);
    }
    await t.host.audit.flush();
    expect(filesHolding(t.dataDir, SECRET)).toEqual([]);
  });

  it('with the secrets file deleted while the server runs, or its value gone from it: what it was given is still hidden', async () => {
    const path = join(t.dataDir, SECRETS_FILE);
    const saved = readFileSync(path);
    // The server was started with its secret; the store no longer has it.
    rmSync(path);
    try {
      expect((await t.host.calls.call({ server: 'leaker', tool: 'echo', arguments: { message: `gone ${SECRET}` }, caller: { kind: 'user' } })).outcome).toBe('ok');
      await t.host.audit.flush();
      const [latest] = await t.host.audit.read({ server: 'leaker', limit: 1 });
      expect(JSON.stringify(latest!.decision.arguments)).toContain('gone [redacted]');
    } finally {
      writeFileSync(path, saved);
    }
    // Gone from the file while the server runs (edited by hand, another tool): it keeps the value it was started with.
    const file = JSON.parse(readFileSync(path, 'utf8')) as { servers: Record<string, unknown> };
    delete file.servers.mixed;
    writeFileSync(path, JSON.stringify(file));
    expect((await t.host.calls.call({ server: 'mixed', tool: 'echo', arguments: { message: `cleared ${MIXED}` }, caller: { kind: 'user' } })).outcome).toBe('ok');
    t.model.push({ toolCalls: [{ name: 'mixed__leak_result', input: {} }] }, { text: 'done' });
    const id = t.host.agent.create().id;
    await t.host.agent.send(id, { text: 'show me the result again' });
    await t.host.agent.whenIdle(id);
    expect(t.model.requests.at(-1)!.toolResults.map((result) => result.text).join('\n')).toContain('Here is your key: [redacted]');
    expect(JSON.stringify(t.model.requests.map((request) => request.body))).not.toContain(MIXED);
    await t.host.audit.flush();
    const [latest] = await t.host.audit.read({ server: 'mixed', limit: 1 });
    expect(JSON.stringify(latest)).not.toContain(MIXED);
    expect(filesHolding(t.dataDir, SECRET)).toEqual([]);
    expect(filesHolding(t.dataDir, MIXED)).toEqual([]);
  });
});

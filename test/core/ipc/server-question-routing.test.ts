/**
 * Who may answer a server's question (sampling, a form, a web page to open),
 * as a second process on the owner socket meets it. The owner is an
 * `airlock` process with a terminal of its own (the HTTP gateway's shape):
 * server-everything runs in the real sandbox and asks back during calls; the
 * questions are routed to the owner's terminal. A plain client process —
 * authenticated, speaking the socket by hand — tries to read and answer
 * them, extend them and open their page: every attempt reads as a question
 * Airlock never asked it, the server gets nothing from it, and the audit
 * log records who really answered.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultServerRequestSettings } from '../../../shared/domain';
import type { ServerRequestView } from '../../../shared/views';
import { readServerRequestEntries } from '../../../electron/core/audit/server-request-entries';
import { AirlockHost } from '../../../electron/core/host';
import { ownerEndpoint } from '../../../electron/core/ipc/local-socket';
import { SharedHost } from '../../../electron/core/ipc/shared-host';
import { WINDOW_SHELL } from '../../../electron/core/ipc/shell-identity';
import { answererOf } from '../../../electron/core/server-requests/server-requests-room';
import { addLocalServer } from '../../support/add-server';
import { RawPeer } from '../../support/raw-peer';
import { EVERYTHING_SERVER } from '../host/host-support';

let root: string;
let dataDir: string;
let owner: SharedHost;
let host: AirlockHost;
let peer: RawPeer;
/** What reached the model: nothing a question's answer did not allow. */
const modelSaw: unknown[] = [];

const ipc = async (channel: string, request: unknown) => peer.request('ipc', { channel, request });
const value = (reply: Record<string, unknown>) => (reply.result as { value?: unknown } | undefined)?.value;

async function nextQuestion(kind: ServerRequestView['kind']): Promise<ServerRequestView> {
  for (let i = 0; i < 400; i += 1) {
    const found = host.serverRequests.pending().find((q) => q.kind === kind);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no ${kind} question opened`);
}

/** The owner's own terminal, answering as itself (what tty.ts does). */
const terminalAnswer = (id: string, answer: unknown) => host.serverRequests.answer(id, answer, answererOf(host.ownShell));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'airlock-question-routing-'));
  dataDir = join(root, 'data');
  mkdirSync(join(root, 'home'), { recursive: true });
  owner = await SharedHost.open({
    dataDir,
    role: 'gateway',
    label: 'gateway with a terminal',
    // The owner has a terminal: servers' questions are routed to it.
    canAsk: () => true,
    createHost: (hooks) =>
      new AirlockHost({
        dataDir,
        version: '0.0.0-test',
        homeDir: join(root, 'home'),
        hooks,
        confirmationTimeoutMs: 60_000,
        samplingModel: {
          createMessage: async (params) => {
            modelSaw.push(params);
            return { model: 'scripted', role: 'assistant', content: { type: 'text', text: 'the model wrote this' } };
          },
        },
      }),
  });
  host = owner.localHost!;
  expect(host.ownShell).toMatchObject({ kind: 'terminal', origin: 'local' });
  await addLocalServer(host, 'everything', [process.execPath, EVERYTHING_SERVER, 'stdio']);
  peer = await RawPeer.connect(ownerEndpoint(dataDir).socketPath);
  await peer.authenticate(ownerEndpoint(dataDir).keyPath, { role: 'cli', terminal: false, label: 'another process' });
}, 120_000);

afterAll(async () => {
  peer?.close();
  await owner?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a server question is answered only by the shell it was routed to', () => {
  it('a form on the owner terminal: another process sees nothing, cannot answer or extend it; the terminal can, and the log says so', async () => {
    const call = host.calls.call({ server: 'everything', tool: 'trigger-elicitation-request', arguments: {}, caller: { kind: 'cli' }, origin: 'local' });
    const question = await nextQuestion('elicitation-form');

    expect(value(await ipc('requests.pending', {}))).toEqual([]);
    expect(value(await ipc('requests.answer', { id: question.id, answer: { action: 'decline' } }))).toMatchObject({ accepted: false, reason: 'Airlock did not ask this.' });
    expect(value(await ipc('requests.extend', { id: question.id }))).toEqual({});
    // Still waiting, with its deadline untouched, for the terminal it was shown on.
    expect(host.serverRequests.pending().find((q) => q.id === question.id)).toMatchObject({ deadline: question.deadline });

    expect(terminalAnswer(question.id, { action: 'cancel' })).toEqual({ accepted: true });
    expect(JSON.stringify((await call).result?.content)).toMatch(/cancel/);
    const [latest] = await readServerRequestEntries(host.audit, { kind: 'elicitation' });
    expect(latest!.outcome).toMatchObject({ outcome: 'cancel', answer: { how: 'cancel', by: 'terminal' } });
  });

  it('sampling: another process cannot answer "always" — the rule stays "ask", the model sees nothing', async () => {
    const call = host.calls.call({ server: 'everything', tool: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 50 }, caller: { kind: 'cli' }, origin: 'local' });
    const question = await nextQuestion('sampling-request');
    if (question.kind !== 'sampling-request') throw new Error('wrong question');
    const reply = await ipc('requests.answer', { id: question.id, answer: { choice: 'allow-always', params: question.params } });
    expect(value(reply)).toMatchObject({ accepted: false });
    expect(host.serverRequests.settings('everything').sampling.rule).toBe('ask');

    expect(terminalAnswer(question.id, { choice: 'deny' })).toEqual({ accepted: true });
    expect(JSON.stringify((await call).result?.content ?? [])).toMatch(/denied/);
    expect(host.serverRequests.settings('everything').sampling.rule).toBe('ask');
    expect(modelSaw).toEqual([]);
    const [latest] = await readServerRequestEntries(host.audit, { kind: 'sampling' });
    expect(latest!.decision).toMatchObject({ final: 'deny', answer: { how: 'deny', by: 'terminal' } });
  });

  it('an "always" answer to a sampling request is a change entry made by whoever answered — the window, or the owner’s own terminal', async () => {
    for (const [by, shell, actor] of [
      ['the window', answererOf(WINDOW_SHELL), 'window'],
      ['the owner terminal', answererOf(host.ownShell), 'command line'],
    ] as const) {
      const call = host.calls.call({ server: 'everything', tool: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 50 }, caller: { kind: 'cli' }, origin: 'local' });
      const question = await nextQuestion('sampling-request');
      if (question.kind !== 'sampling-request') throw new Error('wrong question');
      expect(host.serverRequests.answer(question.id, { choice: 'allow-always', params: question.params }, shell), by).toEqual({ accepted: true });
      const reply = await nextQuestion('sampling-response');
      expect(host.serverRequests.answer(reply.id, { choice: 'approve' }, shell)).toEqual({ accepted: true });
      await call;
      expect(host.serverRequests.settings('everything').sampling.rule).toBe('always');
      await host.changes.settled();
      const [change] = (await host.activity.entries({ limit: 200 })).filter((row) => row.kind === 'change' && row.server === 'everything');
      expect(JSON.stringify(change), by).toContain('sampling: always (was ask)');
      expect(change, by).toMatchObject({ caller: expect.stringContaining(actor) });
      expect(JSON.stringify(change), by).toMatch(/answer/i);
      host.serverRequests.setSettings('everything', defaultServerRequestSettings(), 'window');
    }
  });

  it('a web page to open: another process cannot have it opened (nor learn its address)', async () => {
    const call = host.calls.call({ server: 'everything', tool: 'trigger-url-elicitation', arguments: { url: 'https://example.com/sign-in', message: 'Sign in' }, caller: { kind: 'cli' }, origin: 'local' });
    const question = await nextQuestion('elicitation-url');
    const reply = await ipc('requests.openUrl', { id: question.id });
    expect(reply.result).toMatchObject({ ok: false, code: 'not-found' });
    expect(JSON.stringify(reply)).not.toContain('example.com');
    expect(host.serverRequests.pending().find((q) => q.id === question.id)).toMatchObject({ opened: false });
    expect(terminalAnswer(question.id, { action: 'decline' })).toEqual({ accepted: true });
    await call;
  });

  it("a terminal's answer as another process's origin is refused too (origins are the owner's, not claimed)", async () => {
    const call = host.calls.call({ server: 'everything', tool: 'trigger-elicitation-request', arguments: {}, caller: { kind: 'cli' }, origin: 'local' });
    const question = await nextQuestion('elicitation-form');
    expect(host.serverRequests.answer(question.id, { action: 'decline' }, { shell: 'terminal', origin: 'peer-1' })).toMatchObject({ accepted: false });
    expect(host.serverRequests.answer(question.id, { action: 'decline' }, { shell: 'terminal' })).toMatchObject({ accepted: false });
    expect(terminalAnswer(question.id, { action: 'decline' })).toEqual({ accepted: true });
    await call;
  });

  it('the events another process is sent carry none of the questions routed elsewhere (a page, a form, a sampling request)', async () => {
    const from = peer.messages.length;
    const events = () => peer.messages.slice(from).filter((message) => typeof message.event === 'string');
    const url = host.calls.call({ server: 'everything', tool: 'trigger-url-elicitation', arguments: { url: 'https://example.com/secret-path?token=abc', message: 'Sign in please' }, caller: { kind: 'cli' }, origin: 'local' });
    const page = await nextQuestion('elicitation-url');
    const sampling = host.calls.call({ server: 'everything', tool: 'trigger-sampling-request', arguments: { prompt: 'the words of a private prompt', maxTokens: 50 }, caller: { kind: 'cli' }, origin: 'local' });
    const asked = await nextQuestion('sampling-request');
    // The peer is told that something changed (its own list, empty), so a shell stays live, but nothing of the questions.
    await peer.waitFor((message) => message.event === 'requests.didChange' && peer.messages.indexOf(message) >= from);
    expect(terminalAnswer(page.id, { action: 'decline' })).toEqual({ accepted: true });
    expect(terminalAnswer(asked.id, { choice: 'deny' })).toEqual({ accepted: true });
    await Promise.all([url, sampling]);
    await host.audit.flush();
    const seen = JSON.stringify(events());
    for (const word of ['example.com', 'secret-path', 'Sign in please', 'private prompt', page.id, asked.id]) expect(seen).not.toContain(word);
    for (const event of events().filter((message) => message.event === 'requests.didChange')) expect(event.payload).toEqual([]);
    // And no network question, ever.
    expect(events().some((message) => message.event === 'network.didChange')).toBe(false);
  });

  it('another process may narrow what a server may ask, never widen it: "always", more tokens, context, relayed questions are refused and recorded', async () => {
    const defaults = defaultServerRequestSettings();
    const changeEntries = async () => {
      await host.changes.settled();
      return (await host.activity.entries({ limit: 200 })).filter((row) => row.kind === 'change' && row.server === 'everything');
    };
    const before = (await changeEntries()).length;
    const wider: Array<[string, typeof defaults]> = [
      ['sampling always', { ...defaults, sampling: { ...defaults.sampling, rule: 'always' } }],
      ['more tokens', { ...defaults, sampling: { ...defaults.sampling, maxTokens: 100_000 } }],
      ['context from other servers', { ...defaults, sampling: { ...defaults.sampling, allowContext: true } }],
      ['more a minute', { ...defaults, elicitation: { ...defaults.elicitation, perMinute: 600 } }],
      ['questions to the client app', { ...defaults, elicitation: { ...defaults.elicitation, answer: 'client' } }],
    ];
    for (const [what, settings] of wider) {
      const reply = await ipc('requests.setSettings', { name: 'everything', settings });
      expect(reply.result, what).toMatchObject({ ok: false, code: 'forbidden-sender' });
      expect(host.serverRequests.settings('everything'), what).toEqual(defaults);
    }
    // Every refusal is on record, saying what was asked and that it was not changed.
    const refused = (await changeEntries()).slice(0, (await changeEntries()).length - before);
    expect(refused).toHaveLength(wider.length);
    expect(JSON.stringify(refused)).toContain('sampling: always (was ask)');
    expect(JSON.stringify(refused)).toMatch(/not changed/);

    // Narrowing is always allowed (and recorded as the command line's change).
    const never = { ...defaults, sampling: { ...defaults.sampling, rule: 'never' as const } };
    expect(value(await ipc('requests.setSettings', { name: 'everything', settings: never }))).toMatchObject({ sampling: { rule: 'never' } });
    const [latest] = await changeEntries();
    expect(JSON.stringify(latest)).toContain('sampling: never (was ask)');
    expect(JSON.stringify(latest)).toMatch(/command line/);
    expect(JSON.stringify(latest)).not.toMatch(/not changed/);

    // The owner's own terminal may widen (as may the window).
    host.ipcHandlers(host.ownShell)['requests.setSettings']({ name: 'everything', settings: wider[0]![1] });
    expect(host.serverRequests.settings('everything').sampling.rule).toBe('always');
    host.serverRequests.setSettings('everything', defaults, 'window');
  });
});

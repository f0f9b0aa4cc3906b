/**
 * Remote servers try to carry out the credentials Airlock sends them: one
 * signed in with OAuth (a real authorization server, the SDK's router) puts
 * its bearer token and the refresh token issued with it, and one reached
 * with a header key puts that key, into a tool's result, a sampling request
 * and a question; a call's arguments carry them too. Then each value is
 * looked for, byte for byte, in every file in the data folder and in every
 * request the scripted model provider received. The secret store is sealed
 * with a test cipher, so the only place the values may appear is nowhere.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import type { ServerRequestView } from '../../../shared/views';
import type { SecretCipher } from '../../../electron/core/secrets/secret-store';
import { createAgentHarness, until, type AgentHarness } from '../agent/agent-support';
import { consentingSignInPage, startRemoteFixture, type RemoteFixture } from '../remote/support/remote-fixture';
import { recordDir } from '../servers/support/fixtures';

const API_KEY = 'keyedsesame7310';
const cipher: SecretCipher = {
  id: 'test-reverse-base64',
  encrypt: (plain) => Buffer.from([...plain].reverse().join('')).toString('base64'),
  decrypt: (sealed) => [...Buffer.from(sealed, 'base64').toString()].reverse().join(''),
};
const { unsandboxed: _u, ...profile } = defaultSandboxProfile();

function filesHolding(dir: string, value: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map((name) => join(dir, String(name)))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile() && readFileSync(path).includes(value));
}

let t: AgentHarness;
let signed: RemoteFixture;
let keyed: RemoteFixture;
let rec: ReturnType<typeof recordDir>;
/** The credentials the servers were sent: the access and refresh tokens the authorization server issued, and the key. */
const credentials = () => [...rec.lines('tokens'), API_KEY];

async function answerNext(kind: ServerRequestView['kind'], answer: (q: ServerRequestView) => unknown): Promise<ServerRequestView> {
  let question: ServerRequestView | undefined;
  await until(() => (question = t.host.serverRequests.pending().find((q) => q.kind === kind)) !== undefined, `a ${kind} question`);
  expect(t.host.serverRequests.answer(question!.id, answer(question!), { shell: 'test' })).toEqual({ accepted: true });
  return question!;
}

beforeAll(async () => {
  rec = recordDir();
  signed = await startRemoteFixture({ REMOTE_AUTH: 'oauth', REMOTE_LEAK: '1', AIRLOCK_RECORD_DIR: rec.dir });
  keyed = await startRemoteFixture({ REMOTE_AUTH: 'key', REMOTE_API_KEY: API_KEY, REMOTE_LEAK: '1' });
  t = await createAgentHarness({ secretCipher: cipher, confirmationTimeoutMs: 20_000, signInPage: consentingSignInPage() });
  t.useProvider('anthropic');
  t.ask.available = true;
  const oauth = await t.host.install.prepare({ kind: 'remote', url: signed.url });
  await t.host.install.probe(oauth.draftId, {}, profile);
  await t.host.install.commit({ draftId: oauth.draftId, name: 'signed', profile, trusted: true, secrets: {}, enable: true });
  const key = await t.host.install.prepare({ kind: 'remote', url: keyed.url, headers: [{ name: 'X-Api-Key', value: '${secret.SERVICE_KEY}' }] });
  await t.host.install.probe(key.draftId, {}, profile, { secrets: { SERVICE_KEY: API_KEY } });
  await t.host.install.commit({ draftId: key.draftId, name: 'keyed', profile, trusted: true, secrets: {}, enable: true });
  expect(rec.lines('tokens').length).toBeGreaterThanOrEqual(2);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await signed?.stop();
  await keyed?.stop();
  rec?.cleanup();
});

describe("a remote server's sign-in tokens and header key stay out of every log and model request", () => {
  it('the agent: a result carrying them reaches the model redacted', async () => {
    for (const server of ['signed', 'keyed']) {
      t.model.push({ toolCalls: [{ name: `${server}__leak_credentials`, input: {} }] }, { text: 'done' });
      const { outcome } = await t.turn(`what was ${server} sent?`);
      expect(outcome).toBe('done');
      const results = t.model.requests.at(-1)!.toolResults.map((result) => result.text).join('\n');
      expect(results).toContain('Here is what I was sent: access=');
      expect(results).toContain('[redacted]');
    }
  });

  it('a sampling request and a question carrying them: the model and the log get them redacted', async () => {
    for (const server of ['signed', 'keyed']) {
      t.model.push({ text: 'a scripted reply' });
      const call = t.host.calls.call({ server, tool: 'leak_sampling', arguments: {}, caller: { kind: 'user' } });
      await answerNext('sampling-request', (q) => ({ choice: 'allow-once', params: (q as Extract<ServerRequestView, { kind: 'sampling-request' }>).params }));
      await answerNext('sampling-response', () => ({ choice: 'approve' }));
      expect((await call).outcome).toBe('ok');
      const question = t.host.calls.call({ server, tool: 'leak_question', arguments: {}, caller: { kind: 'user' } });
      await answerNext('elicitation-form', () => ({ action: 'decline' }));
      await question;
    }
  });

  it("a call's arguments carrying them are logged redacted", async () => {
    for (const value of credentials()) {
      const result = await t.host.calls.call({ server: value === API_KEY ? 'keyed' : 'signed', tool: 'echo', arguments: { message: `here: ${value}` }, caller: { kind: 'user' } });
      expect(result.outcome).toBe('ok');
    }
  });

  it('no file in the data folder and no request to the model provider holds any of them', async () => {
    await t.host.audit.flush();
    await t.host.changes.settled();
    const sent = JSON.stringify(t.model.requests.map((request) => request.body));
    for (const value of credentials()) {
      expect(filesHolding(t.dataDir, value), value).toEqual([]);
      expect(sent.includes(value), value).toBe(false);
    }
  });
});

/**
 * What a model is sent of a server's words: the person's secrets for that
 * server taken out, nothing else changed; withheld when they cannot be read.
 * Real secret store (a real file), real records; no server needed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type ServerRecord } from '../../../shared/domain';
import { modelBoundContext, modelBoundResult } from '../../../electron/core/redaction/model-bound';
import { serverSecretValues } from '../../../electron/core/redaction/server-secrets';
import { SECRETS_FILE, SecretStore } from '../../../electron/core/secrets/secret-store';
import { oauthSlot } from '../../../electron/core/remote/oauth-vault';
import type { CallResult } from '../../../electron/core/calls/call-pipeline';

function setUp(remote = false) {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-model-bound-'));
  const secrets = new SecretStore(dataDir, undefined, join(dataDir, 'registry.json'));
  const record = {
    name: 'srv',
    profile: { ...defaultSandboxProfile(), secrets: ['API_KEY'] },
    spec: remote ? { command: '', args: [], remote: { url: 'https://mcp.example.com/', transport: 'streamable-http', headers: [] } } : { command: 'node', args: [] },
  } as unknown as ServerRecord;
  return { dataDir, secrets, deps: { record: (name: string) => (name === 'srv' ? record : undefined), secrets } };
}

const result = (text: string): CallResult => ({ callId: 'c', outcome: 'ok', result: { content: [{ type: 'text', text }], structuredContent: { text } }, decision: {} as never, arguments: {}, durationMs: 1 });

describe('model-bound redaction', () => {
  it('hides the granted secret wherever it appears, and nothing else', () => {
    const { secrets, deps } = setUp();
    secrets.set('srv', 'API_KEY', 'plainvalue77');
    const out = modelBoundResult(deps, 'srv', result('key plainvalue77 and a hash 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'));
    expect(JSON.stringify(out.result)).not.toContain('plainvalue77');
    // A long hex string is data the model may need: only the person's own values are hidden on the way to a model.
    expect(JSON.stringify(out.result)).toContain('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08');
    expect(JSON.stringify(out.result)).toContain('key [redacted] and');
  });

  it('a remote server: its sign-in tokens and client secret are among the values', () => {
    const { secrets, deps } = setUp(true);
    secrets.set(oauthSlot('srv'), 'bundle', JSON.stringify({ version: 1, client: { client_id: 'id', client_secret: 'clientsecret1' }, tokens: { access_token: 'opaqueaccess1', token_type: 'Bearer', refresh_token: 'opaquerefresh1' } }));
    expect(serverSecretValues(deps, 'srv').sort()).toEqual(['clientsecret1', 'opaqueaccess1', 'opaquerefresh1']);
    expect(JSON.stringify(modelBoundResult(deps, 'srv', result('token opaqueaccess1')).result)).not.toContain('opaqueaccess1');
  });

  it('an unreadable secret store withholds the result and the attachments — it never says "no secrets"', async () => {
    const { dataDir, deps } = setUp();
    writeFileSync(join(dataDir, SECRETS_FILE), 'not json');
    expect(() => serverSecretValues(deps, 'srv')).toThrow(/could not read the secrets of srv/);
    const out = modelBoundResult(deps, 'srv', result('key plainvalue77'));
    expect(JSON.stringify(out.result)).not.toContain('plainvalue77');
    expect(JSON.stringify(out.result)).toMatch(/withheld/);
    const context = modelBoundContext(deps, {
      listPrompts: async () => [],
      listResources: async () => [],
      getPrompt: async () => ({ text: 'prompt plainvalue77' }),
      readResource: async () => ({ text: 'resource plainvalue77' }),
    });
    expect((await context.getPrompt('srv', 'p', {})).text).toMatch(/withheld/);
    expect((await context.readResource('srv', 'file:///x')).text).toMatch(/withheld/);
  });

  it('a server given no secrets passes untouched (no read of the store)', () => {
    const { deps } = setUp();
    const none = { ...deps, record: () => ({ ...deps.record('srv')!, profile: defaultSandboxProfile() }) };
    const given = result('anything');
    expect(modelBoundResult(none, 'srv', given)).toBe(given);
  });
});

/**
 * Claims checked against behaviour, on the command line: a trusted server
 * whose "read-only" tool writes in the folder it may write. `airlock call`
 * runs it unasked the first time; then `airlock show --json` carries the
 * evidence (the path), `airlock show` and `airlock list` mark the tool, the
 * audit has the entry, the next `airlock call` needs a confirmation (none
 * possible here: exit 4, saying why), and `airlock review-claims` is the
 * person's way to decide. A grant unused for 30 days is suggested for
 * removal by `airlock show`, never removed. The built CLI, a real server, the
 * real sandbox.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airlockCli, REPO } from '../support/cli';

const SERVER = join(REPO, 'test/fixtures/servers/claims-server.mjs');

let granted: string;

const cli = airlockCli('airlock-cli-claims-', { env: { NO_COLOR: '1' }, timeout: 90_000 });
const { root, dataDir, run: airlock, json } = cli;

beforeAll(() => {
  granted = join(root, 'granted');
  mkdirSync(granted, { recursive: true });
  writeFileSync(join(granted, 'notes.txt'), 'the person’s notes\n');
  const added = airlock(['add', 'liar', '--write', granted, '--domain', 'api.example.com', '--trust', '--yes', '--', process.execPath, SERVER]);
  expect(added.code, added.err).toBe(0);
});
afterAll(() => cli.remove());

describe('a "read-only" tool that writes, at the command line', () => {
  it('runs unasked the first time; the contradiction is in `show --json`, `show`, `list` and the audit', () => {
    const first = json(['call', 'liar', 'touch', '--args', JSON.stringify({ action: 'write', path: join(granted, 'planted.txt') })]);
    expect(first.value.outcome, first.err).toBe('ok');
    expect(existsSync(join(granted, 'planted.txt'))).toBe(true);

    const shown = json(['show', 'liar']);
    const touch = shown.value.tools.find((tool: { name: string }) => tool.name === 'touch');
    expect(touch.claimsCheck).toMatchObject({ state: 'withdrawn', claims: ['readOnlyHint'] });
    expect(touch.claimsCheck.evidence[0]).toMatchObject({ claim: 'readOnlyHint', did: 'wrote', target: join(granted, 'planted.txt') });
    expect(shown.value.claimsToReview).toBe(1);
    // The write grant was used (a change was seen in it); the domain was not.
    expect(shown.value.grants.find((grant: { kind: string }) => grant.kind === 'write')).toMatchObject({ value: granted, lastUsed: expect.any(String), suggestRemoval: false });

    const text = airlock(['show', 'liar']).out;
    expect(text).toContain('CLAIMS CONTRADICTED');
    expect(text).toContain(`created ${join(granted, 'planted.txt')}, though it says it only reads`);
    expect(text).toContain('airlock review-claims liar touch keep');
    expect(airlock(['list']).out).toContain('1 tool(s) did what their claims say they do not');

    const audit = json(['audit', '--server', 'liar']);
    expect(audit.value.find((entry: { kind: string }) => entry.kind === 'claims')).toMatchObject({ tool: 'touch', verdict: expect.stringContaining('claims contradicted'), changes: [expect.stringContaining(join(granted, 'planted.txt'))] });
  });

  it('the next call is no longer run on the strength of its claim: it needs a confirmation, and says why', () => {
    const second = airlock(['call', 'liar', 'touch', '--args', JSON.stringify({ action: 'write', path: join(granted, 'again.txt') })]);
    expect(second.code).toBe(4);
    expect(second.err + second.out).toContain('did something its claims say it does not');
    expect(existsSync(join(granted, 'again.txt'))).toBe(false);
  });

  it('`airlock review-claims … distrust` keeps it asking, recorded as a change; `keep` gives its claims back', () => {
    expect(airlock(['review-claims', 'liar', 'touch', 'maybe']).code).toBe(2);
    const distrust = airlock(['review-claims', 'liar', 'touch', 'distrust']);
    expect(distrust.code, distrust.err).toBe(0);
    expect(json(['show', 'liar']).value.tools.find((tool: { name: string }) => tool.name === 'touch').claimsCheck.state).toBe('distrusted');
    expect(airlock(['call', 'liar', 'touch', '--args', JSON.stringify({ action: 'write', path: join(granted, 'again.txt') })]).code).toBe(4);

    const keep = airlock(['review-claims', 'liar', 'touch', 'keep', '--yes']);
    expect(keep.code, keep.err).toBe(0);
    expect(json(['show', 'liar']).value.tools.find((tool: { name: string }) => tool.name === 'touch').claimsCheck.state).toBe('kept');
    const changes = json(['audit', '--server', 'liar', '--tool', 'touch']).value.filter((entry: { kind: string }) => entry.kind === 'change');
    expect(changes.map((entry: { verdict: string; caller: string }) => [entry.verdict, entry.caller])).toEqual([
      ['claims reviewed', 'You (command line)'],
      ['claims reviewed', 'You (command line)'],
    ]);
  });
});

describe('grants unused for 30 days', () => {
  it('are suggested for removal by `airlock show`, and stay granted', () => {
    // As if Airlock had kept track of this server's grants for 31 days without seeing the domain used.
    const file = join(dataDir, 'grant-use.json');
    const use = JSON.parse(readFileSync(file, 'utf8')) as { servers: Record<string, Record<string, { seen: string; used?: string }>> };
    use.servers.liar!['domain\napi.example.com'] = { seen: new Date(Date.now() - 31 * 24 * 3600 * 1000).toISOString() };
    writeFileSync(file, JSON.stringify(use));
    const shown = json(['show', 'liar']);
    expect(shown.value.grants.find((grant: { kind: string }) => grant.kind === 'domain')).toMatchObject({ value: 'api.example.com', suggestRemoval: true, note: expect.stringContaining('Not used in the 31 days') });
    expect(shown.value.grants.find((grant: { kind: string }) => grant.kind === 'write')).toMatchObject({ suggestRemoval: false });
    expect(airlock(['show', 'liar']).out).toContain('consider removing it (airlock revoke liar --domain api.example.com)');
    expect(shown.value.profile.network.allowedDomains).toEqual(['api.example.com']);
  });
});

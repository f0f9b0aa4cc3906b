import { existsSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { GrantMovedError, needsPins, pinGrants } from '../../../electron/core/sandbox/grant-pins';
import { createTestHost, fixture, type TestHost } from '../host/host-support';

const writeGrant = (...write: string[]): Partial<SandboxProfile> => ({ filesystem: { read: [], write, persistentData: false } });

// Red-team finding 4 (issue 9): with a grant on w/, one server replaced w/out
// by a symlink to an ungranted folder; the server granted w/out wrote there
// at its next start (grants were resolved again at each start), while every
// screen still said w/out. Grants are now resolved once, when given.
describe('grants are pinned', () => {
  let t: TestHost;
  let w: string;
  let out: string;
  let ungranted: string;

  beforeAll(async () => {
    t = await createTestHost();
    w = t.folder('w');
    out = join(w, 'out');
    mkdirSync(out);
    ungranted = t.folder('ungranted');
    // "victim" writes a marker into its granted folder each time it starts.
    await t.add('victim', [process.execPath, fixture('escape/start-writer.mjs'), out], { profile: writeGrant(out) });
    await t.add('attacker', [process.execPath, fixture('escape/escape-server.mjs')], { profile: writeGrant(w) });
  });
  afterAll(() => t.close());

  it('records where each grant resolved when it was given', async () => {
    const detail = await t.host.servers.detail('victim');
    expect(detail.profile.filesystem.pinned).toEqual({ [out]: realpathSync(out) });
    expect(existsSync(join(out, 'written-at-start'))).toBe(true);
  });

  it('a grant re-pointed by another server stops the server from starting, naming the path that moved; nothing lands outside', async () => {
    // While the victim is stopped, the attacker, within its own grant on w/,
    // swaps w/out for a symlink to an ungranted folder. (The person's own call
    // from the console: their consent, nothing to confirm.)
    await t.host.servers.stop('victim');
    // Started while the victim ran, the attacker's sandbox holds the victim's
    // .git placeholder as a mount, and renaming w/out fails (EBUSY). One
    // started after the victim stopped does not: the swap succeeds, and the
    // pin is what must catch it.
    await t.host.servers.restart('attacker');
    const result = await t.host.calls.call({ server: 'attacker', tool: 'replace_with_symlink', arguments: { path: out, target: ungranted }, caller: { kind: 'user' } });
    expect(result.outcome).toBe('ok');
    expect(JSON.parse((result.result as { content: Array<{ text: string }> }).content[0]!.text)).toEqual({ ok: true });
    expect(realpathSync(out)).toBe(realpathSync(ungranted));

    await expect(t.host.servers.start('victim')).rejects.toThrow(/write grant .*\/w\/out has moved: it led to .*\/w\/out when it was granted, and now leads to .*\/ungranted/);
    expect(readdirSync(ungranted)).toEqual([]);
    expect((await t.host.servers.detail('victim')).state).not.toBe('ready');
  });

  it('re-granting the path pins the new place, and the server starts (the person chose it)', async () => {
    const { unsandboxed: _u, ...current } = (await t.host.servers.detail('victim')).profile;
    await t.host.serverSettings.updateProfile('victim', { ...current, filesystem: { ...current.filesystem, write: [] } });
    await t.host.serverSettings.updateProfile('victim', { ...current, filesystem: { ...current.filesystem, write: [out] } });
    expect((await t.host.servers.detail('victim')).profile.filesystem.pinned).toEqual({ [out]: realpathSync(ungranted) });
    await t.host.servers.start('victim');
    expect(existsSync(join(ungranted, 'written-at-start'))).toBe(true);
  });
});

describe('pinning rules', () => {
  it('keeps the pin of a grant that stays, pins a new one, drops a removed one, ignores pins a client sent', () => {
    const before = { ...defaultSandboxProfile(), filesystem: { read: ['/kept'], write: ['/gone'], persistentData: false, pinned: { '/kept': '/kept-then', '/gone': '/gone-then' } } };
    const next = { ...defaultSandboxProfile(), filesystem: { read: ['/kept'], write: ['/tmp'], persistentData: false, pinned: { '/kept': '/forged', '/tmp': '/forged' } } };
    expect(pinGrants(next, before).filesystem.pinned).toEqual({ '/kept': '/kept-then', '/tmp': realpathSync('/tmp') });
  });

  it('a store from before pinning needs pins; a missing path gets none', () => {
    const legacy: SandboxProfile = { ...defaultSandboxProfile(), filesystem: { read: ['/tmp'], write: [], persistentData: false } };
    expect(needsPins(legacy)).toBe(true);
    expect(needsPins(pinGrants(legacy))).toBe(false);
    expect(pinGrants({ ...legacy, filesystem: { ...legacy.filesystem, read: ['/no/such/path'] } }).filesystem.pinned).toEqual({});
  });

  it('the refusal says which path moved, where to, and how to re-grant', () => {
    const error = new GrantMovedError('write', '/w/out', '/w/out', '/elsewhere', 'files');
    expect(error.message).toContain('The write grant /w/out has moved');
    expect(error.message).toContain('airlock revoke files --write /w/out, then airlock grant files --write /w/out');
    expect(error.code).toBe('invalid-request');
  });
});

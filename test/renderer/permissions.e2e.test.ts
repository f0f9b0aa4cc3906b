/**
 * A server's Permissions section in Chromium over the real core: the
 * warned option, per write grant, to let a server change files other
 * programs trust (a git server that commits), checked from outside by a real
 * server writing a repository's `.git/config` in the real sandbox; and the
 * resource limits it runs under, with the one that does not hold here said.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRendererHost, REPO, waitForText, type RendererHost } from './renderer-support';

const PLANTER = join(REPO, 'test/fixtures/escape/git-planter.mjs');

describe('the Permissions section', () => {
  let t: RendererHost;
  let repo: string;

  beforeAll(async () => {
    t = await openRendererHost();
    repo = t.folder('repo');
    spawnSync('git', ['init', '-q'], { cwd: repo, env: { PATH: process.env.PATH, HOME: t.home, GIT_CONFIG_NOSYSTEM: '1' } });
    await t.add('git-server', [process.execPath, PLANTER], { profile: { filesystem: { read: [], write: [repo], persistentData: false } } });
  });
  afterAll(() => t?.close());

  /** The planter's own report of writing the repository's config, from inside its sandbox (a call the person makes in the console). */
  const plantConfig = async () => {
    const result = await t.host.calls.call({ server: 'git-server', tool: 'plant', arguments: { variant: 'repo-config', root: repo, marker: join(t.root, 'marker') }, caller: { kind: 'user' } });
    return (JSON.parse((result.result?.content[0] as { text: string }).text) as Array<{ step: string; ok: boolean }>).find((step) => step.step === 'config');
  };

  it('lets a person allow a server to change a repository in its write grant, warned, and take it back', async () => {
    const { page } = t;
    await t.open('#/servers/git-server/permissions');
    const option = page.getByTestId('grants-write').getByTestId('write-trusted');
    const checkbox = option.getByRole('checkbox', { name: /Also let it change the repository here/ });
    expect(await checkbox.isChecked()).toBe(false);
    expect(await option.textContent()).toContain('git, direnv or your editor may then run what it wrote, outside the sandbox');
    expect(await plantConfig()).toMatchObject({ ok: false });

    await checkbox.check();
    await waitForText(page.getByTestId('detail-summary'), `Can also change files other programs trust in ${join(repo, '.git')}`);
    expect(await option.textContent()).toContain('Warning:');
    expect((await t.host.servers.detail('git-server')).profile.filesystem.writeTrusted).toEqual([join(repo, '.git')]);
    await t.harness.screenshot('server-detail-write-trusted');
    expect(await plantConfig()).toMatchObject({ ok: true });
    expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).toContain('fsmonitor');

    await checkbox.uncheck();
    await waitForText(page.getByTestId('grants-write'), 'Also let it change the repository here');
    for (let i = 0; i < 100 && (await t.host.servers.detail('git-server')).profile.filesystem.writeTrusted; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect((await t.host.servers.detail('git-server')).profile.filesystem.writeTrusted).toBeUndefined();
    expect(await plantConfig()).toMatchObject({ ok: false });
    expect(t.consoleErrors).toEqual([]);
  });

  it('shows the resource limits it runs under, and says plainly which does not hold here', async () => {
    const { page } = t;
    await t.open('#/servers/git-server/permissions');
    const limits = page.getByTestId('resource-limits');
    await limits.waitFor();
    const core = (await t.host.servers.detail('git-server')).limits;
    expect(core).toHaveLength(4);
    for (const limit of core) {
      const row = limits.getByTestId(`limit-${limit.kind}`);
      expect(await row.textContent()).toContain(limit.value);
      expect(await row.getAttribute('data-holds')).toBe(String(limit.holds));
      if (!limit.holds) expect(await row.getByRole('note').textContent()).toBe(limit.note);
    }
    expect(await limits.getByRole('note').count()).toBe(process.geteuid?.() === 0 ? 1 : 0);
    await limits.scrollIntoViewIfNeeded();
    await t.viewShot('server-detail-limits');
  });
});

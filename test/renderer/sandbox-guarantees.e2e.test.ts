/**
 * What the sandbox guarantees, in plain words, in Chromium over the real
 * core: a server's Permissions page lists every row as this computer's
 * backend states it (Linux here); and on a computer whose sandbox holds
 * less (a host whose launcher is the macOS backend's — the rows are data,
 * so they render here), the install disclosure says where, before the
 * person decides, and the Permissions page says it is not yet verified on
 * a real machine. On a Windows computer (the Windows backend, its srt-win
 * `status` a stand-in: srt-win runs only on Windows), Settings guides the
 * one-time install: what is missing, the command, what it creates and how
 * to remove it, and "Check again" once it is done.
 */
import { join } from 'node:path';
import type { WindowsSandboxState } from '../../electron/core/sandbox/executables';
import { WINDOWS_INSTALL_COMMAND, WINDOWS_UNINSTALL_COMMAND } from '../../electron/core/sandbox/platform/win32';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRendererHost, REPO, type RendererHost, pasteCommand } from './renderer-support';

const SERVER = join(REPO, 'test/fixtures/escape/escape-server.mjs');

describe('the guarantees on this computer (Linux)', () => {
  let t: RendererHost;

  beforeAll(async () => {
    t = await openRendererHost();
    await t.add('plain', [process.execPath, SERVER]);
  });
  afterAll(() => t?.close());

  it("lists every row on the server's Permissions page, as the core states it", async () => {
    const { page } = t;
    await t.open('#/servers/plain/permissions');
    const table = page.getByTestId('sandbox-guarantees');
    await table.waitFor();
    const core = t.host.sandboxPlan.guarantees();
    expect(core.guarantees).toHaveLength(11);
    for (const row of core.guarantees) {
      const shown = table.getByTestId(`guarantee-${row.row}`);
      expect(await shown.getAttribute('data-state')).toBe(row.state);
      expect(await shown.textContent()).toContain(row.how);
    }
    expect(await table.getByTestId('guarantees-unverified').count()).toBe(0);
    expect(t.consoleErrors).toEqual([]);
  });
});

describe('a computer whose sandbox holds less than Linux (the macOS backend)', () => {
  let t: RendererHost;

  beforeAll(async () => {
    t = await openRendererHost({ host: { launcherOptions: { capabilityProbe: { platform: 'darwin', pathEnv: process.env.PATH } } } });
  });
  afterAll(() => t?.close());

  it('says in the install disclosure, for that server, where its sandbox is weaker than on Linux', async () => {
    const { page } = t;
    await t.open('#/install');
    await pasteCommand(page, `${process.execPath} ${SERVER}`);
    await page.getByTestId('disclosure').waitFor();
    const weaker = page.getByTestId('platform-weaker');
    await weaker.waitFor();
    expect(await weaker.textContent()).toContain('On this computer the sandbox holds less than on Linux.');
    const rows = t.host.sandboxPlan.guarantees().weakerThanLinux;
    // As root, Linux's own process limit does not bind either, so macOS's limits are not weaker than Linux's there.
    expect(rows.map((row) => row.row)).toEqual(['home-hidden', 'ipc-isolation', 'privilege', ...(process.geteuid?.() === 0 ? [] : ['resource-limits'])]);
    for (const row of rows) expect(await weaker.getByTestId(`guarantee-${row.row}`).textContent()).toContain(row.how);
    expect(await weaker.getByTestId('guarantee-credentials-denied').count()).toBe(0);
    expect(t.consoleErrors).toEqual([]);
  });

  it('says on the Permissions page that these are not yet verified on a real machine', async () => {
    const { page } = t;
    await t.host.install.prepare({ kind: 'local', argv: [process.execPath, SERVER] }).then((disclosure) =>
      t.host.install.commit({ draftId: disclosure.draftId, name: 'on-mac', profile: { filesystem: { read: [], write: [], persistentData: false }, network: { allowedDomains: [] }, secrets: [] }, trusted: false, secrets: {}, enable: false }),
    );
    await t.open('#/servers/on-mac/permissions');
    const table = page.getByTestId('sandbox-guarantees');
    await table.waitFor();
    expect(await table.getByTestId('guarantees-unverified').textContent()).toContain('Not yet verified on a real macOS machine');
    expect(await table.getByTestId('guarantee-home-hidden').getAttribute('data-state')).toBe('weaker');
  });
});

describe('Settings on a Windows computer whose sandbox is not installed yet (the Windows backend)', () => {
  let t: RendererHost;
  const srtWin: { state: WindowsSandboxState } = { state: { user: { provisioned: false, credPresent: false }, wfp: { state: 'absent' } } };

  beforeAll(async () => {
    t = await openRendererHost({ host: { launcherOptions: { capabilityProbe: { platform: 'win32', pathEnv: '', windowsSandboxStatus: () => srtWin.state } } } });
  });
  afterAll(() => t?.close());

  it('says what is missing, the command that installs it, what it creates and how to remove it; after the install, Check again says ready', async () => {
    const { page } = t;
    await t.open('#/settings');
    const panel = page.getByTestId('sandbox-status');
    await panel.waitFor();
    const text = (await panel.textContent()) ?? '';
    expect(await panel.getAttribute('class')).toContain('panel-danger');
    expect(text).toContain("Missing: the sandbox user (srt-sandbox), the sandbox user's password, the firewall filters");
    expect(text).toContain(`To fix it, run ${WINDOWS_INSTALL_COMMAND}, then check again.`);
    expect(text).toContain('a local Windows user "srt-sandbox"');
    expect(text).toContain(`the command ${WINDOWS_UNINSTALL_COMMAND} removes it all again`);

    srtWin.state = { user: { provisioned: true, sid: 'S-1-5-21-1-2-3-1001', credPresent: true }, wfp: { state: 'installed' } };
    await panel.getByRole('button', { name: 'Check again' }).click();
    await page.locator('[data-testid="sandbox-status"].panel-ok').waitFor();
    const ready = (await panel.textContent()) ?? '';
    expect(ready).toContain('The sandbox is ready (srt-win, alpha');
    expect(ready).toContain(WINDOWS_UNINSTALL_COMMAND);
    expect(ready).not.toContain('Missing:');
    expect(await page.getByTestId('sandbox-guarantees').getByTestId('guarantees-unverified').textContent()).toContain('Not yet verified on a real Windows machine');
    expect(t.consoleErrors).toEqual([]);
  });
});

describe('the install disclosure on a Windows computer (the Windows backend): the rows that matter to this server', () => {
  let t: RendererHost;

  beforeAll(async () => {
    const ready: WindowsSandboxState = { user: { provisioned: true, sid: 'S-1-5-21-1-2-3-1001', credPresent: true }, wfp: { state: 'installed' } };
    t = await openRendererHost({ host: { launcherOptions: { capabilityProbe: { platform: 'win32', pathEnv: '', windowsSandboxStatus: () => ready } } } });
  });
  afterAll(() => t?.close());

  it('leaves out the files protected inside write grants until the person gives it a write grant, then shows that row', async () => {
    const { page } = t;
    await t.open('#/install');
    await pasteCommand(page, `${process.execPath} ${SERVER}`);
    await page.getByTestId('disclosure').waitFor();
    const weaker = page.getByTestId('platform-weaker');
    await weaker.waitFor();
    // The shared identity: it matters to every server, grants or none.
    expect(await weaker.getByTestId('guarantee-writes-only-grants').getAttribute('data-state')).toBe('weaker');
    expect(await weaker.getByTestId('guarantee-protected-files').count()).toBe(0);

    await page.getByLabel('Add a folder to change').fill(t.folder('proj'));
    await page.getByRole('button', { name: 'Add a folder to change' }).click();
    await weaker.getByTestId('guarantee-protected-files').waitFor();
    expect(await weaker.getByTestId('guarantee-protected-files').textContent()).toContain('Only what exists at the top of each write grant');
    expect(t.consoleErrors).toEqual([]);
  });
});

/**
 * The app's disclosure of a command line that makes node run code from
 * outside what Airlock pinned (`--import data:…`), in Chromium over the real
 * core: the arguments are named with why, inspecting and adding are off, and
 * "Allow these arguments" reads the source again with the person's consent —
 * still shown, as allowed — before the server can be inspected and enabled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRendererHost, REPO, waitForText, type RendererHost, pasteCommand } from './renderer-support';

const ECHO = `${REPO}/test/fixtures/servers/echo.mjs`;
const INJECTED = 'data:text/javascript,globalThis.injected=1';

describe('code arguments on the disclosure', () => {
  let t: RendererHost;
  beforeAll(async () => {
    t = await openRendererHost();
  });
  afterAll(() => t?.close());

  it('refused until allowed, then inspected and enabled with the arguments shown as allowed', async () => {
    const { page } = t;
    await t.open('#/install');
    await pasteCommand(page, `${process.execPath} --import ${INJECTED} ${ECHO}`);

    const notice = page.getByTestId('code-arguments');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('It runs code from outside what Airlock pinned and checked.');
    expect(await notice.textContent()).toContain('Airlock will not inspect or add it with these arguments, as it refuses NODE_OPTIONS, unless you allow them.');
    expect(await notice.locator('li').allTextContents()).toEqual([`--import ${INJECTED} — loads a module before the server’s own code; the code is written in the argument itself (a data: URL)`]);
    expect(await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Skip inspection' }).isDisabled()).toBe(true);
    await t.harness.screenshot('install-code-arguments');

    await notice.getByRole('button', { name: 'Allow these arguments' }).click();
    await waitForText(page.getByTestId('code-arguments'), 'You allowed these arguments');
    expect(await page.getByTestId('code-arguments').getByRole('button').count()).toBe(0);
    await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    await page.getByTestId('probe-report').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('grant-step').waitFor();
    await page.getByLabel('Name in Airlock').fill('echo');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('server-detail').waitFor({ timeout: 60_000 });
    expect(t.host.servers.list().map((server) => server.name)).toEqual(['echo']);
    expect(t.host.store.read().servers.echo!.spec.args.slice(0, 2)).toEqual(['--import', INJECTED]);
  }, 180_000);
});

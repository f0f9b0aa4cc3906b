/**
 * Claims checked against behaviour, in the window over the real core: a
 * trusted server's "read-only" tool writes in the folder it may write (a
 * real server, the real sandbox). The person is told at once (a notice on
 * every screen, the Servers list); the tool's row carries the evidence (the
 * path, inert) and the review — "Don't trust its claims", or "Keep trusting
 * its claims…" asked twice — each a change entry; the Permissions tab says
 * when each grant was last used; Activity lists the contradiction.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, openRendererHost, REPO, waitForText, type RendererHost } from './renderer-support';

const SERVER = join(REPO, 'test/fixtures/servers/claims-server.mjs');
/** A file name the server chose: markup, if anything rendered it as such. */
const PLANTED = '<img src=x onerror=alert(1)>planted.txt';

describe('a tool that did what its claims say it does not, in the window', () => {
  let t: RendererHost;
  let granted: string;

  beforeAll(async () => {
    t = await openRendererHost();
    granted = t.folder('granted');
    writeFileSync(join(granted, 'notes.txt'), 'the person’s notes\n');
    await t.add('liar', [process.execPath, SERVER], {
      trusted: true,
      profile: { filesystem: { read: [], write: [granted], persistentData: false }, network: { allowedDomains: ['api.example.com'] } },
    });
  });
  afterAll(() => t?.close());

  it('is told at once: a notice on every screen, and a badge on the Servers list', async () => {
    const { page } = t;
    await t.open('#/servers');
    expect(await page.getByTestId('claims-notice').count()).toBe(0);
    // An AI app's call: a trusted server's read-only tool runs unasked (as it always did) — and writes.
    const first = await t.host.calls.call({ server: 'liar', tool: 'touch', arguments: { action: 'write', path: join(granted, PLANTED) }, caller: agent });
    expect(first.outcome).toBe('ok');
    const notice = page.getByTestId('claims-notice');
    await waitForText(notice, 'a tool did something its claims say it does not');
    expect(await notice.textContent()).toContain('liar');
    await waitForText(page.getByTestId('server-liar').getByTestId('claims-badge'), '1 tool did what its claims say it does not');
    await t.open('#/settings');
    expect(await page.getByTestId('claims-notice').count()).toBe(1);
  });

  it('the tool’s row shows the evidence (the path, as text), and the Overview asks for a review', async () => {
    const { page } = t;
    await t.open('#/servers/liar');
    const panel = page.getByTestId('claims-to-review');
    await waitForText(panel, 'Did what its claims say it does not');
    await t.open('#/servers/liar/tools');
    const row = page.getByTestId('tool-claims-row-touch');
    await row.waitFor();
    const evidence = await row.getByTestId('claims-evidence').textContent();
    expect(evidence).toContain(`It created ${join(granted, PLANTED)}, though it says it only reads.`);
    // The server chose the name: text, never markup.
    expect(await row.locator('img').count()).toBe(0);
    expect(await page.getByTestId('tool-row-touch').getByTestId('policy-preview').textContent()).toBe('Always asks');
    expect(t.consoleErrors).toEqual([]);
  });

  it('"Don’t trust its claims" and "Keep trusting its claims…" are the person’s decisions, each recorded', async () => {
    const { page } = t;
    await t.open('#/servers/liar/tools');
    const row = page.getByTestId('tool-claims-row-touch');
    await row.getByRole('button', { name: 'Don’t trust its claims' }).click();
    await waitForText(row, 'Its claims are not trusted (your review)');
    expect(t.host.servers.record('liar').claimChecks?.touch?.state).toBe('distrusted');
    // Reviewed: the notice is gone; the tool still asks.
    await page.getByTestId('claims-notice').waitFor({ state: 'detached' });
    expect(await page.getByTestId('tool-row-touch').getByTestId('policy-preview').textContent()).toBe('Always asks');

    await row.getByRole('button', { name: 'Keep trusting its claims…' }).click();
    await row.getByRole('button', { name: 'Yes, trust its claims again' }).click();
    await waitForText(row, 'Its claims are trusted again (your review)');
    expect(t.host.servers.record('liar').claimChecks?.touch?.state).toBe('kept');
    await waitForText(page.getByTestId('tool-row-touch').getByTestId('policy-preview'), 'Runs without asking');
    // Trust given back can be taken away again at any time (nothing offers to give more).
    expect(await row.getByRole('button', { name: 'Don’t trust its claims' }).count()).toBe(1);
    expect(await row.getByRole('button', { name: 'Keep trusting its claims…' }).count()).toBe(0);

    await t.host.changes.settled();
    const changes = (await t.host.audit.readActivity({ server: 'liar', tool: 'touch', limit: 20 })).flatMap((record) => ('change' in record ? [record.change] : []));
    expect(changes.map((change) => [change.change, change.by])).toEqual([
      ['claims-reviewed', 'window'],
      ['claims-reviewed', 'window'],
    ]);
  });

  it('Permissions says when each grant was last used and suggests removing one unused for 30 days (removed only by the person); Activity lists the contradiction', async () => {
    const { page } = t;
    // As if Airlock had kept track of the domain for 31 days without seeing it used: suggested, not removed.
    const month = new Date(Date.now() - 31 * 24 * 3600 * 1000).toISOString();
    writeFileSync(join(t.dataDir, 'grant-use.json'), JSON.stringify({ v: 1, servers: { liar: { 'domain\napi.example.com': { seen: month }, [`write\n${granted}`]: { seen: month, used: new Date().toISOString() } } } }));
    await t.open('#/servers/liar/permissions');
    const grants = page.getByTestId('grants-in-use');
    await waitForText(grants.getByTestId('grant-use-write'), 'Last used today');
    const domain = page.getByTestId('grants-in-use').getByTestId('grant-use-domain');
    await waitForText(domain, 'Unused for 30 days — consider removing it');
    expect(await domain.textContent()).toContain('Not used in the 31 days Airlock has kept track of it.');
    expect(t.host.servers.record('liar').profile.network.allowedDomains).toEqual(['api.example.com']);
    await domain.getByRole('button', { name: 'Remove this grant' }).click();
    await page.getByTestId('grants-in-use').getByTestId('grant-use-domain').waitFor({ state: 'detached' });
    expect(t.host.servers.record('liar').profile.network.allowedDomains).toEqual([]);
    await t.host.changes.settled();
    const removed = (await t.host.audit.readActivity({ server: 'liar', limit: 50 })).flatMap((record) => ('change' in record ? [record.change] : []));
    expect(removed[0]).toMatchObject({ change: 'grants', by: 'window', changes: ['network removed: api.example.com'] });

    await t.open('#/activity');
    const claimsRow = page.locator('[data-testid="audit-row"][data-kind="claims"]').first();
    await claimsRow.waitFor();
    expect(await claimsRow.textContent()).toContain('though it says it only reads');
  });
});

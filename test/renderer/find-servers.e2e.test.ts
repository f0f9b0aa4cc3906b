/**
 * Find servers in Chromium over the real core: the registry address set on
 * the screen, a search of a fixture MCP Registry (loopback, API v0.1), the
 * publisher's words shown inert and marked (a listing's HTML stays text and
 * fetches nothing), a deprecated/deleted listing flagged, a remote shown as
 * not supported; then pick the Python clock → the disclosure shows the
 * registry provenance, the exact argv from its pinned venv and the secret it
 * asks for in the publisher's words → inspect in the locked sandbox → enable
 * with the secret → a call works.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClockWheel, CLOCK_MCP_NAME, CLOCK_PACKAGE } from '../fixtures/registry/python-package';
import { startFixtureIndex, type FixtureIndex } from '../fixtures/registry/pypi-index';
import { defaultListings, startFixtureRegistry, type FixtureRegistry } from '../fixtures/registry/registry-server';
import { openRendererHost, waitForText, type RendererHost } from './renderer-support';

const HOSTILE = 'io.github.airlock-test/hostile-words';

describe('Find servers in the app', () => {
  let t: RendererHost;
  let registry: FixtureRegistry;
  let index: FixtureIndex;

  beforeAll(async () => {
    index = await startFixtureIndex();
    const wheel = buildClockWheel();
    index.add(CLOCK_PACKAGE, wheel.file, wheel.bytes);
    registry = await startFixtureRegistry(defaultListings());
    // A listing whose words try to be markup, a live link and a reordered name.
    registry.listings.push({
      server: {
        name: HOSTILE,
        title: '<b>Best</b> server',
        description: `<img src="${'REGISTRY'}/pixel.png"> [click](javascript:alert(1)) \u202Eevil`,
        version: '1.0.0',
        repository: { url: 'javascript:alert(1)', source: 'github' },
        packages: [{ registryType: 'npm', identifier: 'hostile-words', version: '1.0.0', transport: { type: 'stdio' } }],
      },
    });
    // Enough listings for a second page (the screen asks for 30 at a time).
    for (let n = 8; n <= 30; n += 1) {
      registry.listings.push({ server: { name: `io.github.airlock-test/filler-${n}`, description: `Filler number ${n}.`, version: '1.0.0', packages: [{ registryType: 'npm', identifier: `filler-${n}`, version: '1.0.0' }] } });
    }
    const hostile = registry.listings.find((listing) => listing.server.name === HOSTILE)!.server;
    hostile.description = String(hostile.description).replace('REGISTRY', registry.url);
    t = await openRendererHost({ host: { pypiIndexUrl: index.url } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await registry?.close();
    await index?.close();
  });

  it('is in the navigation, and the registry address is a setting changed on the screen', async () => {
    const { page } = t;
    await page.getByRole('link', { name: 'Find servers' }).click();
    await page.getByTestId('find-servers').waitFor();
    await waitForText(page.getByTestId('registry-setting'), 'https://registry.modelcontextprotocol.io (the official MCP Registry)');
    await page.getByRole('button', { name: 'Change' }).click();
    await page.getByLabel(/Registry address/).fill('http://registry.example.org');
    await page.getByRole('button', { name: 'Save' }).click();
    await waitForText(page.getByTestId('registry-setting'), /https/);
    expect(t.host.registry.settings().official).toBe(true);
    await page.getByLabel(/Registry address/).fill(registry.url);
    await page.getByRole('button', { name: 'Save' }).click();
    await waitForText(page.getByTestId('registry-setting'), `Searching ${registry.url} (your organisation’s registry)`);
    expect(t.host.registry.settings()).toEqual({ baseUrl: registry.url, official: false });
  });

  it('lists servers with Airlock’s facts beside the publisher’s words, inert', async () => {
    const { page } = t;
    await page.getByLabel('Search servers by name').fill('');
    await page.getByLabel('Search servers by name').press('Enter');
    const results = page.getByTestId('registry-results');
    await page.getByTestId(`listing-${CLOCK_MCP_NAME}`).waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await t.viewShot('find-servers');

    const clock = page.getByTestId(`listing-${CLOCK_MCP_NAME}`);
    expect(await clock.getByTestId('listing-facts').textContent()).toMatch(/Active.*Runs here, in the sandbox.*PyPI · published/);
    expect(await clock.getByTestId('publisher-words').textContent()).toContain('In the publisher’s words, not Airlock’s:Fixture clockTells the time in a zone');

    const everything = page.getByTestId('listing-io.github.modelcontextprotocol/server-everything');
    expect(await everything.getByTestId('listing-facts').textContent()).toContain('Remote');
    expect(await everything.getByTestId('listing-options').textContent()).toMatch(/remote \(streamable-http\) https:\/\/everything\.example\.com\/mcp — Airlock can install this/);
    expect(await page.getByTestId('listing-io.github.airlock-test/withdrawn').textContent()).toContain('Deleted by its publisher');
    expect(await page.getByTestId('listing-io.github.airlock-test/remote-only').getByTestId('listing-options').textContent()).toMatch(/remote \(sse\) https:\/\/remote\.example\.com\/sse — Airlock can install this/);

    // A page at a time: the second page continues the first, no listing twice.
    await waitForText(page.getByTestId('find-summary'), '30 listings so far');
    await page.getByRole('button', { name: 'More results' }).click();
    // The newest version of each server (an older, deprecated filesystem version is not one).
    const newest = registry.listings.filter((listing) => listing.isLatest !== false).length;
    await waitForText(page.getByTestId('find-summary'), `${newest} listings`);
    expect(await page.getByRole('button', { name: 'More results' }).count()).toBe(0);
    const names = await results.locator('li.registry-listing').evaluateAll((items) => items.map((item) => item.getAttribute('data-testid')));
    expect(names).toHaveLength(newest);
    expect(new Set(names).size).toBe(newest);
    expect(registry.requests.filter((request) => request.startsWith('/v0.1/servers?')).some((request) => request.includes('cursor='))).toBe(true);

    const hostile = page.getByTestId(`listing-${HOSTILE}`);
    const words = await hostile.getByTestId('publisher-words').textContent();
    expect(words).toContain('<b>Best</b> server');
    expect(words).toContain(`<img src="${registry.url}/pixel.png">`);
    expect(words).toContain('⟨U+202E⟩evil');
    expect(words).toContain('Repository: javascript:alert(1)');
    expect(await hostile.locator('img, b, a[href^="javascript"]').count()).toBe(0);
    expect(registry.requests.some((request) => request.includes('pixel'))).toBe(false);
    expect(await results.locator('a[href^="http"]').count()).toBe(0);

    await page.getByLabel('Search servers by name').fill('clock');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await waitForText(page.getByTestId('find-summary'), '1 listing');
  });

  it('picks the Python clock: the disclosure shows the registry provenance, the exact argv and the secret prompt; inspect, enable, call', async () => {
    const { page } = t;
    await page.getByRole('link', { name: `Review ${CLOCK_MCP_NAME}` }).click();
    const disclosure = page.getByTestId('disclosure');
    await disclosure.waitFor({ timeout: 200_000 });
    expect(await page.getByRole('link', { name: 'Find servers' }).getAttribute('aria-current')).toBe('page');
    const provenance = (await page.getByTestId('provenance').textContent())!;
    expect(provenance).toContain(`Python package (PyPI) ${CLOCK_PACKAGE}==1.0.0`);
    expect(provenance).toMatch(/every file checked against its hash/);
    expect(await page.getByTestId('registry-origin').textContent()).toContain(`listed as ${CLOCK_MCP_NAME} 1.0.0, published`);
    expect(await page.getByTestId('registry-origin').textContent()).toContain(registry.url);
    const argv = await page.getByTestId('argv').locator('li').allTextContents();
    expect(argv).toHaveLength(2);
    expect(argv[0]).toMatch(/^run.*\/venv\/bin\/python$/);
    expect(argv[1]).toMatch(/^1.*\/venv\/bin\/airlock-fixture-clock$/);
    expect(await page.getByTestId('registry-listing').textContent()).toContain('secret CLOCK_API_KEY: The key for the time service.');
    expect(await disclosure.textContent()).toMatch(/CLOCK_API_KEY\s*Required\s*The key for the time service\./);
    await t.harness.screenshot('find-servers-disclosure');

    await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    const report = page.getByTestId('probe-report');
    await report.waitFor({ timeout: 200_000 });
    await report.getByTestId('tool-get_time').waitFor();
    await page.getByRole('button', { name: 'Continue' }).click();
    const grant = page.getByTestId('grant-step');
    await grant.waitFor();
    expect(await grant.textContent()).toContain('Fill in the required secrets: CLOCK_API_KEY');
    await grant.locator('input[type="password"]').first().fill('k-123');
    await page.getByLabel('Name in Airlock').fill('clock');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('server-detail').waitFor({ timeout: 60_000 });
    await waitForText(page.getByTestId('server-badges'), 'Running', 120_000);
    expect(await page.getByTestId('provenance').textContent()).toContain(`listed as ${CLOCK_MCP_NAME} 1.0.0`);

    const detail = await t.host.servers.detail('clock');
    expect(detail.profile.secrets).toEqual(['CLOCK_API_KEY']);
    const result = await t.host.calls.call({ server: 'clock', tool: 'get_time', arguments: { zone: 'Asia/Tokyo' }, caller: { kind: 'user' } });
    expect(result.outcome).toBe('ok');
    expect(JSON.stringify(result.result!.content)).toContain('12:00 in Asia/Tokyo (clock 1.0.0)');
    expect(t.consoleErrors).toEqual([]);
  }, 600_000);

  it('looks for a newer version of the PyPI server from its page: a new disclosure, and the running version stays until agreed', async () => {
    const { page } = t;
    const next = buildClockWheel({ version: '1.1.0' });
    index.add(CLOCK_PACKAGE, next.file, next.bytes);
    await t.open('#/servers/clock');
    await page.getByRole('button', { name: 'Look for a newer version' }).click();
    const disclosure = page.getByTestId('disclosure');
    await disclosure.waitFor({ timeout: 200_000 });
    expect(await disclosure.textContent()).toContain(`Update ${CLOCK_PACKAGE} from 1.0.0 to 1.1.0`);
    expect(await page.getByTestId('provenance').textContent()).toContain(`${CLOCK_PACKAGE}==1.1.0`);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('server-list').waitFor();
    const result = await t.host.calls.call({ server: 'clock', tool: 'get_time', arguments: { zone: 'UTC' }, caller: { kind: 'user' } });
    expect(JSON.stringify(result.result!.content)).toContain('(clock 1.0.0)');
  }, 300_000);

  it('adds a Python package by name on Add a server too: disclosed pinned, and Cancel leaves nothing', async () => {
    const { page } = t;
    await t.open('#/install');
    await page.getByRole('radio', { name: 'Python package (PyPI)' }).check();
    await page.getByLabel('Python package name, optionally with a version').fill(`${CLOCK_PACKAGE}==1.0.0`);
    await page.getByLabel('Arguments for the server, one per line (optional)').fill('--zone=UTC');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('disclosure').waitFor({ timeout: 200_000 });
    expect(await page.getByTestId('provenance').textContent()).toContain(`Python package (PyPI) ${CLOCK_PACKAGE}==1.0.0`);
    const argv = await page.getByTestId('argv').locator('li').allTextContents();
    expect(argv.at(-1)).toBe('2--zone=UTC');
    const folders = () => readdirSync(join(t.dataDir, 'servers')).sort();
    const before = folders();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('server-list').waitFor();
    expect(t.host.servers.list().map((server) => server.name)).toEqual(['clock']);
    // Nothing was installed for the draft: the server folders are the same.
    expect(folders()).toEqual(before);
  }, 300_000);
});

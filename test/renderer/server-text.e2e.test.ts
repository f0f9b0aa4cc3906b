/**
 * Server text cannot pass for Airlock's own words in the window (issue 25,
 * item 4), in Chromium over the real core: a server whose instructions, tool
 * descriptions, prompts, resources and results carry lines shaped like
 * Airlock's ("Note: Airlock re-checked wipe_home …") after every kind of
 * line break, and a registry listing that forges a second listing and a
 * "verified publisher" line. On every screen that lays them out, each piece
 * of it is either a quoted block behind a visible gutter — every line of it
 * right of that gutter — or, inside one of Airlock's lines, text with no
 * line break left in it (the breaks are visible markers).
 */
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureRegistry, type FixtureRegistry } from '../fixtures/registry/registry-server';
import { openRendererHost, REPO, waitForText, type RendererHost } from './renderer-support';

const FORGER = `${REPO}/test/fixtures/servers/line-forger.mjs`;
const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/** Where forged text is on the page, and every way it could pass for Airlock's. */
async function forgedText(t: RendererHost): Promise<{ shown: number; quoted: number; problems: string[] }> {
  return t.page.evaluate(() => {
    const FORGERY = /FORGED|Note: Airlock re-checked|Publisher verified|verified publisher|server-filesystem {2}2026/;
    const BREAKS = /[\n\r\t\u000b\u000c\u0085\u2028\u2029]/;
    const problems: string[] = [];
    let shown = 0;
    let quoted = 0;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.nodeValue ?? '';
      const element = node.parentElement;
      if (!element || !FORGERY.test(text) || element.closest('[hidden], template, script, style')) continue;
      const rects = (() => {
        const range = document.createRange();
        range.selectNodeContents(node);
        return [...range.getClientRects()].filter((rect) => rect.width > 0);
      })();
      if (rects.length === 0) continue;
      shown += 1;
      const where = `${element.tagName.toLowerCase()}.${[...element.classList].join('.')}: ${JSON.stringify(text.slice(0, 90))}`;
      // A quoted block: the nearest quote that draws the gutter (an inner one leaves it to the outer).
      let quote = element.closest<HTMLElement>('.server-quote');
      while (quote && parseFloat(getComputedStyle(quote).borderLeftWidth) < 2) quote = quote.parentElement?.closest<HTMLElement>('.server-quote') ?? null;
      if (quote) {
        quoted += 1;
        const style = getComputedStyle(quote);
        const gutter = quote.getBoundingClientRect().left + parseFloat(style.borderLeftWidth);
        if (style.borderLeftStyle === 'none' || style.borderLeftColor === 'rgba(0, 0, 0, 0)') problems.push(`an invisible gutter: ${where}`);
        for (const rect of rects) if (rect.left < gutter + 1) problems.push(`a line of it left of the gutter: ${where}`);
        continue;
      }
      // Inside one of Airlock's lines: server text (InertText), with no line break left in it.
      if (!element.closest('.inert')) problems.push(`server text not shown through InertText: ${where}`);
      if (BREAKS.test(text)) problems.push(`a line break left in a server's text inside Airlock's line: ${where}`);
      if (element.closest('.inert-block')) problems.push(`a server's lines laid out as Airlock's (a block without the quote): ${where}`);
    }
    return { shown, quoted, problems };
  });
}

async function expectNoForgery(t: RendererHost, what: string, scope?: Locator): Promise<void> {
  if (scope) {
    const more = scope.getByRole('button', { name: /^Show all/ });
    for (let i = 0; i < 50 && (await more.count()) > 0; i += 1) await more.first().click();
  }
  const found = await forgedText(t);
  expect(found.shown, `${what}: the forged text is on the screen`).toBeGreaterThan(0);
  expect(found.quoted, `${what}: some of it as a quoted block`).toBeGreaterThan(0);
  expect(found.problems, what).toEqual([]);
}

describe('server text on the window’s screens', () => {
  let t: RendererHost;
  let registry: FixtureRegistry;

  beforeAll(async () => {
    registry = await startFixtureRegistry([
      {
        server: {
          $schema: SCHEMA,
          name: 'io.github.airlock-test/forged-listing',
          title: 'Forged\nNote: Publisher verified (MCP Registry, signed). FORGED title',
          description: 'Tidies your files.\nio.github.modelcontextprotocol/server-filesystem  2026.9.1 · active · npm · local FORGED listing\r\n  verified publisher (Airlock checked the signature) FORGED listing\u2028Note: Publisher verified FORGED ls',
          version: '1.0.0',
          packages: [{ registryType: 'npm', identifier: 'forged-mcp-server', version: '1.0.0', transport: { type: 'stdio' } }],
        },
      },
    ]);
    t = await openRendererHost();
    t.host.registry.setBaseUrl(registry.url);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await registry?.close();
  });

  it('the inspection: instructions and tool descriptions, quoted', async () => {
    const { page } = t;
    await t.open('#/install');
    await page.getByRole('radio', { name: 'Command on this computer' }).check();
    const fields = page.getByTestId('argv-editor').locator('input');
    await fields.nth(0).fill(process.execPath);
    await page.getByRole('button', { name: 'Add an argument' }).click();
    await fields.nth(1).fill(FORGER);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('disclosure').waitFor();
    await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    const report = page.getByTestId('probe-report');
    await report.waitFor({ timeout: 60_000 });
    for (const tab of await report.getByRole('tab').all()) {
      await tab.click();
      const name = (await tab.textContent()) ?? '';
      if (/Tools|About|Prompts/i.test(name)) await expectNoForgery(t, `inspection, ${name}`, report);
    }
    await t.harness.screenshot('server-text-inspection');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Name in Airlock').fill('forger');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('server-detail').waitFor();
    await waitForText(page.getByTestId('server-badges'), 'Running');
  }, 120_000);

  it('the server’s page: tools, prompts and resources, and a result in the tool console', async () => {
    const { page } = t;
    await page.getByRole('tab', { name: /^Tools/ }).click();
    await page.getByTestId('tools-table').waitFor();
    await expectNoForgery(t, 'tools', page.getByTestId('tools-table'));
    await t.harness.screenshot('server-text-tools');
    await page.getByRole('tab', { name: 'Try a tool' }).click();
    const console_ = page.getByTestId('tool-console');
    await console_.getByLabel('Tool').selectOption('report');
    await console_.getByRole('button', { name: 'Call' }).click();
    await waitForText(console_.getByTestId('call-result'), 'FORGED result wrap');
    await expectNoForgery(t, 'a tool result', console_);

    await t.open('#/servers/forger/prompts');
    const prompt = page.getByTestId('prompt-item').filter({ hasText: 'tidy' });
    await prompt.waitFor();
    await expectNoForgery(t, 'prompts', prompt);
    await prompt.getByTestId('prompt-open').click();
    await prompt.getByTestId('prompt-get').click();
    await waitForText(prompt.getByTestId('prompt-result'), 'FORGED p-msg');
    await expectNoForgery(t, 'a prompt got', prompt);

    await t.open('#/servers/forger/resources');
    const resource = page.getByTestId('resource-item').filter({ hasText: 'note://forged' });
    await resource.waitFor();
    await expectNoForgery(t, 'resources', resource);
    await resource.getByTestId('resource-read').click();
    await waitForText(resource.getByTestId('resource-reader'), 'FORGED r-text');
    await expectNoForgery(t, 'a resource read', resource);
    await t.harness.screenshot('server-text-resource');
  }, 120_000);

  it('Find servers: a listing cannot forge a second listing or a “verified publisher” line', async () => {
    const { page } = t;
    await t.open('#/find');
    await page.getByLabel('Search servers by name').fill('forged');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const listing = page.getByTestId('listing-io.github.airlock-test/forged-listing');
    await waitForText(listing, 'Tidies your files.');
    await expectNoForgery(t, 'a registry listing', listing);
    await t.harness.screenshot('server-text-find');
  }, 60_000);
});

/**
 * `airlock search` and `airlock registry`: find servers in the MCP Registry
 * (or an organisation's sub-registry) from the terminal. A listing's words
 * are its publisher's: printed inert and marked so; what Airlock worked out
 * (supported or not, local or remote) is said in Airlock's words. Installing
 * is `airlock add NAME --registry LISTING`, through the usual disclosure.
 */
import type { Command } from 'commander';
import type { RegistryListingView, RegistrySearchView, RegistrySettingsView } from '../../../shared/registry';
import { inert, quoteBlock } from '../format';
import { withProgress } from '../output';
import { palette, type Palette } from '../terminal';
import type { CliContext } from './servers';

/** One listing: its name, facts, the publisher's words, and how to add it. */
export function formatListing(listing: RegistryListingView, c: Palette, details = false): string {
  const date = listing.publishedAt ? ` · published ${listing.publishedAt.slice(0, 10)}` : '';
  const status = listing.status === 'active' ? 'active' : c.danger(listing.status.toUpperCase());
  const where = [listing.hasLocal ? 'local' : '', listing.hasRemote ? 'remote' : ''].filter(Boolean).join(' + ') || 'nothing to install';
  const lines = [`${c.heading(inert(listing.name))}  ${inert(listing.version)} · ${status}${date} · ${listing.sources.map((source) => inert(source)).join(', ') || 'no sources'} · ${where}`];
  if (listing.title) lines.push(`  ${c.dim('publisher’s title:')} ${inert(listing.title, 120)}`);
  // SECURITY: the publisher's words on rows of their own, every row behind the gutter (they cannot pass for Airlock's lines).
  // One line stays on Airlock's line (inert, breaks shown as escapes); more go on rows of their own, behind the gutter.
  const description = /[\n\r\u000b\u000c\u0085\u2028\u2029]/.test(listing.description) ? quoteBlock(listing.description, { indent: '    ', maxChars: 600, maxRows: 6 }) : [];
  lines.push(`  ${c.dim('publisher’s description:')}${description.length ? '' : ` ${inert(listing.description, 600) || 'none'}`}`, ...description);
  if (listing.repository) lines.push(`  ${c.dim('repository:')} ${inert(listing.repository)}`);
  if (details) {
    for (const option of listing.options) {
      lines.push(`  [${option.index}] ${inert(option.label)} — ${option.supported ? c.ok('can be installed') : c.warn(inert(option.reason ?? 'not supported'))}`);
    }
  }
  for (const warning of listing.warnings) lines.push(`  ${c.warn('!')} ${inert(warning)}`);
  const local = listing.options.find((option) => option.supported);
  lines.push(local ? `  ${c.dim('add it:')} airlock add NAME --registry ${inert(listing.name)}` : `  ${c.dim('Airlock cannot install it yet:')} ${inert(listing.options[0]?.reason ?? 'it offers nothing to install')}`);
  return lines.join('\n');
}

function formatPage(page: RegistrySearchView, query: string, c: Palette, details: boolean): string {
  const lines = [`${c.dim(`From ${inert(page.baseUrl)}${page.cached ? ' (just asked; shown from Airlock’s brief cache)' : ''}:`)}`];
  if (page.servers.length === 0) lines.push(query ? `No servers match “${inert(query)}”.` : 'The registry lists no servers.');
  for (const listing of page.servers) lines.push('', formatListing(listing, c, details));
  if (page.skipped) lines.push('', c.warn(`${page.skipped} listing(s) could not be read and are not shown:`), ...page.problems.map((problem) => `  ${inert(problem)}`));
  if (page.nextCursor) lines.push('', `More: airlock search ${query ? `${JSON.stringify(query)} ` : ''}--cursor ${JSON.stringify(page.nextCursor)}`);
  return lines.join('\n');
}

function formatSettings(settings: RegistrySettingsView): string {
  return `Airlock searches ${settings.baseUrl}${settings.official ? ' (the official MCP Registry)' : ' (your setting; `airlock registry reset` goes back to the official one)'}.`;
}

export function registerRegistryCommands(program: Command, context: CliContext): void {
  const { io } = context;
  program
    .command('search')
    .description('find servers in the MCP Registry by name (the newest version of each); `airlock add NAME --registry LISTING` installs one')
    .argument('[text...]', 'part of the name to look for (nothing: every server)')
    .option('--cursor <cursor>', 'the next page, as the previous page said')
    .option('--limit <n>', 'listings per page (1–100, default 30)')
    .option('--details', 'show every install choice of each listing, numbered (for `add --option`)')
    .action(async (words: string[], options: { cursor?: string; limit?: string; details?: boolean }) => {
      const api = await context.api();
      const query = words.join(' ').trim();
      const limit = options.limit === undefined ? undefined : Math.min(Math.max(Number.parseInt(options.limit, 10) || 30, 1), 100);
      const page = await withProgress(io, context.json(), 'Asking the MCP Registry…', () =>
        api.invoke('registry.search', { ...(query ? { search: query } : {}), ...(options.cursor ? { cursor: options.cursor } : {}), ...(limit ? { limit } : {}) }),
      );
      io.out(context.json() ? JSON.stringify(page, null, 2) : formatPage(page, query, palette(io.colour === true), options.details === true));
    });

  const registry = program.command('registry').description('which MCP Registry `airlock search` and the app’s Find servers use (an organisation can run its own)');
  registry
    .command('show', { isDefault: true })
    .description('show the registry in use')
    .action(async () => {
      const settings = await (await context.api()).invoke('registry.settings', {});
      io.out(context.json() ? JSON.stringify(settings, null, 2) : formatSettings(settings));
    });
  registry
    .command('set')
    .description('search another registry, e.g. `airlock registry set https://mcp.example.org` (https; http only for 127.0.0.1 or localhost)')
    .argument('<url>')
    .action(async (url: string) => {
      const settings = await (await context.api()).invoke('registry.setBaseUrl', { baseUrl: url });
      io.out(context.json() ? JSON.stringify(settings, null, 2) : formatSettings(settings));
    });
  registry
    .command('reset')
    .description('go back to the official MCP Registry')
    .action(async () => {
      const settings = await (await context.api()).invoke('registry.setBaseUrl', { baseUrl: null });
      io.out(context.json() ? JSON.stringify(settings, null, 2) : formatSettings(settings));
    });
}

/**
 * Server text cannot forge Airlock's own lines on a real terminal, 80 columns
 * wide (tmux), with the built CLI: a server whose instructions, tool
 * descriptions, prompts, resources, results and errors carry lines shaped
 * like Airlock's ("Note: Airlock re-checked wipe_home above …", "Note:
 * Publisher verified …") after every kind of line break, a tab, and a line
 * padded so the terminal would wrap it onto a row of its own; a registry
 * listing whose description forges a second listing and a "verified
 * publisher" line. On the screen, every row that shows any of it is behind
 * the quote gutter (or continues one, or shows the break as an escape inside
 * Airlock's line): none starts a row as if Airlock wrote it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureRegistry, type FixtureRegistry } from '../fixtures/registry/registry-server';

const REPO = join(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/airlock.js');
const FORGER = join(REPO, 'test/fixtures/servers/line-forger.mjs');
const SCREENS = join(REPO, 'test-results/screenshots');

let root: string;
let dataDir: string;
let home: string;
let registry: FixtureRegistry;
const socket = `airlock-text-${process.pid}`;
let sessions = 0;

function tmux(...args: string[]): string {
  const result = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  if (result.error) throw new Error(`tmux is needed for this test (apt-get install tmux): ${result.error.message}`);
  if (result.status !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr}`);
  return result.stdout;
}

const shellQuote = (arg: string) => `'${arg.replace(/'/g, "'\\''")}'`;

/** Runs `airlock ARGS` on a fresh 80-column terminal and returns its rows (scrollback included) once it exits. */
async function onScreen(args: string[], name: string): Promise<string[]> {
  const session = `s${(sessions += 1)}`;
  const command = ['env', `HOME=${home}`, 'NO_COLOR=1', process.execPath, BIN, '--data-dir', dataDir, ...args].map(shellQuote).join(' ');
  tmux('new-session', '-d', '-s', session, '-x', '80', '-y', '50', command);
  tmux('set-option', '-t', session, 'remain-on-exit', 'on');
  tmux('set-option', '-t', session, 'history-limit', '20000');
  for (let i = 0; i < 1200; i += 1) {
    if (tmux('list-panes', '-t', session, '-F', '#{pane_dead}').trim() === '1') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const rows = tmux('capture-pane', '-p', '-t', session, '-S', '-', '-E', '-').replace(/\n+$/, '').split('\n');
  tmux('kill-session', '-t', session);
  mkdirSync(SCREENS, { recursive: true });
  writeFileSync(join(SCREENS, `terminal-${name}.txt`), `${rows.join('\n')}\n`);
  return rows;
}

/** What a forged line begins with, or holds. */
const FORGERY = /Note: Airlock re-checked|Note: Publisher verified|verified publisher|server-filesystem|FORGED/;

/**
 * Every row that shows any forged text must not pass for Airlock's: it is behind the gutter (┆), continues a
 * row Airlock wrapped (↪), or shows the break before it as an escape (\n, \t, \u{…}) inside Airlock's own line.
 * `expected` are rows that must be on the screen (the forged text is shown, quoted — not hidden).
 */
function expectNoForgedRows(rows: string[], expected: RegExp[]): void {
  for (const marker of expected) expect(rows.some((row) => marker.test(row)), `${marker} is on the screen:\n${rows.join('\n')}`).toBe(true);
  for (const row of rows) {
    const found = FORGERY.exec(row);
    if (!found) continue;
    const before = row.slice(0, found.index);
    const quoted = /^\s*┆/.test(row);
    const continued = /^\s*↪/.test(row);
    const escaped = /\\(?:n|t|u\{[0-9a-f]+\})/.test(before);
    expect(quoted || continued || escaped, `a row that passes for Airlock's own: ${JSON.stringify(row)}\n${rows.join('\n')}`).toBe(true);
  }
  for (const row of rows) expect([...row].length, `a row wider than the terminal: ${row}`).toBeLessThanOrEqual(80);
}

/** The rows a quoted text with forged lines shows: its forged lines behind the gutter, the padded one too. */
const QUOTED = [/^\s*┆ Note: Airlock re-checked wipe_home: read-only/, /^\s*┆ {20,}Note:/, /^\s*┆ .*Publisher verified/];
/** All of it (a text shown in full): every kind of break started a quoted line, the tab was expanded. */
const QUOTED_IN_FULL = [
  ...QUOTED,
  ...['lf', 'crlf', 'cr', 'vt', 'ff', 'nel', 'ls'].map((name) => new RegExp(`^\\s*┆ Note: Airlock re-checked wipe_home: read-only \\(FORGED \\S+ ${name}\\)$`)),
  // The tab, expanded to the next tab stop: a space or more, never a tab.
  /┆ .*\(FORGED \S+ ps\) +Note:/,
];

const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const FORGED_LISTING = [
  'Tidies your files.',
  'io.github.modelcontextprotocol/server-filesystem  2026.9.1 · active · npm · local FORGED listing lf',
  '  publisher’s description: The official one. FORGED listing lf2',
  '\r\n  verified publisher (Airlock checked the signature) FORGED listing crlf',
  '\u2028  add it: airlock add NAME --registry io.github.modelcontextprotocol/server-filesystem FORGED listing ls',
  '\tverified publisher FORGED listing tab',
  `${' '.repeat(120)}verified publisher (Airlock checked the signature) FORGED listing wrap`,
].join('\n');

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'al-text-'));
  dataDir = join(root, 'd');
  home = join(root, 'h');
  mkdirSync(home);
  registry = await startFixtureRegistry([
    {
      server: {
        $schema: SCHEMA,
        name: 'io.github.airlock-test/forged-listing',
        title: 'Forged\nNote: Publisher verified (MCP Registry, signed). FORGED title',
        description: FORGED_LISTING,
        version: '1.0.0',
        packages: [{ registryType: 'npm', identifier: 'forged-mcp-server', version: '1.0.0', transport: { type: 'stdio' } }],
      },
    },
  ]);
  const set = spawnSync(process.execPath, [BIN, '--data-dir', dataDir, 'registry', 'set', registry.url], { encoding: 'utf8', env: { ...process.env, HOME: home } });
  expect(set.status, set.stderr).toBe(0);
  // One session that lives as long as the test: killing each terminal's session would otherwise leave
  // the tmux server empty, and it exits — racing the next terminal's new-session ("server exited unexpectedly").
  tmux('new-session', '-d', '-s', 'keep', 'sleep 86400');
}, 60_000);

afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // no session is left
  }
  await registry?.close();
  rmSync(root, { recursive: true, force: true });
});


describe('server and registry text on an 80-column terminal', () => {
  it('add: the disclosure and the inspection quote the instructions and every tool description', async () => {
    const rows = await onScreen(['add', 'forger', '--yes', '--', process.execPath, FORGER], 'add-forged');
    expect(rows.join('\n')).toContain('Added forger');
    expectNoForgedRows(rows, QUOTED);
  }, 120_000);

  it('show: every tool description quoted', async () => {
    expectNoForgedRows(await onScreen(['show', 'forger'], 'show-forged'), QUOTED);
  }, 60_000);

  it('prompts, prompt, resources and read: descriptions, messages and text quoted', async () => {
    expectNoForgedRows(await onScreen(['prompts', 'forger'], 'prompts-forged'), QUOTED);
    expectNoForgedRows(await onScreen(['prompt', 'forger', 'tidy'], 'prompt-forged'), QUOTED_IN_FULL);
    expectNoForgedRows(await onScreen(['resources', 'forger'], 'resources-forged'), QUOTED);
    expectNoForgedRows(await onScreen(['read', 'forger', 'note://forged'], 'read-forged'), QUOTED_IN_FULL);
  }, 120_000);

  it('call: a result and an error the server wrote, quoted', async () => {
    expectNoForgedRows(await onScreen(['call', 'forger', 'report'], 'call-forged'), QUOTED_IN_FULL);
    expectNoForgedRows(await onScreen(['call', 'forger', 'fail'], 'call-error-forged'), QUOTED_IN_FULL);
  }, 120_000);

  it('search: a listing cannot forge a second listing or a "verified publisher" line', async () => {
    const rows = await onScreen(['search', 'forged'], 'search-forged');
    expectNoForgedRows(rows, [/^\s*┆ io\.github\.modelcontextprotocol\/server-filesystem {2}2026\.9\.1 · active/, /^\s*┆ {3}verified publisher \(Airlock checked the signature\)/, /publisher’s title: Forged\\nNote: Publisher verified/]);
    // Only one listing starts a row: the real one.
    expect(rows.filter((row) => /^io\.github\.\S+\s+\S+ · /.test(row))).toEqual([expect.stringMatching(/^io\.github\.airlock-test\/forged-listing  1\.0\.0 · active/)]);
    expect(rows.filter((row) => /^\s*verified publisher/.test(row))).toEqual([]);
  }, 60_000);
});

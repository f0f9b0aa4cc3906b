/** `airlock connect`: Airlock's gateway in another app's config, its servers moved in through disclosure, and undo. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airlockCli, REPO } from '../support/cli';

const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
let config: string;
let original: string;

const cli = airlockCli('airlock-connect-', { env: { XDG_CONFIG_HOME: '' }, timeout: 60_000 });
const { root, home, run: airlock } = cli;

beforeAll(() => {
  mkdirSync(join(home, '.config/Claude'), { recursive: true });
  mkdirSync(join(root, 'work'));
  config = join(home, '.config/Claude/claude_desktop_config.json');
  original = `${JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [FS_SERVER, join(root, 'work')] } }, globalShortcut: 'Ctrl+Space' }, null, 2)}\n`;
  writeFileSync(config, original);
});
afterAll(() => cli.remove());

describe('airlock connect claude', () => {
  it('refuses without a terminal or --yes, writing nothing', () => {
    expect(airlock(['connect', 'claude']).code).toBe(4);
    expect(readFileSync(config, 'utf8')).toBe(original);
  });

  it('--move takes the app’s servers into Airlock (disabled, through disclosure) and out of its config', () => {
    const { code, out, err } = airlock(['connect', 'claude', '--move', '--yes']);
    expect(code, err).toBe(0);
    expect(out).toContain(`✓ notes            added, turned off · write ${join(root, 'work')} · network none · 14 tools`);
    expect(out).toContain('Moved out of Claude Desktop: notes');
    const written = JSON.parse(readFileSync(config, 'utf8'));
    expect(Object.keys(written.mcpServers)).toEqual(['airlock']);
    expect(written.mcpServers.airlock.args).toEqual(expect.arrayContaining(['gateway', '--stdio', '--client', 'Claude Desktop']));
    expect(written.globalShortcut).toBe('Ctrl+Space');
    const servers = JSON.parse(airlock(['list', '--json']).out);
    expect(servers).toEqual([expect.objectContaining({ name: 'notes', enabled: false })]);
  });

  it('--undo restores the config exactly', () => {
    expect(airlock(['connect', 'claude', '--undo']).code).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(original);
  });
});

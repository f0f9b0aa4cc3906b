/** The server, call, rule and audit verbs of the built `airlock` command, against real servers in the real sandbox. */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PtySession } from '../support/pty';
import { airlockCli, BIN, REPO } from '../support/cli';

const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const MEMORY_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

let work: string;

const cli = airlockCli('airlock-cli-servers-', { timeout: 60_000 });
const { root, dataDir, home, run: airlock, json } = cli;

beforeAll(() => {
  work = join(root, 'work');
  mkdirSync(work);
  writeFileSync(join(work, 'notes.md'), 'hello from notes');
});
afterAll(() => cli.remove());

describe('airlock add / list / show / call / audit', () => {
  it('refuses to add without a terminal or --yes (exit 4) and leaves nothing behind', () => {
    const { code, err } = airlock(['add', 'files', '--', process.execPath, FS_SERVER, work]);
    expect(code).toBe(4);
    expect(err).toContain('needs your confirmation');
    expect(json(['list']).value).toEqual([]);
    expect(existsSync(join(dataDir, 'servers')) ? readdirSync(join(dataDir, 'servers')) : []).toEqual([]);
  });

  it('adds a local command after showing exactly what will run, with the grants given', () => {
    const { code, out } = airlock(['add', 'files', '--read', work, '--write', work, '--yes', '--', process.execPath, FS_SERVER, work]);
    expect(code).toBe(0);
    expect(out).toContain('It will run exactly this');
    expect(out).toContain(FS_SERVER);
    expect(out).toMatch(/sha256 [0-9a-f]{64}/);
    expect(out).toContain('write_file — Always asks');
    const list = json(['list']).value;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ name: 'files', enabled: true, trusted: false, sandboxed: true, network: false });
  });

  it('shows provenance, grants and tools with their claimed annotations', () => {
    const detail = json(['show', 'files']).value;
    expect(detail.provenance).toMatchObject({ kind: 'local', executable: process.execPath });
    // each grant pinned where it resolved when it was given
    expect(detail.profile.filesystem).toEqual({ read: [work], write: [work], persistentData: false, pinned: { [work]: realpathSync(work) } });
    const read = detail.tools.find((tool: { name: string }) => tool.name === 'read_text_file');
    expect(read.claimed).toMatchObject({ readOnlyHint: true });
    expect(read.reading.class).toBe('read-only');
  });

  it('calls a tool as the user and records it', () => {
    const { code, out } = airlock(['call', 'files', 'read_text_file', '--args', JSON.stringify({ path: join(work, 'notes.md') })]);
    expect(out).toContain('hello from notes');
    expect(code).toBe(0);
    // Nobody was asked: the log says it was the person's own call, from the command line (issue 11.8).
    expect(json(['audit', '--tool', 'read_text_file']).value.find((entry: { kind: string }) => entry.kind === 'decision')).toMatchObject({
      caller: 'You (command line)',
      verdict: 'allowed: your own call (command line)',
    });
    const bad = airlock(['call', 'files', 'read_text_file', '--args', '{not json']);
    expect(bad.code).toBe(2);
  });

  it('a destructive call with no terminal to ask on is refused before the server sees it (exit 4); nobody was asked, and the log says so', () => {
    const target = join(work, 'from-a-script.txt');
    const { code, out } = airlock(['call', 'files', 'write_file', '--args', JSON.stringify({ path: target, content: 'x' })]);
    expect(code).toBe(4);
    expect(out).toContain('needs your confirmation (the tool may delete or overwrite things), and there is no terminal to ask on');
    expect(existsSync(target)).toBe(false);
    expect(json(['audit', '--tool', 'write_file']).value.find((entry: { kind: string }) => entry.kind === 'decision')).toMatchObject({
      caller: 'You (command line)',
      callerKind: 'cli',
      verdict: 'refused: nobody could be asked',
    });
  });

  it('on a terminal, a destructive call asks first; typing the tool’s name runs it, anything else denies (exit 5)', async () => {
    const target = join(work, 'typed.txt');
    const call = (content: string) =>
      PtySession.start([process.execPath, BIN, '--data-dir', dataDir, 'call', 'files', 'write_file', '--args', JSON.stringify({ path: target, content })], { ...process.env, HOME: home });
    const refused = call('no');
    await refused.waitFor(/type the tool's name and the code\s+“write_file \w+”/);
    expect(existsSync(target)).toBe(false);
    refused.typeLine('y');
    expect(await refused.exited).toBe(5);
    expect(existsSync(target)).toBe(false);
    const allowed = call('yes');
    const expected = (await allowed.waitFor(/You are about to run files › write_file[\s\S]*the code\s+“([^”]+)”/))[1]!;
    allowed.typeLine(expected);
    expect(await allowed.exited).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('yes');
    const decisions = json(['audit', '--tool', 'write_file']).value.filter((entry: { kind: string }) => entry.kind === 'decision');
    expect(decisions[0]).toMatchObject({ caller: 'You (command line)', verdict: 'allowed after you answered in the terminal', answeredBy: 'allow once (terminal)' });
    expect(decisions[1]).toMatchObject({ verdict: 'denied after you answered in the terminal', answeredBy: 'deny (terminal)' });
  });

  it('strict mode applies to `airlock call`: a read asks on the terminal, and with none is refused (exit 4); leaving strict mode needs a terminal too', async () => {
    expect(json(['mode', 'strict']).value).toMatchObject({ policyMode: 'strict' });
    const args = ['call', 'files', 'read_text_file', '--args', JSON.stringify({ path: join(work, 'notes.md') })];
    const refused = airlock(args);
    expect(refused.code).toBe(4);
    expect(refused.out).toContain('strict mode is on');
    expect(refused.out).not.toContain('hello from notes');
    const asked = PtySession.start([process.execPath, BIN, '--data-dir', dataDir, ...args], { ...process.env, HOME: home });
    const code = (await asked.waitFor(/the code\s+“([^”]+)”/))[1]!;
    asked.typeLine(code);
    expect(await asked.exited).toBe(0);
    expect(asked.output).toContain('hello from notes');
    expect(airlock(['mode', 'default']).code).toBe(4);
    expect(json(['mode']).value).toMatchObject({ policyMode: 'strict' });
    const leave = PtySession.start([process.execPath, BIN, '--data-dir', dataDir, 'mode', 'default'], { ...process.env, HOME: home });
    await leave.waitFor(/Leave strict mode\?/);
    leave.typeLine('y');
    expect(await leave.exited).toBe(0);
    expect(json(['mode']).value).toMatchObject({ policyMode: 'default' });
  });

  it('a write the sandbox blocks is a tool error (exit 1), the target unchanged — even with an "always allow" rule', () => {
    const target = join(home, '.bashrc');
    writeFileSync(target, 'original');
    expect(airlock(['rules', 'add', 'files', 'write_file', 'allow', '--yes', '--confirm-destructive']).code).toBe(0);
    const { code } = airlock(['call', 'files', 'write_file', '--args', JSON.stringify({ path: target, content: 'pwned' })]);
    expect(code).toBe(1);
    expect(readFileSync(target, 'utf8')).toBe('original');
    expect(airlock(['rules', 'remove', 'files', 'write_file']).code).toBe(0);
  });

  it('rules bind to the current definition; a destructive "always allow" needs the second confirmation', () => {
    expect(airlock(['rules', 'add', 'files', 'write_file', 'allow', '--yes']).code).toBe(4);
    expect(airlock(['rules', 'add', 'files', 'write_file', 'allow', '--yes', '--confirm-destructive']).code).toBe(0);
    const rules = json(['rules']).value;
    expect(rules).toEqual([expect.objectContaining({ server: 'files', tool: 'write_file', effect: 'allow', current: true })]);
    expect(rules[0].fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(airlock(['rules', 'remove', 'files', 'write_file']).code).toBe(0);
    expect(json(['rules']).value).toEqual([]);
  });

  it('trust on/off is saved', () => {
    expect(json(['trust', 'files', 'on']).value).toMatchObject({ trusted: true });
    expect(json(['list']).value[0].trusted).toBe(true);
    expect(json(['trust', 'files', 'off']).value).toMatchObject({ trusted: false });
  });

  it('audit lists the calls and verifies the chain; a tampered line is found and named', () => {
    const entries = json(['audit', '--server', 'files']).value;
    expect(entries.length).toBeGreaterThanOrEqual(4);
    expect(airlock(['audit', 'verify']).out).toContain('The audit log verifies');
    const file = join(dataDir, 'audit', 'audit.jsonl');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('hello from notes', 'HELLO').replace('"read_text_file"', '"write_file"'));
    const verify = airlock(['audit', 'verify']);
    expect(verify.code).toBe(1);
    expect(verify.out).toMatch(/does NOT verify: .*audit\.jsonl:\d+/);
    writeFileSync(file, text);
  });

  it('grant and revoke change the profile', () => {
    expect(json(['grant', 'files', '--domain', 'example.com', '--yes']).value.network.allowedDomains).toEqual(['example.com']);
    expect(json(['revoke', 'files', '--domain', 'example.com']).value.network.allowedDomains).toEqual([]);
  });

  it('runs server-memory with a data folder of its own', () => {
    expect(airlock(['add', 'memory', '--persistent-data', '--yes', '--', process.execPath, MEMORY_SERVER]).code).toBe(0);
    const { code, out } = airlock(['call', 'memory', 'read_graph']);
    expect(code).toBe(0);
    expect(out).toContain('entities');
  });

  it('removes a server with its rules', () => {
    expect(airlock(['remove', 'memory', '--yes']).code).toBe(0);
    expect(json(['list']).value.map((server: { name: string }) => server.name)).toEqual(['files']);
  });
});

describe('airlock import', () => {
  it('imports a Claude Desktop config with several entries: local disabled, npx pinned, url offered by URL', () => {
    const config = join(root, 'claude_desktop_config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          // Another folder than `files` has: the same command line would be `files` itself, recognised and not copied.
          notes: { command: process.execPath, args: [FS_SERVER, root] },
          remote: { url: 'https://mcp.example.com/sse' },
          broken: { args: ['x'] },
        },
      }),
    );
    const { code, value } = json(['import', config, '--yes', '--no-probe']);
    expect(code).toBe(0);
    expect(value.imported).toEqual(['notes', 'remote']);
    const entries = value.files[0].entries;
    // A remote entry is offered by URL now; --no-probe never connects to it, and it arrives turned off like the others.
    expect(entries.find((e: { name: string }) => e.name === 'remote')).toMatchObject({ status: 'importable' });
    expect(entries.find((e: { name: string }) => e.name === 'broken')).toMatchObject({ status: 'invalid' });
    const notes = json(['list']).value.find((server: { name: string }) => server.name === 'notes');
    expect(notes).toMatchObject({ enabled: false });
    expect(notes.source).toContain('imported from Claude Desktop');
  });
});

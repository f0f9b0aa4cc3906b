/**
 * A new user's first `airlock add`, as the README of every server tells it:
 * the published filesystem server on a folder, the `npx -y PKG` line, a
 * Python package — with the built CLI, in a real terminal (tmux) where it
 * asks, and without one where a script runs it:
 * - what Airlock works out the server needs is a question whose Enter grants
 *   it, and the exact command that grants it where it cannot ask;
 * - a server installed but not starting is kept turned off, with the reason,
 *   and the grant that fixes it is named;
 * - `npx -y PKG`, `uvx PKG` become pinned installs, and the person is told;
 * - a package index that cannot be reached is not "the command line was wrong";
 * - Ctrl-C during an install leaves nothing of it behind.
 * Real published servers, in the real sandbox.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClockWheel, CLOCK_PACKAGE } from '../fixtures/registry/python-package';
import { startFixtureIndex, type FixtureIndex } from '../fixtures/registry/pypi-index';
import { TmuxSession } from '../support/tmux';
import { airlockCli, BIN } from '../support/cli';

const FILESYSTEM = '@modelcontextprotocol/server-filesystem';
const MEMORY = '@modelcontextprotocol/server-memory';

let index: FixtureIndex;
/** Where pip finds the Python MCP SDK: the person's pip configuration (a mirror here), else PyPI. */
let extraIndexes = '';
const sessions: TmuxSession[] = [];

/** The CLI as a script runs it: no terminal. Asynchronous, since the fixture index answers from this process. */
const cli = airlockCli('airlock-add-first-', { env: () => ({ NO_COLOR: '1', PIP_INDEX_URL: index.url, PIP_EXTRA_INDEX_URL: extraIndexes || 'https://pypi.org/simple' }) });
const { dataDir, home, runAsync: airlock } = cli;

/** The CLI in a terminal of its own, as a person types it. */
function inTerminal(args: string[]): TmuxSession {
  const session = TmuxSession.start([process.execPath, BIN, '--data-dir', dataDir, ...args], { HOME: home, NO_COLOR: '1', PIP_INDEX_URL: index.url, PIP_EXTRA_INDEX_URL: extraIndexes || 'https://pypi.org/simple' });
  sessions.push(session);
  return session;
}

const serverFolders = () => (existsSync(join(dataDir, 'servers')) ? readdirSync(join(dataDir, 'servers')).sort() : []);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  // The person's pip configuration (an index mirror, say) applies as it would at home.
  const pipConf = join(homedir(), '.config/pip/pip.conf');
  if (existsSync(pipConf)) {
    mkdirSync(join(home, '.config/pip'), { recursive: true });
    copyFileSync(pipConf, join(home, '.config/pip/pip.conf'));
    extraIndexes = /^\s*extra-index-url\s*=\s*(.*)$/m.exec(readFileSync(pipConf, 'utf8'))?.[1]?.trim() ?? '';
  }
  index = await startFixtureIndex();
  const wheel = buildClockWheel();
  index.add(CLOCK_PACKAGE, wheel.file, wheel.bytes);
}, 60_000);

afterAll(async () => {
  for (const session of sessions) session.close();
  await index?.close();
  cli.remove();
});

describe('the filesystem server on a folder, the first try', () => {
  it('in a terminal: the folder it names is offered as a question, Enter grants it, and the server works', async () => {
    const notes = join(home, 'notes');
    mkdirSync(notes);
    writeFileSync(join(notes, 'todo.md'), 'buy milk');
    const terminal = inTerminal(['add', 'files', '--npm', FILESYSTEM, '--', notes]);
    await terminal.waitFor(new RegExp(`It probably needs \\(not granted unless you grant it\\):\\n  --write ${escape(notes)} +its command line names it\\nGrant files --write ${escape(notes)}\\? \\[Y/n\\] $`));
    terminal.typeLine('');
    // The grant is in what it is inspected with and what it is added with.
    await terminal.waitFor(/Inspect files in a locked sandbox \(no network, no writes, no secrets\)\? \[y\/N\] $/);
    terminal.typeLine('y');
    await terminal.waitFor(new RegExp(`Add and start files with: write ${escape(notes)} · network none\\? \\[y/N\\] $`));
    terminal.typeLine('y');
    await terminal.waitFor(/Added files; it runs in its sandbox\./);
    expect(await terminal.exitCode()).toBe(0);
    const read = await airlock(['call', 'files', 'read_text_file', '--args', JSON.stringify({ path: join(notes, 'todo.md') })]);
    expect(read).toMatchObject({ code: 0, out: 'buy milk\n' });
  }, 300_000);

  it('without a terminal: the exact command that grants it is printed; the server that then does not start is kept turned off, with the reason and the grant that fixes it', async () => {
    const papers = join(home, 'papers');
    mkdirSync(papers);
    const add = await airlock(['add', 'papers', '--yes', '--npm', FILESYSTEM, '--', papers]);
    expect(add.code).toBe(1);
    expect(add.out).toContain(
      `Not granted (--yes answers the questions, but never grants what Airlock only worked out). To give it, run: \`airlock --data-dir ${dataDir} add papers --yes --npm ${FILESYSTEM} --write ${papers} -- ${papers}\``,
    );
    // The server's own reason, then what was kept and the exact grant.
    expect(add.err).toContain('airlock: The server did not start in the locked sandbox');
    expect(add.err).toContain('┆ Error: None of the specified directories are accessible');
    expect(add.err).toContain(`papers was saved, turned off, with the reason: it probably needs what was not granted — \`airlock grant papers --write ${papers}\`, then \`airlock start papers\` (or \`airlock remove papers\`).`);
    // Kept with its reason: a later command (another process) still says why it is off.
    const saved = JSON.parse((await airlock(['list', '--json'])).out) as Array<{ name: string; enabled: boolean; stateNote?: string }>;
    expect(saved.find((server) => server.name === 'papers')).toMatchObject({
      enabled: false,
      stateNote: expect.stringMatching(/^papers is turned off because it did not start when it was added: .*its last output: “Error: None of the specified directories are accessible”\. Once that is fixed, start it/),
    });
    // The grant it named fixes it.
    expect((await airlock(['grant', 'papers', '--write', papers, '--yes'])).code).toBe(0);
    const start = await airlock(['start', 'papers']);
    expect(start.code, start.err).toBe(0);
    expect(start.out).toMatch(/^papers +ready · enabled/);
    // Its tools were never inspected: each is new, to be reviewed before calls (`airlock show papers`).
    expect(start.out).toMatch(/\d+ new tool\(s\) to review/);
  }, 300_000);
});

describe('the `npx -y PKG` line every server’s README gives', () => {
  it('becomes the npm package installed once, pinned, and the person is told', async () => {
    const add = await airlock(['add', 'mem', '--yes', '--', 'npx', '-y', MEMORY]);
    expect(add.err).toBe('');
    expect(add.code).toBe(0);
    expect(add.out).toMatch(new RegExp(`Note: You gave \`npx -y ${escape(MEMORY)}\`, which downloads whatever ${escape(MEMORY)} is newest at every start\\. Airlock installs ${escape(MEMORY)} \\S+ once instead, pinned, and runs it from its own folder \\(as \`--npm ${escape(MEMORY)}\` does\\)\\.`));
    expect(add.out).toContain('Added mem; it runs in its sandbox.');
    const shown = JSON.parse((await airlock(['show', 'mem', '--json'])).out) as { provenance: { kind: string; name: string; installDir: string }; spec: { command: string; args: string[] } };
    expect(shown.provenance).toMatchObject({ kind: 'npm', name: MEMORY });
    expect([shown.spec.command, ...shown.spec.args].join(' ')).not.toMatch(/npx/);
    expect(shown.spec.args[0]!.startsWith(shown.provenance.installDir)).toBe(true);
    expect(await airlock(['call', 'mem', 'read_graph'])).toMatchObject({ code: 0 });
  }, 300_000);

  it('`uvx PKG` becomes the Python package pinned with a hash for every file; a uvx line that is more than one package is refused with what to do', async () => {
    const add = await airlock(['add', 'clock', '--yes', '--', 'uvx', CLOCK_PACKAGE, '--zone=Europe/Paris']);
    expect(add.err).toBe('');
    expect(add.code).toBe(0);
    expect(add.out).toMatch(new RegExp(`Note: You gave \`uvx ${CLOCK_PACKAGE} --zone=Europe/Paris\`, which downloads whatever ${CLOCK_PACKAGE} is newest at every start\\. Airlock installs ${CLOCK_PACKAGE} 1\\.0\\.0 once instead, pinned`));
    const shown = JSON.parse((await airlock(['show', 'clock', '--json'])).out) as { provenance: { kind: string; name: string } };
    expect(shown.provenance).toMatchObject({ kind: 'pypi', name: CLOCK_PACKAGE });
    // Inspected from where it was installed: its tools, as the Python SDK lists them.
    expect(add.out).toMatch(/Tools \(2\):\n {2}get_time — /);
    expect(add.out).toContain('Added clock; it runs in its sandbox.');

    const refused = await airlock(['add', 'tz', '--yes', '--', 'uvx', '--with', 'tzdata', 'mcp-server-time']);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/^airlock: It runs the Python package mcp-server-time with uvx and --with tzdata, which Airlock cannot pin as one package\. Install it yourself \(`uv tool install mcp-server-time`/);
  }, 300_000);
});

describe('what really happened', () => {
  it('a package index that cannot be reached says so, with the network’s words, exit 1 — a name it does not know stays exit 2', async () => {
    const port = await closedPort();
    const unreachable = await airlock(['add', 'time', '--yes', '--pypi', 'mcp-server-time'], { PIP_INDEX_URL: `http://127.0.0.1:${port}/simple`, PIP_EXTRA_INDEX_URL: '', PIP_FIND_LINKS: '', PIP_RETRIES: '1' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.err).toMatch(/^airlock: pip could not resolve mcp-server-time: pip could not reach the package index \(Failed to establish a new connection: \[Errno 111\] Connection refused at \/simple\/mcp-server-time\/\), so whether the package exists is not known\./);
    const unknown = await airlock(['add', 'nothing', '--yes', '--pypi', 'airlock-no-such-package']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/^airlock: pip could not resolve airlock-no-such-package: .*No matching distribution found for airlock-no-such-package/);
    expect(unknown.err).not.toMatch(/could not reach/);
  }, 300_000);

  it('Ctrl-C while npm installs: exit 130, and nothing of the half-installed server is left (its package.json included)', async () => {
    const before = serverFolders();
    const terminal = inTerminal(['add', 'half', '--yes', '--npm', MEMORY]);
    await terminal.waitFor(/Installing @modelcontextprotocol\/server-memory@\S+ \(install scripts off\)/);
    terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(130);
    expect(terminal.screen()).toContain('airlock: Stopped (Ctrl-C). Nothing more was done; anything half-installed was removed.');
    expect(serverFolders()).toEqual(before);
    expect(JSON.parse((await airlock(['list', '--json'])).out).map((server: { name: string }) => server.name)).not.toContain('half');
  }, 300_000);
});

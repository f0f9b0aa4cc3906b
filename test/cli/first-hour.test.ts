/**
 * A new user's first hour with the built `airlock` command (issue 11), each
 * step written as the commands a person types, with the exact answer and
 * exit code: checks before anything is downloaded, servers that do not start
 * never reported as added, a reason per state, the server's own error text,
 * plain settings (--env), proposed grants on import, global -y, Ctrl-C.
 * Real servers in the real sandbox.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findExecutable } from '../../electron/core/sandbox/capability';
import { PtySession } from '../support/pty';
import { airlockCli, BIN, REPO } from '../support/cli';
import { startTokenApi, type TokenApi } from '../support/token-api';

const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const MEMORY_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const ECHO = join(REPO, 'test/fixtures/servers/echo.mjs');
const CRASH_ON_START = join(REPO, 'test/fixtures/servers/crash-on-start.mjs');
const API_CLIENT = join(REPO, 'test/fixtures/servers/api-client.mjs');

let work: string;
let api: TokenApi;
let apiPort: number;
/** What the stand-in API saw (it runs in its own process: the CLI runs synchronously here). */
const apiSeen = () => api.seen();


const cli = airlockCli('airlock-first-hour-', { env: { NO_COLOR: undefined, FORCE_COLOR: undefined }, timeout: 120_000 });
const { root, dataDir, home, run: airlock } = cli;
const listJson = () => JSON.parse(airlock(['list', '--json']).out) as Array<{ name: string; enabled: boolean; state: string; stateNote?: string }>;

beforeAll(async () => {
  work = join(root, 'work');
  mkdirSync(work);
  writeFileSync(join(work, 'notes.md'), 'first notes');
  api = await startTokenApi(join(root, 'api-seen.log'));
  apiPort = api.port;
});
afterAll(() => {
  api.stop();
  cli.remove();
});

describe('checks before anything is downloaded (exit 2, one plain sentence)', () => {
  it('a bad server name, before npm is asked anything', () => {
    expect(airlock(['add', 'My Server', '--npm', '@modelcontextprotocol/server-memory', '--yes'])).toEqual({
      code: 2,
      out: '',
      err: 'airlock: “My Server” is not a server name Airlock can use: use lowercase letters, digits and dashes, starting with a letter or digit, at most 48 (for example “my-server”).\n',
    });
    expect(airlock(['add', 'my_server', '--yes', '--', process.execPath, ECHO]).err).toContain('(for example “my-server”)');
    expect(existsSync(join(dataDir, 'servers')) ? readdirSync(join(dataDir, 'servers')) : []).toEqual([]);
  });

  it('a duplicate name', () => {
    expect(airlock(['add', 'echo', '--yes', '--no-probe', '--', process.execPath, ECHO]).code).toBe(0);
    expect(airlock(['add', 'echo', '--yes', '--', process.execPath, ECHO])).toEqual({
      code: 2,
      out: '',
      err: 'airlock: A server named echo already exists. Choose another name, or remove it first (`airlock remove echo`).\n',
    });
  });

  it('a path that does not exist, a domain that is not one, a secret passed as a plain setting', () => {
    const missing = join(root, 'nope');
    expect(airlock(['add', 'files', '--write', missing, '--domain', 'not a domain', '--yes', '--', process.execPath, FS_SERVER, work])).toEqual({
      code: 2,
      out: '',
      err:
        `airlock: The write grant ${missing} does not exist. Create it first (mkdir -p '${missing}'), or leave the grant out.\n` +
        '“not a domain” is not a domain Airlock can allow: use a name like api.example.com, *.example.com (its subdomains), host:port, or an IP address.\n',
    });
    expect(airlock(['add', 'web', '--domain', 'https://api.github.com/user', '--yes', '--', process.execPath, ECHO]).err).toBe(
      'airlock: “https://api.github.com/user” is a URL; give only its domain (api.github.com).\n',
    );
    expect(airlock(['add', 'gh', '--env', 'GITHUB_TOKEN=abc', '--yes', '--', process.execPath, ECHO])).toMatchObject({
      code: 2,
      err: 'airlock: GITHUB_TOKEN looks like a secret: pass it with --secret GITHUB_TOKEN (its value is read from your environment and kept out of the settings file).\n',
    });
    expect(listJson().map((server) => server.name)).toEqual(['echo']);
  });

  it('a command that is not there', () => {
    expect(airlock(['add', 'ghost', '--yes', '--', 'no-such-server-command'])).toMatchObject({ code: 2, out: '' });
    expect(airlock(['add', 'ghost', '--yes', '--', 'no-such-server-command']).err).toBe('airlock: “no-such-server-command” was not found on PATH\n');
  });
});

describe('never "Added" for a server that cannot start', () => {
  it('--no-probe on a server that crashes: saved turned off, with its last words, exit 1', () => {
    const { code, out, err } = airlock(['add', 'crashy', '--no-probe', '--yes', '--', process.execPath, CRASH_ON_START]);
    expect(code).toBe(1);
    expect(out).not.toMatch(/Added/);
    expect(err).toMatch(/^airlock: crashy is turned off because it did not start: .* — its last output: “crash-on-start: giving up”\. /);
    expect(err).toContain('It was saved (not as running): fix what it needs (e.g. `airlock grant crashy …`) and start it, or `airlock remove crashy`.');
    const crashy = listJson().find((server) => server.name === 'crashy')!;
    expect(crashy).toMatchObject({ enabled: false, state: 'stopped' });
    // Its call says why, not "You blocked this server"; starting it again tells what it said.
    // Saved with the reason: a later command (another process) still says why it is off.
    const call = airlock(['call', 'crashy', 'echo']);
    expect({ code: call.code, err: call.err }).toEqual({ code: 5, err: '' });
    expect(call.out).toMatch(/^Not run:\ncrashy is turned off because it did not start when it was added: .* — its last output: “crash-on-start: giving up”\. Once that is fixed, start it with `airlock start crashy` or on its page\.\n$/);
    const start = airlock(['start', 'crashy']);
    expect(start.code).toBe(1);
    expect(start.err).toMatch(/^airlock: crashy did not start: .* — its last output: “crash-on-start: giving up”\n$/);
    expect(airlock(['remove', 'crashy', '--yes']).code).toBe(0);
  });

  it('a server that starts is added and says so', () => {
    const { code, out, err } = airlock(['--yes', 'add', 'echo2', '--', process.execPath, ECHO]);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toContain('Added echo2; it runs in its sandbox.\necho2');
  });
});

describe('-y/--yes is global, and never silently the server’s', () => {
  it('before the command, after it, and a note when it sits after --', () => {
    expect(airlock(['--yes', 'trust', 'echo', 'on']).code).toBe(0);
    expect(airlock(['trust', 'echo', 'off', '-y']).code).toBe(0);
    const after = airlock(['add', 'npxish', '--', process.execPath, ECHO, '-y']);
    expect(after.code).toBe(4);
    expect(after.err).toBe(
      'airlock: Inspect npxish in a locked sandbox (no network, no writes, no secrets)? — this needs your confirmation; run it in a terminal, or pass --yes (the -y after `--` is part of the server’s command line, not an answer for Airlock: put --yes before `--`).\n',
    );
  });

  it('--help says which commands ask', () => {
    const help = airlock(['--help']).out.replace(/\s+/g, ' ');
    expect(help).toContain('-y, --yes answer yes to the questions, for scripts (asked by: add, update, import, grant, approve, remove, rules add, connect, settings restore, resources --approve-template, prompts --approve, requests); anywhere before `--`');
    expect(help).toContain('trust <name> <on|off> trust a server\'s annotations (on) or not (off); untrusted annotations never reduce prompts (does not ask)');
  });

  it('rules remove of a rule that does not exist says so (exit 1)', () => {
    expect(airlock(['rules', 'remove', 'echo', 'echo'])).toEqual({
      code: 1,
      out: '',
      err: 'airlock: There is no rule for echo › echo; nothing was removed. `airlock rules` lists the rules there are.\n',
    });
  });
});

describe('plain settings with --env', () => {
  it('server-memory keeps its graph where MEMORY_FILE_PATH says, in a folder it was granted', () => {
    const store = join(root, 'memory-store');
    mkdirSync(store);
    const file = join(store, 'memory.json');
    const add = airlock(['add', 'notes-memory', '--env', `MEMORY_FILE_PATH=${file}`, '--write', store, '--yes', '--', process.execPath, MEMORY_SERVER]);
    expect(add.code).toBe(0);
    expect(add.out).toContain(`Settings (environment): MEMORY_FILE_PATH=${file}`);
    // What a call will do is computed for the grants given: a write grant ends containment, so reads ask.
    expect(add.out).toContain('  read_graph — Asks; Airlock reads it as read-only');
    const entity = { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] };
    expect(airlock(['call', 'notes-memory', 'create_entities', '--args', JSON.stringify(entity)]).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('"name":"Ada"');
    // Changed and taken back like grants.
    expect(JSON.parse(airlock(['show', 'notes-memory', '--json']).out).spec.env).toEqual({ MEMORY_FILE_PATH: file });
    expect(airlock(['grant', 'notes-memory', '--env', 'DEBUG_LEVEL=2', '--yes']).code).toBe(0);
    expect(JSON.parse(airlock(['show', 'notes-memory', '--json']).out).spec.env).toEqual({ MEMORY_FILE_PATH: file, DEBUG_LEVEL: '2' });
    expect(airlock(['revoke', 'notes-memory', '--env', 'DEBUG_LEVEL']).code).toBe(0);
    expect(JSON.parse(airlock(['show', 'notes-memory', '--json']).out).spec.env).toEqual({ MEMORY_FILE_PATH: file });
  });
});

describe('a tool error shows the server’s own words, and a network hint', () => {
  it('a token-using server without network: its error, then the grant that fixes it', () => {
    const url = `http://127.0.0.1:${apiPort}`;
    const add = airlock(['add', 'octo', '--secret', 'API_TOKEN', '--env', `API_URL=${url}`, '--yes', '--', process.execPath, API_CLIENT], { API_TOKEN: 's3cret-token' });
    expect(add.code).toBe(0);
    expect(add.out).toContain(`Settings (environment): API_URL=${url}`);
    const failed = airlock(['call', 'octo', 'whoami']);
    expect(failed.code).toBe(1);
    expect(failed.out).toMatch(/^octo › whoami reported an error:\n/);
    // It holds a secret, so it is not contained: its proxy refused the host it has no grant for, and says which.
    expect(failed.out).toBe(
      'octo › whoami reported an error:\nthe server answered with an error (-32603): API answered 403:\n' +
        `Airlock's sandbox stopped octo from reaching 127.0.0.1:${apiPort}: it has no grant for it. If the call needs it, grant it — \`airlock grant octo --domain 127.0.0.1:${apiPort}\`, or Permissions on its page.\n`,
    );
    expect(apiSeen()).toEqual([]);
    expect(airlock(['grant', 'octo', '--domain', `127.0.0.1:${apiPort}`, '--yes']).code).toBe(0);
    const ok = airlock(['call', 'octo', 'whoami']);
    expect(ok).toMatchObject({ code: 0, out: '{"login":"octo"}\n' });
    expect(apiSeen()).toEqual(['GET /user Bearer s3cret-token']);
  });
});

describe('importing a Claude Desktop config: proposed grants, one line per server', () => {
  it('filesystem, memory and a token-using server each work once their proposed grants are confirmed', () => {
    const files = join(root, 'projects');
    const memoryDir = join(root, 'claude-memory');
    mkdirSync(files);
    mkdirSync(memoryDir);
    writeFileSync(join(files, 'plan.md'), 'the plan');
    const config = join(root, 'claude_desktop_config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          filesystem: { command: process.execPath, args: [FS_SERVER, files] },
          memory: { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(memoryDir, 'memory.json') } },
          // Not octo (added above with the same command, token and URL): this one has a setting of its own.
          github: { command: process.execPath, args: [API_CLIENT], env: { API_TOKEN: 's3cret-token', API_URL: `http://127.0.0.1:${apiPort}`, API_ORG: 'acme' } },
          // A plain `uvx PKG` is imported pinned (test/core/install/pypi-import.test.ts); extra packages are not one pin.
          time: { command: 'uvx', args: ['--with', 'tzdata', 'mcp-server-time', '--local-timezone=Europe/Paris'] },
        },
      }),
    );
    const { code, out } = airlock(['import', config, '--yes']);
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    // First what was found, each entry named with what it runs; then one line per server imported, in the file's order.
    expect(lines[0]).toBe(`${config} (Claude Desktop): 4 servers`);
    expect(lines[1].startsWith(`  filesystem       ${process.execPath} `)).toBe(true);
    expect(lines[2].startsWith(`  memory           ${process.execPath} `)).toBe(true);
    expect(lines[4]).toMatch(/^ {2}time {13}– not imported: not supported yet — it runs the Python package mcp-server-time with uvx and --with tzdata, which Airlock cannot pin as one package\. .*`uv tool install mcp-server-time`.*`airlock add time -- ~\/\.local\/bin\/mcp-server-time --local-timezone=Europe\/Paris`$/);
    expect(lines[5]).toBe(`✓ filesystem       added, turned off · write ${files} · network none · 14 tools — \`airlock show filesystem\``);
    expect(lines[6]).toBe(`✓ memory           added, turned off · write ${memoryDir} · network none · 9 tools — \`airlock show memory\``);
    expect(lines[7]).toBe(`✓ github           added, turned off · reads none of your home folder · write nowhere that lasts · network api.github.com, 127.0.0.1:${apiPort} · secrets API_TOKEN · 1 tools — \`airlock show github\``);
    expect(lines.slice(8).join('\n')).toBe('\nImported 3 server(s), turned off; 1 not imported (time: not supported yet). Review each with `airlock show NAME`, then `airlock start NAME`.');

    // Turned off until started — and a call says so, not "You blocked this server".
    const early = airlock(['call', 'filesystem', 'list_allowed_directories']);
    expect(early).toMatchObject({ code: 5 });
    expect(early.out).toBe('Not run:\nfilesystem was imported from Claude Desktop and is turned off until you start it: review it (`airlock show filesystem`), then start it (`airlock start filesystem`).\n');

    for (const name of ['filesystem', 'memory', 'github']) expect(airlock(['start', name]).code).toBe(0);
    expect(airlock(['call', 'filesystem', 'read_text_file', '--args', JSON.stringify({ path: join(files, 'plan.md') })])).toMatchObject({ code: 0, out: 'the plan\n' });
    const entity = { entities: [{ name: 'Grace', entityType: 'person', observations: ['found a moth'] }] };
    expect(airlock(['call', 'memory', 'create_entities', '--args', JSON.stringify(entity)]).code).toBe(0);
    expect(readFileSync(join(memoryDir, 'memory.json'), 'utf8')).toContain('"name":"Grace"');
    expect(airlock(['call', 'github', 'whoami'])).toMatchObject({ code: 0, out: '{"login":"octo"}\n' });
    expect(apiSeen()).toEqual(['GET /user Bearer s3cret-token', 'GET /user Bearer s3cret-token']);
    // The token moved to the secret store: not in the settings file.
    expect(readFileSync(join(dataDir, 'airlock.json'), 'utf8')).not.toContain('s3cret-token');
  }, 180_000);
});

// These two need the sandbox work on issue 11 items 1–2 (the inspection runs with the grants
// being given; the data folder is passed to the server). Until it is merged they fail, at the
// inspection and at the call, and only for that reason.
describe('the everyday servers (needs the sandbox work on issue 11 items 1–2)', () => {
  it('server-filesystem on a folder inside the home directory', () => {
    const documents = join(home, 'Documents');
    mkdirSync(documents, { recursive: true });
    writeFileSync(join(documents, 'todo.md'), 'buy milk');
    const add = airlock(['add', 'docs', '--write', documents, '--yes', '--', process.execPath, FS_SERVER, documents]);
    expect(add.err).toBe('');
    expect(add.code).toBe(0);
    expect(airlock(['call', 'docs', 'read_text_file', '--args', JSON.stringify({ path: join(documents, 'todo.md') })])).toMatchObject({ code: 0, out: 'buy milk\n' });
  });

  it('server-memory with a data folder of its own: an entity survives a restart', () => {
    expect(airlock(['add', 'brain', '--persistent-data', '--yes', '--', process.execPath, MEMORY_SERVER]).code).toBe(0);
    const entity = { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] };
    expect(airlock(['call', 'brain', 'create_entities', '--args', JSON.stringify(entity)]).code).toBe(0);
    // Every CLI command is a new Airlock process: the next call starts the server afresh.
    expect(airlock(['restart', 'brain']).code).toBe(0);
    const read = airlock(['call', 'brain', 'read_graph']);
    expect(read.code).toBe(0);
    expect(read.out).toContain('wrote the first program');
  });
});

describe('node, python and uv: found, shown, chosen', () => {
  it('doctor shows which node servers run with; a setting points Airlock at another, a wrong one is refused', () => {
    const doctor = airlock(['doctor']);
    expect(doctor.code).toBe(0);
    expect(doctor.out).toMatch(/^Programs servers run with:\n  node {3}\/.*node \(v\d+\.\d+\.\d+\) — from (PATH|your login shell’s PATH)$/m);
    expect(airlock(['runtimes', 'set', 'node', join(root, 'no-node')])).toEqual({
      code: 2,
      out: '',
      err: `airlock: Your setting for node (${join(root, 'no-node')}) is not an executable file. Change it in Settings or with \`airlock runtimes set node PATH\`.\n`,
    });
    expect(airlock(['runtimes', 'set', 'node', process.execPath]).out).toBe(`Airlock will run node servers with ${process.execPath}.\n`);
    expect(airlock(['runtimes']).out).toContain(`  node   ${process.execPath} (${process.version}) — from your setting`);
    expect(airlock(['runtimes', 'reset', 'node']).code).toBe(0);
    expect(airlock(['runtimes']).out).not.toContain('from your setting');
  });
});

describe('the sandbox missing is exit 3, as doctor says', () => {
  it('a call to a server that cannot start for want of the sandbox', () => {
    const bin = join(root, 'bin-without-bwrap');
    mkdirSync(bin);
    for (const tool of ['which', 'socat', 'rg']) symlinkSync(findExecutable(tool, process.env.PATH)!, join(bin, tool));
    const call = airlock(['call', 'echo', 'echo', '--args', '{"message":"hi"}'], { PATH: bin });
    expect(call.code).toBe(3);
    expect(call.out).toBe(
      'Not sent: echo is not running.\necho cannot start: The sandbox cannot run: bwrap is missing. Servers will not start until it is installed. Fix: sudo apt-get install -y bubblewrap (`airlock doctor` says more).\n',
    );
  });
});

describe('a finished terminal', () => {
  it('no progress and no colour without a terminal; colour only when asked, never with NO_COLOR', () => {
    const plain = airlock(['list']);
    expect(plain.err).toBe('');
    expect(plain.out).not.toContain('\x1b[');
    expect(airlock(['list'], { FORCE_COLOR: '1' }).out).toContain('\x1b[');
    expect(airlock(['list'], { FORCE_COLOR: '1', NO_COLOR: '1' }).out).not.toContain('\x1b[');
  });

  it('notes only where they inform: no "Destructive: not stated" on a read-only tool, no "mentions another server" for ordinary words', () => {
    const { out } = airlock(['show', 'filesystem']);
    const lines = out.split('\n');
    const at = lines.findIndex((line) => line.startsWith('  read_text_file — '));
    const readTool = lines.slice(at, at + 1 + lines.slice(at + 1).findIndex((line) => !line.startsWith('      '))).join('\n');
    expect(readTool).toContain('claims: read-only');
    expect(readTool).not.toContain('Destructive: not stated');
    expect(out).not.toContain('mentions another server');
  });

  it('one Ctrl-C stops the HTTP gateway cleanly, exit 130', async () => {
    const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'gateway', '--http', '0', '--no-terminal'], { env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    await expect.poll(() => out, { timeout: 60_000 }).toContain('Airlock gateway on http://127.0.0.1:');
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
  }, 90_000);

  it('progress on a terminal for inspection and start; nothing extra with --json', () => {
    const script = findExecutable('script', process.env.PATH)!;
    const run = (extra: string) =>
      spawnSync(script, ['-qec', `${process.execPath} ${BIN} --data-dir ${dataDir} add ${extra} --yes -- ${process.execPath} ${ECHO}`, '/dev/null'], {
        env: { ...process.env, HOME: home, NO_COLOR: '1' },
        encoding: 'utf8',
        timeout: 60_000,
      }).stdout;
    const shown = run('echo-tty');
    expect(shown).toContain('⠋ Inspecting it in a locked sandbox…');
    expect(shown).toContain('⠋ Saving echo-tty and starting it in its sandbox…');
    expect(shown).toContain('Added echo-tty; it runs in its sandbox.');
    const json = run('echo-json --json');
    expect(json).not.toContain('⠋');
    expect(JSON.parse(json.replace(/\r/g, ''))).toMatchObject({ ok: true, server: { name: 'echo-json', state: 'ready' } });
  });

  it('one Ctrl-C stops the stdio gateway too, exit 130', async () => {
    const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'gateway', '--stdio', '--no-terminal'], { env: { ...process.env, HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk) => (err += chunk));
    await expect.poll(() => err, { timeout: 60_000 }).toContain('Airlock gateway:');
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
  }, 90_000);

  it('Ctrl-C at a question exits 130 and says so plainly', async () => {
    // A real pseudo-terminal: Ctrl-C (ETX) is typed once the question is on the screen, however long that takes.
    const session = PtySession.start([process.execPath, BIN, '--data-dir', dataDir, 'remove', 'echo2'], { ...process.env, HOME: home });
    await session.waitFor(/Remove echo2, its installed files, its data, its secrets and its rules\? \[y\/N\]/);
    session.type('\u0003');
    expect(await session.exited).toBe(130);
    expect(session.output).toContain('airlock: Stopped (Ctrl-C).');
    expect(session.output).not.toContain('failed unexpectedly');
    expect(listJson().map((server) => server.name)).toContain('echo2');
  });
});

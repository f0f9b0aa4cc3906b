/**
 * The built `airlock` command for what servers offer besides tools and what
 * they ask back: resources, read, prompts, prompt, log-level, requests; and
 * `airlock run NAME` serving one server as itself to an SDK client, over
 * stdio (as another app's config entry runs it) and over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airlockCli, BIN, REPO } from '../support/cli';

const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const ABUSE = join(REPO, 'test/fixtures/servers/catalog-abuse.mjs');
const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');


const cli = airlockCli('airlock-catalog-cli-', { env: { XDG_CONFIG_HOME: '' }, timeout: 60_000 });
const { root, dataDir, home, run: airlock } = cli;

beforeAll(() => {
  expect(airlock(['add', 'everything', '--yes', '--', process.execPath, EVERYTHING, 'stdio']).code).toBe(0);
  expect(airlock(['add', 'abuse', '--yes', '--', process.execPath, ABUSE]).code).toBe(0);
}, 120_000);
afterAll(() => cli.remove());

describe('airlock resources | read | prompts | prompt | log-level | requests', () => {
  it('lists resources and templates', () => {
    const { code, out } = airlock(['resources', 'everything']);
    expect(code).toBe(0);
    expect(out).toMatch(/Resources \(\d+\):/);
    expect(out).toContain('demo://resource/static/document/');
    expect(out).toContain('demo://resource/dynamic/text/{resourceId}');
    const json = JSON.parse(airlock(['resources', 'everything', '--json']).out);
    expect(json.resourceTemplates.some((t: { uriTemplate: string }) => t.uriTemplate === 'demo://resource/dynamic/blob/{resourceId}')).toBe(true);
  });

  it('reads text inert, never prints binary, saves it with --out', () => {
    expect(airlock(['read', 'everything', 'demo://resource/dynamic/text/7']).out).toContain('Resource 7');
    const binary = airlock(['read', 'everything', 'demo://resource/dynamic/blob/7']);
    expect(binary.out).toContain('[binary data, not printed; use --out FILE to save it]');
    const file = join(root, 'blob.bin');
    expect(airlock(['read', 'everything', 'demo://resource/dynamic/blob/7', '--out', file]).code).toBe(0);
    expect(readFileSync(file).length).toBeGreaterThan(0);
  });

  it('server text reaches the terminal inert: escapes and direction marks shown, HTML flagged, never interpreted', () => {
    const { code, out } = airlock(['read', 'abuse', 'note://hostile']);
    expect(code).toBe(0);
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u202e');
    expect(out).toContain('\\u{1b}[2J');
    expect(out).toContain('\\u{202e}Airlock approved this');
    expect(out).toContain('Airlock shows it as plain text, never as a page');
    expect(airlock(['resources', 'abuse']).out).toContain('hostile \\u{202e}eulav');
  });

  it('an oversized resource is a clear error with exit code 1', () => {
    const { code, err } = airlock(['read', 'abuse', 'note://huge']);
    expect(code).toBe(1);
    expect(err).toMatch(/more than the 4\.0 MiB Airlock passes on for one resource/);
  });

  it('lists prompts and gets one with arguments, as the server’s words', () => {
    const list = airlock(['prompts', 'everything']);
    expect(list.out).toContain('args-prompt');
    expect(list.out).toMatch(/city \(required\)/);
    const got = airlock(['prompt', 'everything', 'args-prompt', '--args', '{"city":"Oslo"}']);
    expect(got.code).toBe(0);
    expect(got.out).toContain("everything's prompt args-prompt (the server's words)");
    expect(got.out).toContain('Oslo');
    expect(airlock(['prompt', 'everything', 'args-prompt', '--args', '{"city":1}']).code).toBe(2);
  });

  it('a prompt and a template the server lists after install show as NEW, are not served, and are served once approved', () => {
    // The server's records folder: it swaps its reviewed prompt for summarise-v2 (an injection) when `swap` is there.
    const records = join(root, 'swapper-records');
    mkdirSync(records, { recursive: true });
    expect(airlock(['add', 'swapper', '--write', records, '--yes', '--', process.execPath, ABUSE, records]).code).toBe(0);
    expect(airlock(['prompts', 'swapper']).out).not.toContain('NEW');
    writeFileSync(join(records, 'swap'), '');
    const listed = airlock(['prompts', 'swapper']).out;
    expect(listed).toContain('summarise-v2');
    expect(listed).toContain('NEW since you reviewed this server — withheld from apps until you approve it (--approve)');
    expect(airlock(['resources', 'swapper']).out).toMatch(/note:\/\/v2\/\{id\}[\s\S]*NEW since you reviewed this server/);
    const refused = airlock(['prompt', 'swapper', 'summarise-v2', '--args', '{"topic":"x"}']);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toMatch(/new since you reviewed swapper/);
    // Nor under the name it no longer lists, nor one it never did.
    expect(airlock(['prompt', 'swapper', 'summarise', '--args', '{"topic":"x"}']).err).toMatch(/does not list a prompt/);
    expect(airlock(['prompt', 'swapper', 'never-listed']).err).toMatch(/does not list a prompt/);
    const served = () => (existsSync(join(records, 'prompts')) ? readFileSync(join(records, 'prompts'), 'utf8') : '');
    expect(served()).toBe('');
    expect(airlock(['prompts', 'swapper', '--approve', 'summarise-v2', '--yes']).code).toBe(0);
    expect(airlock(['prompts', 'swapper']).out).not.toContain('NEW');
    expect(airlock(['prompt', 'swapper', 'summarise-v2', '--args', '{"topic":"x"}']).code).toBe(0);
    expect(served()).toContain('summarise-v2');
  });

  it('sets and keeps the log level Airlock asks a server for', () => {
    const { code, out } = airlock(['log-level', 'abuse', 'warning']);
    expect(code).toBe(0);
    expect(out).toContain('at warning and above');
    expect(JSON.parse(airlock(['resources', 'abuse', '--json']).out)).toBeDefined();
    expect(airlock(['log-level', 'abuse', 'loud']).code).toBe(2);
  });

  it('says and changes what a server may ask back', () => {
    expect(airlock(['requests', 'everything']).out).toContain('Sampling: asks you each time');
    expect(airlock(['requests', 'everything', '--sampling', 'always']).code).toBe(4);
    const { code, out } = airlock(['requests', 'everything', '--sampling', 'always', '--max-tokens', '500', '--questions', 'client', '--yes']);
    expect(code).toBe(0);
    expect(out).toContain('ALWAYS ALLOWED without asking; up to 500 tokens');
    expect(out).toContain('shown by the app using Airlock');
    // The person's own command (this process runs the servers) may widen it, and the change is on record.
    const changes = (JSON.parse(airlock(['audit', '--json', '--server', 'everything', '--limit', '20']).out) as Array<{ kind: string; caller: string; changes?: string[] }>).filter((entry) => entry.kind === 'change');
    expect(changes[0]).toMatchObject({ caller: 'You (command line)', changes: expect.arrayContaining(['sampling: always (was ask)', 'questions answered: client (was airlock)']) });
  });
});

describe('airlock run NAME', () => {
  it('over stdio serves the server as itself (what another app’s entry runs), through the choke point', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--data-dir', dataDir, 'run', 'everything', '--no-terminal', '--client', 'Stdio App'], env: { ...process.env, HOME: home } as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'stdio-app', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('mcp-servers/everything');
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain('echo');
      expect(JSON.stringify((await client.callTool({ name: 'echo', arguments: { message: 'hi' } })).content)).toContain('Echo: hi');
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('simple-prompt');
    } finally {
      await client.close();
    }
    const audit = JSON.parse(airlock(['audit', '--json', '--server', 'everything', '--limit', '5']).out) as Array<{ caller: string; tool: string }>;
    expect(audit.some((entry) => entry.caller === 'app “Stdio App”' && entry.tool === 'echo')).toBe(true);
  });

  it('over HTTP relays sampling to the client after Airlock’s decision (the person allowed it for this server)', async () => {
    // The person allows the tool that asks, as they would after reviewing it.
    const fingerprint = JSON.parse(airlock(['show', 'everything', '--json']).out).tools.find((t: { name: string }) => t.name === 'trigger-sampling-request').fingerprint;
    expect(fingerprint).toBeDefined();
    expect(airlock(['rules', 'add', 'everything', 'trigger-sampling-request', 'allow', '--yes']).code).toBe(0);
    const run: ChildProcess = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'run', 'everything', '--http', '0', '--no-terminal', '--client', 'HTTP App'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: home } });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        run.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /on (http:\/\/\S+)/.exec(out);
          if (match) resolve(match[1]!);
        });
        run.once('exit', (code) => reject(new Error(`airlock run exited ${code}`)));
      });
      const token = readFileSync(join(dataDir, 'gateway-token'), 'utf8').trim();
      const client = new Client({ name: 'http-app', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
      const sampled: unknown[] = [];
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        sampled.push(request.params);
        return { model: 'http-app-model', role: 'assistant', content: { type: 'text', text: 'sampled over http' } };
      });
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      try {
        const result = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'over http', maxTokens: 30 } });
        expect(JSON.stringify(result.content)).toContain('sampled over http');
        expect(sampled).toHaveLength(1);
      } finally {
        await client.close();
      }
    } finally {
      run.kill('SIGTERM');
      await new Promise((resolve) => run.once('exit', resolve));
    }
    const history = airlock(['audit', 'verify']);
    expect(history.code).toBe(0);
  });
});

/** Starts an airlock process and resolves with the URL it prints. */
function startAirlock(argv: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, ...argv], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: home } });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ child, url: match[1]! });
    });
    child.once('exit', (code) => reject(new Error(`airlock ${argv.join(' ')} exited ${code}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

describe('airlock run in a process that is not the data folder’s owner', () => {
  it('relays the catalog and sampling through the owner’s socket', async () => {
    // The gateway owns the folder and runs the servers; `airlock run` becomes its client.
    const owner = await startAirlock(['gateway', '--http', '0', '--no-terminal']);
    let run: { child: ChildProcess; url: string } | undefined;
    try {
      run = await startAirlock(['run', 'everything', '--http', '0', '--no-terminal', '--client', 'Socket App']);
      const token = readFileSync(join(dataDir, 'gateway-token'), 'utf8').trim();
      const client = new Client({ name: 'socket-app', version: '1.0.0' }, { capabilities: { sampling: {} } });
      const sampled: unknown[] = [];
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        sampled.push(request.params);
        return { model: 'socket-model', role: 'assistant', content: { type: 'text', text: 'answered across the socket' } };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(run.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      try {
        expect((await client.readResource({ uri: 'demo://resource/dynamic/text/9' })).contents[0]).toMatchObject({ text: expect.stringContaining('Resource 9') });
        expect(JSON.stringify((await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Riga' } })).messages)).toContain('Riga');
        await client.setLoggingLevel('warning');
        await expect(client.readResource({ uri: 'demo://nothing' })).rejects.toThrow();
        const result = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'via the owner', maxTokens: 30 } });
        expect(JSON.stringify(result.content)).toContain('answered across the socket');
        expect(sampled).toHaveLength(1);
      } finally {
        await client.close();
      }
    } finally {
      if (run) await stop(run.child);
      await stop(owner.child);
    }
  });
});

describe('airlock connect --move --per-server', () => {
  it('replaces each moved entry in place with `airlock run NAME`, leaving the rest byte for byte', () => {
    mkdirSync(join(home, '.config/Claude'), { recursive: true });
    mkdirSync(join(root, 'work'), { recursive: true });
    const config = join(home, '.config/Claude/claude_desktop_config.json');
    const original = `${JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [FS_SERVER, join(root, 'work')] } }, globalShortcut: 'Ctrl+Space' }, null, 2)}\n`;
    writeFileSync(config, original);
    const { code, out, err } = airlock(['connect', 'claude', '--move', '--per-server', '--yes']);
    expect(code, err).toBe(0);
    expect(out).toContain('"notes" → airlock run notes');
    const written = JSON.parse(readFileSync(config, 'utf8'));
    expect(Object.keys(written.mcpServers)).toEqual(['notes']);
    expect(written.mcpServers.notes.args).toEqual(expect.arrayContaining(['run', 'notes', '--client', 'Claude Desktop']));
    expect(written.globalShortcut).toBe('Ctrl+Space');
    expect(airlock(['connect', 'claude', '--undo']).code).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(original);
  });
});

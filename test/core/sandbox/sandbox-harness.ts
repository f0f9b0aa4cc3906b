import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { LaunchContext, LaunchPlan } from '../../../electron/core/sandbox/launcher';

/** The hostile fixture server every sandbox test drives. */
export const ESCAPE_SERVER = resolve(__dirname, '../../fixtures/escape/escape-server.mjs');

/** A throwaway world: fake home with secrets, Airlock data folder, runtime folder. */
export async function makeWorld(serverName = 'escape') {
  const base = await mkdtemp(join(tmpdir(), 'airlock-sbx-test-'));
  const home = join(base, 'home');
  const airlockDataDir = join(base, 'airlock-data');
  await mkdir(join(home, '.ssh'), { recursive: true });
  await mkdir(join(home, '.aws'), { recursive: true });
  await mkdir(join(airlockDataDir, 'servers'), { recursive: true });
  await writeFile(join(home, '.ssh', 'id_rsa'), 'FAKE PRIVATE KEY\n');
  await writeFile(join(home, '.aws', 'credentials'), '[default]\naws_secret_access_key=FAKE\n');
  await writeFile(join(home, '.bashrc'), '# original bashrc\n');
  await writeFile(join(home, 'notes.txt'), 'ordinary file\n');
  await writeFile(join(airlockDataDir, 'store.json'), '{"secret":"airlock store"}\n');
  const context = (name = serverName, extra: Partial<LaunchContext> = {}): LaunchContext => ({
    serverName: name,
    airlockDataDir,
    serverDataDir: join(airlockDataDir, 'servers', name, 'data'),
    secrets: {},
    ...extra,
  });
  return { base, home, airlockDataDir, runtimeDir: join(base, 'run'), context };
}

/** Connects an MCP client to a planned server, exactly as planned (argv, env, cwd). */
export async function connect(plan: LaunchPlan): Promise<{ client: Client; pid: number; stderr: () => string; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({
    command: plan.command,
    args: plan.args,
    env: plan.env,
    cwd: plan.cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 20_000) stderr += chunk.toString();
  });
  const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`server did not start: ${String(error)}\nstderr:\n${stderr}`);
  }
  return {
    client,
    /** The process the plan started (bubblewrap, once the launcher's script has exec'd it). */
    pid: transport.pid!,
    stderr: () => stderr,
    close: async () => {
      await client.close();
      await plan.dispose();
    },
  };
}

/** Calls one of the fixture's tools and returns its JSON report. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(content[0]!.text);
}

/** A TCP listener on 127.0.0.1 that counts every connection it sees. */
export async function canaryListener(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { port, connections: () => count, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * Whether a pid names a live process, seen from outside: /proc where there
 * is one (a zombie is not live), else a signal-0 probe (EPERM means it
 * lives, as another user: Windows' sandbox user).
 */
export function isLive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || process.platform === 'linux') return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Resolves once `check` holds, looking again every 50 ms (the test's own timeout bounds the wait). */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50));
}

import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const root = resolve(__dirname, '../../../..');

/** A running fixture MCP server over HTTP (test/fixtures/remote/http-mcp-server.mjs), a real process. */
export interface RemoteFixture {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the fixture with the given environment (REMOTE_MODE, REMOTE_AUTH, …) and waits for its address. */
export async function startRemoteFixture(env: Record<string, string>): Promise<RemoteFixture> {
  const child = spawn(process.execPath, [join(root, 'test/fixtures/remote/http-mcp-server.mjs')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolveLine, reject) => {
    lines.once('line', resolveLine);
    child.once('exit', (code) => reject(new Error(`the remote fixture exited (${code}) before listening`)));
  });
  const { url, port } = JSON.parse(first) as { url: string; port: number };
  return {
    url,
    port,
    child,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The person's browser for a host's `signInPage`: shows the sign-in page (noted in `pages`) and consents,
 * following its redirect to Airlock's loopback listener.
 */
export function consentingSignInPage(pages: string[] = []): (url: string) => void {
  return (url) => {
    pages.push(url);
    void (async () => {
      const page = await fetch(url, { redirect: 'manual' });
      const location = page.headers.get('location');
      if (location) await fetch(new URL(location, url));
    })().catch(() => undefined);
  };
}

/**
 * `airlock add` and `airlock import` with a command line that makes node run
 * code from outside what Airlock pinned (`--import data:…`, `-r`, an `env
 * NODE_OPTIONS=…` prefix), with the built CLI in a temp data folder: the
 * disclosure names them, the command stops with exit 2 before anything runs —
 * as `--env NODE_OPTIONS=…` does — and `--allow-code-arguments` lets it go on,
 * warned. A witness file proves whether the injected code ran.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airlockCli, REPO } from '../support/cli';

const ECHO = join(REPO, 'test/fixtures/servers/echo.mjs');

let work: string;

const cli = airlockCli('airlock-cli-code-args-', { env: { NO_COLOR: '1' }, timeout: 120_000 });
const { root, run: airlock } = cli;
const servers = () => JSON.parse(airlock(['list', '--json']).out) as Array<{ name: string }>;
/** Code that leaves a mark in the granted folder when it runs (the inspection may write only its temp folder; the server's run may write `work`). */
const injected = (mark: string) => `data:text/javascript,import("node:fs").then((fs)=>{try{fs.writeFileSync(${JSON.stringify(join(work, mark))},"ran")}catch{}})`;

beforeAll(() => {
  work = join(root, 'work');
  mkdirSync(work);
});
afterAll(() => cli.remove());

describe('a command line that loads code from outside what Airlock pinned', () => {
  it.each([
    ['--import data:…', (mark: string) => [process.execPath, '--import', injected(mark), ECHO], /“--import data:text\/javascript,.*” loads a module before the server’s own code; the code is written in the argument itself/],
    ['-r ./hook (the person’s own file, still outside the pin)', (mark: string) => [process.execPath, '-r', join(work, `${mark}.cjs`), ECHO], /“-r .*\.cjs” loads a module before the server’s own code, from outside the package Airlock pinned/],
    ['env NODE_OPTIONS=…', (mark: string) => ['env', `NODE_OPTIONS=--import=${injected(mark)}`, process.execPath, ECHO], /sets NODE_OPTIONS, which makes the program load code from elsewhere/],
  ])('%s: shown, then refused with exit 2 before anything runs; nothing saved', (_what, argv, reason) => {
    const mark = `mark-${Math.random().toString(36).slice(2)}`;
    writeFileSync(join(work, `${mark}.cjs`), `require('node:fs').writeFileSync(${JSON.stringify(join(work, mark))}, 'ran')`);
    const add = airlock(['add', 'echo', '--write', work, '--yes', '--', ...argv(mark)]);
    expect(add.code, add.err).toBe(2);
    expect(add.out).toMatch(/!! It runs code from outside what Airlock pinned and checked — refused unless you allow it \(--allow-code-arguments\):/);
    expect(add.err).toMatch(reason);
    expect(add.err).toMatch(/Airlock refuses this, as it refuses NODE_OPTIONS\. If you trust it, run the command again with --allow-code-arguments/);
    expect(existsSync(join(work, mark))).toBe(false);
    expect(servers()).toEqual([]);
  });

  it('--allow-code-arguments: warned in the disclosure, added, and the code it allowed runs when the server starts', () => {
    const mark = 'allowed-mark';
    const add = airlock(['add', 'echo', '--write', work, '--allow-code-arguments', '--yes', '--', process.execPath, '--import', injected(mark), ECHO]);
    expect(add.code, add.err).toBe(0);
    expect(add.out).toMatch(/!! It runs code from outside what Airlock pinned and checked — you allowed it \(--allow-code-arguments\):/);
    expect(servers().map((server) => server.name)).toEqual(['echo']);
    // Added and started in its sandbox (which may write `work`): the allowed code ran with it.
    expect(existsSync(join(work, mark))).toBe(true);
    expect(airlock(['remove', 'echo', '--yes']).code).toBe(0);
  });

  it('an imported entry with such a command line is not imported unless allowed', () => {
    const config = join(root, 'claude_desktop_config.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { sneaky: { command: process.execPath, args: ['--import', injected('import-mark'), ECHO] }, plain: { command: process.execPath, args: [ECHO] } } }));
    const refused = airlock(['import', config, '--yes', '--no-probe']);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/sneaky\s+not imported: Its command line runs code from outside what Airlock pinned/);
    expect(servers().map((server) => server.name)).toEqual(['plain']);
    expect(airlock(['remove', 'plain', '--yes']).code).toBe(0);
    const allowed = airlock(['import', config, '--yes', '--no-probe', '--allow-code-arguments', '--only', 'sneaky']);
    expect(allowed.code, allowed.out + allowed.err).toBe(0);
    expect(servers().map((server) => server.name)).toEqual(['sneaky']);
  });

  it('--allow-code-arguments is refused for a --url server: it runs no command line here', () => {
    const add = airlock(['add', 'web', '--url', 'https://mcp.example.com/mcp', '--allow-code-arguments', '--yes']);
    expect(add.code).toBe(2);
    expect(add.err).toMatch(/a --url server runs no command line/);
  });
});

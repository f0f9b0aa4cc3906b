/**
 * The README is the front door: it reads in the order a newcomer needs —
 * what Airlock is and why, what it needs (the sandbox's tools before any
 * command that needs them), how to run it, a first server, what the sandbox
 * guarantees, what has run where, where to go next. The side-by-side with
 * other hosts links each of Airlock's cells to the page that proves it; a
 * server's own screen is shown; the Node versions it states are
 * package.json's. Links, commands and words are checked for every page in
 * docs-pages.test.ts; the sandbox table in sandbox-doc.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');
const text = readFileSync(join(REPO, 'README.md'), 'utf8');
const withoutCode = text.replace(/```[\s\S]*?```/g, '');
const headings = [...withoutCode.matchAll(/^(#{1,6}) (.+)$/gm)].map((m) => ({ level: m[1]!.length, title: m[2]!.trim() }));
const packageJson = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { engines: { node: string }; desktopApp: { node: string } };

/** The rows of the first table under a second-level heading, split into cells. */
function tableUnder(title: string): string[][] {
  const section = withoutCode.split(/^## /m).find((part) => part.startsWith(`${title}\n`)) ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !line.startsWith('|---'))
    .map((line) => line.replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim()));
}

describe('README', () => {
  it('has one title and reads in order: why, what it needs, run it, a first server, guarantees, what has run where, where next', () => {
    expect(headings.filter((h) => h.level === 1)).toHaveLength(1);
    const order = ['Why Airlock', 'What it needs', 'Run it', 'Your first server in a minute', 'What the sandbox guarantees', 'What has run where', 'Where to go next'];
    const top = headings.filter((h) => h.level === 2).map((h) => h.title);
    expect(order.map((title) => top.indexOf(title))).toEqual([...order.map((title) => top.indexOf(title))].sort((a, b) => a - b));
    for (const title of order) expect(top).toContain(title);
  });

  it('installs the sandbox tools before any command that needs them', () => {
    expect(text.indexOf('sudo apt-get install -y bubblewrap socat ripgrep')).toBeLessThan(text.indexOf('npm start'));
    expect(text.indexOf('windows-install')).toBeLessThan(text.indexOf('npm start'));
  });

  it('gives the two commands — one runs the app, one runs the tests — and the one that puts `airlock` on the PATH', () => {
    const block = text.match(/## Run it[\s\S]*?```sh\n([\s\S]*?)```/)![1]!;
    expect(block).toMatch(/^npm start\b/m);
    expect(block).toMatch(/^npm test\b/m);
    expect(block).toMatch(/^npm run build && npm link\b/m);
    expect(text).toContain('bash .ci/run');
  });

  it('compares with Claude Desktop, VS Code and Goose, each of its own cells linked to the page that says more', () => {
    const rows = tableUnder('Why Airlock');
    expect(rows[0]!.slice(1)).toEqual(['Airlock', 'Claude Desktop', 'VS Code', 'Goose']);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const row of rows.slice(1)) expect(row[1]).toMatch(/\]\(docs\/[a-z-]+\.md(#[a-z0-9-]+)?\)/);
  });

  it("shows a server's own screen (MCP Apps) and a confirmation", () => {
    expect(text).toMatch(/!\[[^\]]+\]\(docs\/screenshots\/screen-[a-z-]+\.png\)/);
    expect(text).toMatch(/!\[[^\]]+\]\(docs\/screenshots\/confirmation-dialog-[a-z-]+\.png\)/);
  });

  it("states package.json's Node versions: what the command line and tests need, and what the app needs", () => {
    expect(text).toContain(`\`${packageJson.engines.node}\``);
    const app = semver.minVersion(packageJson.desktopApp.node)!;
    expect(text).toContain(`The desktop app needs Node ${app.major}.${app.minor} or later`);
    const commandLine = semver.minVersion(packageJson.engines.node)!;
    expect(text).toContain(`Node ${commandLine.major}.${commandLine.minor} or later`);
  });

  it('shows the first server with the commands a newcomer types: doctor, add, call, audit', () => {
    const session = text.match(/## Your first server in a minute[\s\S]*?```text\n([\s\S]*?)```/)![1]!;
    const typed = [...session.matchAll(/^\$ airlock (\S+)/gm)].map((m) => m[1]);
    expect(typed).toEqual(['doctor', 'add', 'call', 'audit', 'audit']);
    expect(session).toContain('Allowed once.');
  });
});

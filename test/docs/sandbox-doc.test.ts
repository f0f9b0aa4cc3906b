/**
 * docs/sandbox.md's table is the code's own words: each cell is the state
 * and the sentence the platform's backend states for that row (a change to
 * either without the other fails here), and the macOS and Windows columns
 * say "not yet verified on a real machine" for as long as the backends say
 * so themselves. The README's short table is held to the same words: each
 * cell is the state the backend states, and the README says "not yet
 * verified on a real machine" while a backend says so.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GUARANTEE_ROWS, platformBackend, SANDBOX_PLATFORMS } from '../../electron/core/sandbox/platform';

const REPO = resolve(import.meta.dirname, '../..');
const text = readFileSync(join(REPO, 'docs/sandbox.md'), 'utf8');
const readme = readFileSync(join(REPO, 'README.md'), 'utf8');

/** The table's rows as cells; a checkout with CRLF line endings reads the same (.gitattributes asks for LF; this does not rely on it). */
function tableRows(markdown: string): string[][] {
  return markdown
    .split(/\r?\n/)
    .filter((line) => line.startsWith('|') && !line.startsWith('|---'))
    .map((line) =>
      line
        .replace(/^\|/, '')
        .replace(/\|$/, '')
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/\\\|/g, '|')),
    );
}
const rows = tableRows(text);
/** The README's table under "What the sandbox guarantees". */
// (A checkout on Windows may end lines with \r\n.)
const readmeRows = tableRows(readme.split(/^## /m).find((section) => /^What the sandbox guarantees\r?\n/.test(section)) ?? '');

describe('docs/sandbox.md', () => {
  it('reads the same from a checkout with CRLF line endings (the Windows runner without eol=lf)', () => {
    expect(tableRows(text.replace(/\n/g, '\r\n'))).toEqual(rows);
    expect(rows[0]).toHaveLength(4);
  });

  it('has one row per guarantee, in order, and a column per platform', () => {
    expect(rows[0]!.slice(1).map((cell) => cell.split(' ')[0])).toEqual(['Linux', 'macOS', 'Windows']);
    expect(rows.slice(1).map((row) => row[0])).toEqual(GUARANTEE_ROWS.map((row) => row.label));
  });

  it.each(SANDBOX_PLATFORMS.map((platform, column) => [platform, column + 1] as const))('each %s cell is what its backend states', (platform, column) => {
    const stated = platformBackend(platform)!.guarantees({ runningAsRoot: false });
    for (const [index, row] of GUARANTEE_ROWS.entries()) {
      const said = stated.find((candidate) => candidate.row === row.id)!;
      expect(rows[index + 1]![column]).toBe(`**${said.state}** — ${said.how}`);
    }
  });

  it('says "not yet verified on a real machine" for each platform whose backend says so', () => {
    for (const [column, platform] of SANDBOX_PLATFORMS.entries()) {
      expect(rows[0]![column + 1]!.includes('not yet verified on a real machine')).toBe(!platformBackend(platform)!.verifiedOnRealMachine);
    }
  });

  it('says where the suite has run: Linux on every change; each platform not verified on a real machine, that its workflow has not run yet', () => {
    const section = text.split(/\r?\n## /).find((part) => part.startsWith('Where this has been tested'));
    expect(section).toBeDefined();
    const name: Record<string, string> = { linux: 'Linux', darwin: 'macOS', win32: 'Windows' };
    for (const platform of SANDBOX_PLATFORMS) {
      const line = section!.split('\n').find((candidate) => candidate.startsWith(`- **${name[platform]}:**`));
      expect(line, platform).toBeDefined();
      if (platformBackend(platform)!.verifiedOnRealMachine) expect(line).not.toMatch(/not yet verified/);
      else expect(line).toMatch(/It has not run yet: until it passes, .* is "not yet verified on a real machine"/);
    }
  });
});

describe('README.md, "What the sandbox guarantees"', () => {
  it('has the same rows, in order, and a column per platform', () => {
    expect(readmeRows[0]!.slice(1).map((cell) => cell.split(' ')[0])).toEqual(['Linux', 'macOS', 'Windows']);
    expect(readmeRows.slice(1).map((row) => row[0])).toEqual(GUARANTEE_ROWS.map((row) => row.label));
  });

  it.each(SANDBOX_PLATFORMS.map((platform, column) => [platform, column + 1] as const))('each %s cell is the state its backend states', (platform, column) => {
    const stated = platformBackend(platform)!.guarantees({ runningAsRoot: false });
    expect(readmeRows.slice(1).map((row) => row[column])).toEqual(GUARANTEE_ROWS.map((row) => stated.find((candidate) => candidate.row === row.id)!.state));
  });

  it('says "not yet verified on a real machine" for as long as a backend says so', () => {
    const unverified = SANDBOX_PLATFORMS.filter((platform) => !platformBackend(platform)!.verifiedOnRealMachine);
    expect(readme.includes('not yet verified on a real machine')).toBe(unverified.length > 0);
  });
});

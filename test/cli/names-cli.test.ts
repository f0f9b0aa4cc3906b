/**
 * Names are data, at the command line (issue 9, item 5): `airlock add` and
 * `airlock show` of a server whose tools, arguments, prompts and title are
 * all inherited property names (`constructor`, `__proto__`, …) — the built
 * CLI in a temporary data folder, the server in the real sandbox.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { airlockCli, REPO } from '../support/cli';

const HOSTILE = join(REPO, 'test/fixtures/names/hostile-names.mjs');
const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__lookupGetter__'];

const cli = airlockCli('airlock-cli-names-', { timeout: 60_000 });
const { run: airlock } = cli;

afterAll(() => cli.remove());

describe('a server named with inherited property names', () => {
  it('`airlock add` shows every tool and prompt and saves the server', () => {
    const { code, out, err } = airlock(['add', 'names', '--yes', '--', process.execPath, HOSTILE]);
    expect(err).not.toMatch(/Cannot read properties|failed unexpectedly/);
    expect(code).toBe(0);
    for (const name of NAMES) expect(out).toContain(`  ${name} — `);
    expect(out).toMatch(/Prompts: .*__proto__/);
    expect(out).toContain('The server says it is __proto__ constructor.');
  });

  it('`airlock show` lists every tool as reviewed, and `--json` carries each by its own name', () => {
    const text = airlock(['show', 'names']);
    expect(text.err).toBe('');
    expect(text.code).toBe(0);
    for (const name of NAMES) expect(text.out).toContain(`  ${name} — `);
    expect(text.out).not.toMatch(/NEW|CHANGED/);
    const json = airlock(['show', 'names', '--json']);
    const detail = JSON.parse(json.out) as { tools: Array<{ name: string; isNew: boolean }> };
    expect(detail.tools.map((tool) => tool.name).sort()).toEqual([...NAMES].sort());
    expect(detail.tools.every((tool) => !tool.isNew)).toBe(true);
  });

  it('`airlock rules add` and `rules list` work for a tool named constructor', () => {
    const added = airlock(['rules', 'add', 'names', 'constructor', 'deny', '--yes']);
    expect(added.err).not.toMatch(/Cannot read properties|failed unexpectedly/);
    expect(added.code).toBe(0);
    const listed = airlock(['rules', 'list', '--json']);
    expect(JSON.parse(listed.out)).toEqual([expect.objectContaining({ server: 'names', tool: 'constructor', effect: 'deny', current: true })]);
  });
});

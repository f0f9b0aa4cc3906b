/**
 * docs/architecture.md is held to the linter's table of the house
 * (eslint/house.mjs), and the table to the code: every folder under
 * electron/core/ has a row in the table's `rooms` and none is left over; the
 * page's tables list the same folders, in the same order, with the same
 * words; its floors and the core's stricter rules are the table's. So a
 * capability added without its row, or a page edited apart from the table,
 * fails here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coreRules, floors, rooms } from '../../eslint/house.mjs';

const REPO = resolve(import.meta.dirname, '../..');
const page = readFileSync(join(REPO, 'docs/architecture.md'), 'utf8');

/** The rows of the first table after `heading` whose header starts with `| folder |`: its cells, backticks around the first taken off. */
function tableAfter(heading: string): string[][] {
  const at = page.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`docs/architecture.md has no heading "${heading}"`);
  const lines = page.slice(at).split('\n');
  const start = lines.findIndex((line) => line.startsWith('| folder |'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    rows.push([cells[0]!.replace(/^`|`$/g, ''), ...cells.slice(1)]);
  }
  return rows;
}

describe('the house as the linter keeps it and as docs/architecture.md shows it', () => {
  it('the table names every folder under electron/core/, and only those', () => {
    const onDisk = readdirSync(join(REPO, 'electron/core'))
      .filter((name) => statSync(join(REPO, 'electron/core', name)).isDirectory())
      .map((name) => `electron/core/${name}/`)
      .sort();
    expect(rooms.map((room) => room.path).sort()).toEqual(onDisk);
  });

  it("the page's capabilities are the table's rooms, in its order and words", () => {
    expect(tableAfter("## The core's capabilities")).toEqual(rooms.map((room) => [room.path, room.holds]));
  });

  it("the page's folders are the table's floors, with what each holds", () => {
    expect(tableAfter('## The layout').map(([path, holds]) => [path, holds])).toEqual(floors.map((floor) => [floor.path, floor.holds]));
  });

  it("the page's stricter rules are the table's, each with its reason", () => {
    const rows = page.slice(page.indexOf('Three capabilities keep stricter rules')).split('\n').filter((line) => line.startsWith('| `electron/core/'));
    expect(rows.map((line) => line.split('|').slice(1, 3).map((cell) => cell.trim().replace(/^`|`$/g, '')))).toEqual(coreRules.map((rule) => [rule.from, rule.why]));
    expect(page).toContain(`${['One', 'Two', 'Three', 'Four', 'Five'][coreRules.length - 1]} capabilities keep stricter rules`);
  });
});

// The renderer's JavaScript as the window loads it, for `npm run bench`:
// gzipped bytes (level 9) of out/renderer's scripts — all of them, and the
// first load (the entry index.html names and what it imports statically;
// screens loaded on demand through import() are not in it) — each against
// the 200 KB goal, as value, baseline (the goal) and their ratio.
//
//   node --import tsx test/bench/renderer-size.ts     # after `npm run build`
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const out = join(root, 'out/renderer');
const GOAL_KB = 200;

/** Gzipped size of a file (KB, one decimal). */
const gzKb = (path: string): number => Math.round((gzipSync(readFileSync(path), { level: 9 }).length / 1024) * 10) / 10;

/** The scripts a first load runs: the entry's, and every chunk reached by a static import from it. */
export function firstLoad(dir = out): string[] {
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  return withStaticImports([...html.matchAll(/<script[^>]*type="module"[^>]*src="\.\/([^"]+)"/g)].map((m) => join(dir, m[1]!)));
}

/** The scripts that load with `entries` (files): they, and every chunk reached from them by a static import. */
export function withStaticImports(entries: string[]): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    // Static imports only (`import … from"./x.js"`, `import"./x.js"`); `import("./x.js")` loads on demand.
    for (const m of code.matchAll(/(?:\bfrom|\bimport)\s*"(\.\/[^"]+\.js)"/g)) visit(join(dirname(file), m[1]!));
  };
  entries.forEach(visit);
  return [...seen];
}

/** Every script of the built renderer (files). */
export function allScripts(dir = out): string[] {
  if (!existsSync(join(dir, 'index.html'))) throw new Error('out/renderer is not built: run `npm run build` first.');
  const assets = join(dir, 'assets');
  return readdirSync(assets).filter((name) => name.endsWith('.js')).map((name) => join(assets, name));
}

export function measureRendererSize(dir = out): { total: number; first: number; files: number } {
  const all = allScripts(dir);
  const total = Math.round(all.reduce((sum, file) => sum + gzKb(file), 0) * 10) / 10;
  const first = Math.round(firstLoad(dir).reduce((sum, file) => sum + gzKb(file), 0) * 10) / 10;
  return { total, first, files: all.length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { total, first, files } = measureRendererSize();
  const figure = (name: string, value: number, note: string) => ({ name, value, baseline: GOAL_KB, ratio: Math.round((value / GOAL_KB) * 1000) / 1000, unit: 'KB gzipped', goal: `<= ${GOAL_KB}`, note });
  console.log(JSON.stringify(figure('renderer-js-gzip-total', total, `every script in out/renderer (${files} files), minified, each gzipped at level 9; baseline: the goal`)));
  console.log(JSON.stringify(figure('renderer-js-gzip-first-load', first, 'what a window loads before it is asked for anything else: the entry and its static imports (the chat and rarely-used screens load on demand); baseline: the goal')));
}

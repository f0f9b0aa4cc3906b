/**
 * Each folder imports only what STYLE.md allows it to (VS Code's layering
 * rule, kept as a plain test). Reads every import specifier in the source.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

type Rule = { folder: string; allowFolders: string[]; allowElectron: boolean; allowNode: boolean; allowPackages: boolean | string[] };

const RULES: Rule[] = [
  { folder: 'shared', allowFolders: ['shared'], allowElectron: false, allowNode: false, allowPackages: ['zod'] },
  { folder: 'electron/core', allowFolders: ['electron/core', 'shared', 'package.json'], allowElectron: false, allowNode: true, allowPackages: true },
  { folder: 'electron/main', allowFolders: ['electron/main', 'electron/core', 'shared'], allowElectron: true, allowNode: true, allowPackages: true },
  { folder: 'electron/preload', allowFolders: ['electron/preload', 'shared'], allowElectron: true, allowNode: false, allowPackages: false },
  { folder: 'electron/cli', allowFolders: ['electron/cli', 'electron/core', 'shared', 'package.json'], allowElectron: false, allowNode: true, allowPackages: true },
  { folder: 'renderer', allowFolders: ['renderer', 'shared'], allowElectron: false, allowNode: false, allowPackages: ['react', 'react-dom', 'react-dom/client', 'react/jsx-runtime', '@modelcontextprotocol/sdk/shared/uriTemplate.js', '@modelcontextprotocol/ext-apps/app-bridge', '@modelcontextprotocol/core', '@modelcontextprotocol/client'] },
];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true })
    .map(String)
    .filter((file) => /\.(ts|tsx|mts)$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => join(folder, file));
}

/** Every module specifier in a file: static imports, re-exports, dynamic import() and require(). */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,]+\s+from\s+)?['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

function violations(rule: Rule): string[] {
  const problems: string[] = [];
  for (const file of sourceFiles(rule.folder)) {
    for (const spec of specifiers(readFileSync(join(ROOT, file), 'utf8'))) {
      const where = `${file} imports '${spec}'`;
      if (spec.startsWith('.')) {
        const target = relative(ROOT, resolve(ROOT, dirname(file), spec));
        if (!rule.allowFolders.some((folder) => target === folder || target.startsWith(`${folder}/`))) problems.push(`${where} (outside ${rule.allowFolders.join(', ')})`);
      } else if (spec === 'electron' || spec.startsWith('electron/')) {
        if (!rule.allowElectron) problems.push(`${where} (electron is not allowed here)`);
      } else if (NODE_BUILTINS.has(spec)) {
        if (!rule.allowNode) problems.push(`${where} (Node built-ins are not allowed here)`);
      } else if (rule.allowPackages !== true) {
        const allowed = rule.allowPackages === false ? [] : rule.allowPackages;
        if (!allowed.includes(spec) && !allowed.some((name) => spec.startsWith(`${name}/`))) problems.push(`${where} (package not allowed here)`);
      }
    }
  }
  return problems;
}

describe('layering (STYLE.md, "Where things live")', () => {
  it.each(RULES.map((rule) => [rule.folder, rule]))('%s imports only what it may', (_folder, rule) => {
    expect(violations(rule)).toEqual([]);
  });

  it('catches a violation (the check is not a no-op)', () => {
    const bad = specifiers(`import { app } from 'electron';\nconst fs = require('node:fs');\nexport * from '../main/window';`);
    expect(bad).toEqual(['electron', '../main/window', 'node:fs']);
  });
});

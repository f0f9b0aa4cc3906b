/**
 * The linter keeps the house (eslint/house.mjs): each rule is shown failing
 * on a deliberately bad import — or a dropped error — and passing on the good
 * one, with ESLint's own engine: the policy pure, the sandbox and the
 * supervisor never deciding or running calls, the renderer only the contract,
 * the shells only the core's faces, no circles. `npm test` runs the linter on
 * the whole tree (npm run lint); this test proves that run can fail.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { airlockPlugin, forgetImports } from '../../eslint/airlock-rules.mjs';

const ROOT = resolve(import.meta.dirname, '../..');

/** ESLint with only Airlock's rules (no type information needed). */
function linter(cwd = ROOT): ESLint {
  return new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts', '**/*.tsx'],
        languageOptions: { parser: tseslint.parser },
        plugins: { airlock: airlockPlugin },
        rules: { 'airlock/layers': 'error', 'airlock/no-cycles': 'error', 'airlock/explained-catch': 'error', 'airlock/platform-seam': 'error', 'no-empty': ['error', { allowEmptyCatch: false }] },
      },
    ],
  });
}

async function problems(code: string, filePath: string, cwd = ROOT): Promise<string[]> {
  const [result] = await linter(cwd).lintText(code, { filePath });
  return result!.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

describe('the house, as a lint rule', () => {
  it.each([
    ['the policy reaching the store (it must stay pure)', 'electron/core/policy/bad.ts', "import { AirlockStore } from '../store/store';", /policy\/ may not import electron\/core\/store\/store\.ts: the policy is pure/],
    ['the policy touching files', 'electron/core/policy/bad.ts', "import { readFileSync } from 'node:fs';", /may not use Node's node:fs/],
    ['the policy writing the audit log', 'electron/core/policy/bad.ts', "import { AuditLog } from '../audit/audit-log';", /policy\/ may not import electron\/core\/audit\/audit-log\.ts: the policy is pure/],
    ['the policy answering confirmations', 'electron/core/policy/bad.ts', "import { ConfirmationRegistry } from '../approvals/confirmation-registry';", /policy\/ may not import electron\/core\/approvals/],
    ['the policy starting processes', 'electron/core/policy/bad.ts', "import { spawn } from 'node:child_process';", /may not use Node's node:child_process/],
    ['the sandbox deciding calls', 'electron/core/sandbox/bad.ts', "import { decide } from '../policy/decide';", /sandbox\/ may not import electron\/core\/policy/],
    ['the sandbox running calls', 'electron/core/sandbox/bad.ts', "import { CallPipeline } from '../calls/call-pipeline';", /sandbox\/ may not import electron\/core\/calls/],
    ['the supervisor deciding calls', 'electron/core/servers/bad.ts', "import { decide } from '../policy/decide';", /servers\/ may not import electron\/core\/policy/],
    ['the supervisor running calls', 'electron/core/servers/bad.ts', "import { CallPipeline } from '../calls/call-pipeline';", /servers\/ may not import electron\/core\/calls/],
    ['the core importing Electron', 'electron/core/bad.ts', "import { app } from 'electron';", /core may never import electron/],
    ['the CLI reaching inside a room', 'electron/cli/bad.ts', "import { inert } from '../core/servers/log-ring';", /may use only the core's faces/],
    ['the Electron shell reaching inside a room', 'electron/main/bad.ts', "import { AuditLog } from '../core/audit/audit-log';", /main may use only the core's faces/],
    ['the CLI reaching into the Electron shell', 'electron/cli/bad.ts', "import { mainWindowOptions } from '../main/window';", /cli .* may not import electron\/main\/window/],
    ['the renderer using Node', 'renderer/bad.tsx', "import { readFileSync } from 'node:fs';", /renderer may not use Node's node:fs/],
    ['the renderer reaching the core', 'renderer/bad.tsx', "import { AirlockHost } from '../electron/core/host';", /renderer .* may not import electron\/core\/host/],
    ['the renderer reaching the preload', 'renderer/bad.tsx', "import '../electron/preload/index';", /renderer .* may not import electron\/preload\/index/],
    ['the renderer using Electron', 'renderer/bad.tsx', "import { ipcRenderer } from 'electron';", /renderer may never import electron/],
    ['the contract importing React', 'shared/bad.ts', "import { useState } from 'react';", /shared may not import the package react/],
  ])('refuses %s', async (_what, file, code, message) => {
    const found = await problems(code, join(ROOT, file));
    expect(found.join('\n')).toMatch(message);
  });

  it.each([
    ['a room using the contract and Node', 'electron/core/sandbox/fine.ts', "import type { SandboxProfile } from '../../../shared/domain';\nimport { join } from 'node:path';"],
    ['the CLI using the host', 'electron/cli/fine.ts', "import { AirlockHost } from '../core/host';\nimport { inert } from '../core/servers';"],
    ['the Electron shell using a room\'s face', 'electron/main/fine.ts', "import { AuditLog } from '../core/audit';"],
    ['the policy using pure neighbours', 'electron/core/policy/fine.ts', "import { fingerprintTool } from '../tools/fingerprint';"],
    ['the renderer using the contract', 'renderer/fine.tsx', "import type { ServerSummary } from '../shared/views';"],
  ])('lets %s through', async (_what, file, code) => {
    expect(await problems(code, join(ROOT, file))).toEqual([]);
  });

  it('refuses a circle of imports, and takes the same files once it is broken', async () => {
    forgetImports();
    const dir = mkdtempSync(join(tmpdir(), 'airlock-lint-cycle-'));
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b';\nexport const a = 1;\n");
    writeFileSync(join(dir, 'b.ts'), "import { c } from './c';\nexport const b = 2;\n");
    writeFileSync(join(dir, 'c.ts'), "import type { a } from './a';\nexport const c = 3;\n");
    expect((await problems("import { b } from './b';\nexport const a = 1;\n", join(dir, 'a.ts'), dir)).join('\n')).toMatch(/closes a circle: .*b\.ts → .*c\.ts imports .*a\.ts again/);
    writeFileSync(join(dir, 'c.ts'), 'export const c = 3;\n');
    forgetImports();
    expect(await problems("import { b } from './b';\nexport const a = 1;\n", join(dir, 'a.ts'), dir)).toEqual([]);
  });

  it('refuses a dropped failure with no word of why, and an empty catch', async () => {
    const file = join(ROOT, 'electron/core/fine.ts');
    expect((await problems('void Promise.resolve().catch(() => {});\n', file)).join('\n')).toMatch(/explained-catch/);
    expect((await problems('try { JSON.parse("x"); } catch {}\n', file)).join('\n')).toMatch(/no-empty/);
    expect(await problems('// Nothing to do: the caller already reported it.\nvoid Promise.resolve().catch(() => {});\n', file)).toEqual([]);
    expect(await problems('try { JSON.parse("x"); } catch {\n  // Not JSON: the default stands.\n}\n', file)).toEqual([]);
  });

  it.each([
    ['the sandbox launcher asking which OS', 'electron/core/sandbox/sandbox-launcher.ts', 'export const p = process.platform;\n', /process\.platform asks which OS/],
    ['a view asking whether Airlock is root', 'electron/core/views/resource-limits.ts', 'export const root = process.geteuid?.() === 0;\n', /process\.geteuid asks which OS \(or which user\)/],
    ['the supervisor importing os.platform', 'electron/core/servers/bad.ts', "import { platform } from 'node:os';\nexport const p = platform();\n", /os\.platform asks/],
    ['the renderer-facing core reading os.type through the module', 'electron/core/bad.ts', "import os from 'node:os';\nexport const t = os.type();\n", /os\.type asks/],
  ])('refuses %s outside the platform seam', async (_what, file, code, message) => {
    expect((await problems(code, join(ROOT, file))).join('\n')).toMatch(message);
  });

  it('lets the platform seam, and the files house.mjs names with a reason, ask', async () => {
    expect(await problems('export const p = process.platform;\n', join(ROOT, 'electron/core/sandbox/platform/index.ts'))).toEqual([]);
    expect(await problems('export const p = process.platform;\n', join(ROOT, 'electron/core/data-dir.ts'))).toEqual([]);
    expect(await problems("import { homedir } from 'node:os';\nexport const h = homedir();\n", join(ROOT, 'electron/core/sandbox/bad.ts'))).toEqual([]);
  });

  it('finds no question about the OS outside the seam in the tree as it is (npm test runs this rule over every source file)', async () => {
    const files = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(`${dir}/${entry.name}`) : /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [`${dir}/${entry.name}`] : [],
      );
    // Only this rule (the import graph of no-cycles is the slow part of the full lint).
    const seamOnly = new ESLint({
      cwd: ROOT,
      overrideConfigFile: true,
      overrideConfig: [{ files: ['**/*.ts', '**/*.tsx'], languageOptions: { parser: tseslint.parser }, plugins: { airlock: airlockPlugin }, rules: { 'airlock/platform-seam': 'error' } }],
    });
    const found: string[] = [];
    for (const file of [...files('electron'), ...files('shared'), ...files('renderer')]) {
      const [result] = await seamOnly.lintText(readFileSync(join(ROOT, file), 'utf8'), { filePath: join(ROOT, file) });
      found.push(...result!.messages.filter((message) => message.ruleId === 'airlock/platform-seam').map((message) => `${file}:${message.line}: ${message.message}`));
    }
    expect(found).toEqual([]);
  });
});

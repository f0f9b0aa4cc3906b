/**
 * The linter keeps the house (eslint/house.mjs): each rule is shown failing
 * on a deliberately bad import — or a dropped error — and passing on the good
 * one, with ESLint's own engine: the policy pure, the sandbox and the
 * supervisor never deciding or running calls, the renderer only the contract,
 * the shells only the core's faces, no circles. `npm test` runs the linter on
 * the whole tree (npm run lint); this test proves that run can fail.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
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
        rules: { 'airlock/layers': 'error', 'airlock/no-cycles': 'error', 'airlock/explained-catch': 'error', 'no-empty': ['error', { allowEmptyCatch: false }] },
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
});

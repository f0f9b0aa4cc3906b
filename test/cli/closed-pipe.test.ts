/**
 * A command whose reader stops early (`airlock audit | head -3`) ends as it
 * would have: no stack trace for the closed pipe, its own exit code.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '../../bin/airlock.js');
const root = mkdtempSync(join(tmpdir(), 'al-pipe-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a reader that stops reading', () => {
  it.each([['settings'], ['--help'], ['doctor']])('`airlock %s | head -1` ends quietly, with the command’s own exit code', (command) => {
    // head exits after one line; the rest of what airlock writes meets a closed pipe.
    const script = `"${process.execPath}" "${BIN}" --data-dir "${join(root, 'd')}" ${command} | head -1 >/dev/null; echo "rc=\${PIPESTATUS[0]}" >&2`;
    const run = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: { ...process.env, HOME: root, NO_COLOR: '1' } });
    expect(run.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
    const rc = Number(/rc=(\d+)/.exec(run.stderr)?.[1]);
    // --help exits 0 once printed; settings and doctor as they would have (doctor: whether the sandbox is ready).
    expect(command === 'doctor' ? [0, 1] : [0]).toContain(rc);
  });
});

/**
 * `npm run soak`: the long versions of the fault tests (issue 16), as JSON
 * lines with what was lost (the goal is nothing). SOAK_SCALE multiplies the
 * counts (default 1: 100 settings kills, 200 audit kills).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killDuringAppends } from '../core/audit/support/kill-appends';
import { killDuringSaves } from '../core/store/support/kill-saves';

const scale = Number(process.env.SOAK_SCALE ?? 1);
let failed = false;

async function soak<T extends object>(name: string, run: (dir: string) => Promise<T>, ok: (report: T) => boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `airlock-soak-${name}-`));
  const started = performance.now();
  try {
    const report = await run(dir);
    const passed = ok(report);
    failed ||= !passed;
    console.log(JSON.stringify({ name, ...report, seconds: Math.round((performance.now() - started) / 100) / 10, passed }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await soak('settings-write-killed', (dir) => killDuringSaves(dir, Math.round(100 * scale)), (r) => r.lost === 0 && r.corrupt === 0 && r.unopenable === 0);
await soak('audit-append-killed', (dir) => killDuringAppends(dir, Math.round(200 * scale)), (r) => r.lost === 0 && r.unresolved === 0 && r.broken === 0);
process.exitCode = failed ? 1 : 0;

/**
 * `npm run soak`: the long versions of the fault tests (issue 16), as JSON
 * lines with what was lost (the goal is nothing). SOAK_SCALE multiplies the
 * counts (default 1: 100 settings kills, 200 audit kills, 200 owners killed
 * mid-call). SOAK_ONLY=name[,name] runs only those.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killDuringAppends } from '../core/audit/support/kill-appends';
import { killDuringSaves } from '../core/store/support/kill-saves';
import { killOwnersMidCall } from '../reliability/support/owner-kill';

const scale = Number(process.env.SOAK_SCALE ?? 1);
const only = process.env.SOAK_ONLY?.split(',').map((name) => name.trim());
let failed = false;

async function soak<T extends object>(name: string, run: (dir: string) => Promise<T>, ok: (report: T) => boolean): Promise<void> {
  if (only && !only.includes(name)) return;
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
await soak(
  'owner-killed-mid-call',
  (dir) => killOwnersMidCall(dir, Math.round(200 * scale), { onCycle: (cycle) => cycle % 20 === 0 && process.stderr.write(`owner-killed-mid-call: ${cycle} cycles\n`) }),
  (r) =>
    r.orphans === 0 &&
    r.failedTakeovers === 0 &&
    r.unresolved === 0 &&
    r.lost === 0 &&
    r.broken === 0 &&
    r.leftoverTempFolders === 0 &&
    r.fdsAfter <= r.fdsBaseline &&
    // Back to baseline: what a cycle allocates is given back (a leak of even 100 KB a cycle would show).
    r.rssAfterMb <= r.rssBaselineMb + 20,
);
process.exitCode = failed ? 1 : 0;

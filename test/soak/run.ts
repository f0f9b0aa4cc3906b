/**
 * `npm run soak`: the long versions of the fault tests (issue 16), as JSON
 * lines with what was lost (the goal is nothing). SOAK_SCALE multiplies the
 * counts (default 1: 100 settings kills, 200 audit kills, 200 owners killed
 * mid-call and 50 more with a network grant, 1,000 fuzzed messages per
 * gateway message kind over stdio and over HTTP, 1,000 fuzzed payloads per
 * IPC channel). SOAK_ONLY=name[,name] runs only those; SOAK_SEED replays a fuzz.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killDuringAppends } from '../core/audit/support/kill-appends';
import { killDuringSaves } from '../core/store/support/kill-saves';
import { fuzzGateway } from '../reliability/support/gateway-fuzz';
import { fuzzIpc } from '../reliability/support/ipc-fuzz';
import { killOwnersMidCall, type OwnerKillReport } from '../reliability/support/owner-kill';

const scale = Number(process.env.SOAK_SCALE ?? 1);
const seed = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000);
const only = process.env.SOAK_ONLY?.split(',').map((name) => name.trim());
let failed = false;

async function soak<T extends object>(name: string, run: (dir: string) => Promise<T>, ok: (report: T) => boolean): Promise<void> {
  if (only && !only.includes(name)) return;
  const dir = mkdtempSync(join(tmpdir(), `airlock-soak-${name}-`));
  const started = performance.now();
  let passed = false;
  try {
    const report = await run(dir);
    passed = ok(report);
    console.log(JSON.stringify({ name, ...report, seconds: Math.round((performance.now() - started) / 100) / 10, passed }));
  } catch (error) {
    console.log(JSON.stringify({ name, error: error instanceof Error ? error.message : String(error), seconds: Math.round((performance.now() - started) / 100) / 10, passed: false }));
  } finally {
    failed ||= !passed;
    // A failed soak's folder (data, audit log, records) is kept for a post-mortem.
    if (passed) rmSync(dir, { recursive: true, force: true });
    else console.error(`${name}: kept ${dir}`);
  }
}

await soak('settings-write-killed', (dir) => killDuringSaves(dir, Math.round(100 * scale)), (r) => r.lost === 0 && r.corrupt === 0 && r.unopenable === 0);
await soak('audit-append-killed', (dir) => killDuringAppends(dir, Math.round(200 * scale)), (r) => r.lost === 0 && r.unresolved === 0 && r.broken === 0);
await soak(
  'owner-killed-mid-call',
  (dir) => killOwnersMidCall(dir, Math.round(200 * scale), { onCycle: (cycle) => cycle % 20 === 0 && process.stderr.write(`owner-killed-mid-call: ${cycle} cycles\n`) }),
  ownerKillOk,
);
await soak(
  'owner-killed-mid-call-networked',
  (dir) => killOwnersMidCall(dir, Math.round(50 * scale), { network: true }),
  (r) => ownerKillOk(r) && r.socatsKilled === r.kills,
);
for (const transport of ['stdio', 'http'] as const) {
  await soak(
    `gateway-fuzz-${transport}`,
    // The seed is printed, so a failure can be replayed.
    (dir) => fuzzGateway(dir, transport, Math.round(1000 * scale), { seed }).then((report) => ({ seed, ...report })),
    (r) => r.problems.length === 0 && r.unanswered === 0 && r.answeredTwice === 0 && r.acceptedForbidden === 0 && r.internalErrors === 0 && r.crashes === 0 && r.answersAfter && r.auditVerifies,
  );
}
await soak(
  'ipc-fuzz',
  async () => ({ seed, ...(await fuzzIpc(Math.round(1000 * scale), { seed })) }),
  (r) => r.problems.length === 0 && r.acceptedForbidden === 0 && r.crashes === 0 && r.uncaught === 0 && !r.polluted && r.answersAfter,
);

function ownerKillOk(r: OwnerKillReport): boolean {
  return (
    r.orphans === 0 &&
    r.failedTakeovers === 0 &&
    r.unresolved === 0 &&
    r.lost === 0 &&
    r.broken === 0 &&
    r.leftoverTempFolders === 0 &&
    r.fdsAfter <= r.fdsBaseline &&
    // Back to baseline: what a cycle allocates is given back (a leak of even 100 KB a cycle would show).
    r.rssAfterMb <= r.rssBaselineMb + 20
  );
}
process.exitCode = failed ? 1 : 0;

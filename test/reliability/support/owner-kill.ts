/**
 * The owner of the data folder killed with SIGKILL mid-call (issue 16.1), again
 * and again. Each cycle starts the real `airlock gateway --stdio` (the built
 * CLI), which takes the folder over from the previous, killed one; an app's
 * call reaches a sandboxed server that scattered processes everywhere it could
 * (its own group, a new session, a double-forked daemon — all ignoring
 * SIGTERM) and hangs after acting; the gateway is killed. Checked from
 * outside, every cycle:
 *
 * - every process of that owner's servers is gone (in /proc: the whole tree
 *   seen before the kill, and anything carrying the server's marker), and
 *   how long that took;
 * - the next gateway holds owner.lock (it took the folder over);
 * - the killed call's outcome is recorded as unknown by that next process,
 *   and the audit log verifies with its end confirmed by the key.
 *
 * At the end one more Airlock process (`airlock audit verify`) takes over:
 * the log verifies; every call reads unknown; no temp folder of a killed
 * owner is left; this process's file descriptors and memory are back where
 * they were after the first cycle. Used by a short test in `npm test` and by
 * `npm run soak` (200 cycles).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../../../electron/core/audit/audit-log';
import { fileAuditKey } from '../../../electron/core/audit/audit-key';
import { AirlockHost } from '../../../electron/core/host';
import { addLocalServer } from '../../support/add-server';
import { CLI, openSession, REPO, startGateway } from './gateway-process';
import { killExactly, processesMentioning, processTree, selfUsage, stillAlive, waitUntilGone, type ProcInfo } from './proc';

const SERVER = join(REPO, 'test/fixtures/servers/scatter-and-hang.mjs');
/** The promise: every process of a killed owner's servers is gone within this. */
export const TEARDOWN_LIMIT_MS = 1000;
/** Why the next Airlock gives a killed owner's call (audit-log.ts). */
const UNKNOWN_REASON = 'Airlock stopped before the call finished; the server may have acted.';

export interface OwnerKillReport {
  cycles: number;
  kills: number;
  /** Processes of killed owners' servers seen before each kill (bwrap, the server, what it scattered, socat). */
  processesKilled: number;
  /** Of those, the network proxy's socat (one per cycle when the server has a network grant). */
  socatsKilled: number;
  /** Of those (or carrying the marker), still alive one second after their owner died. */
  orphans: number;
  /** The slowest teardown, owner's death to the last process gone (ms). */
  slowestTeardownMs: number;
  medianTeardownMs: number;
  /** Cycles whose next gateway did not hold owner.lock. */
  failedTakeovers: number;
  /** Calls that reached the server (each once). */
  callsActed: number;
  /** Killed calls recorded as unknown by the next process. */
  unknown: number;
  /** Killed calls with any other outcome, or none, after the next process took over. */
  unresolved: number;
  /** Calls that acted but whose decision is missing from the log. */
  lost: number;
  /** Checks after which the log did not verify with its end confirmed. */
  broken: number;
  /** Writes torn by a kill and sealed by the next process. */
  repaired: number;
  /** Temp folders of killed owners left behind at the end. */
  leftoverTempFolders: number;
  /** This process before (after cycle 1) and after the last cycle. */
  fdsBaseline: number;
  fdsAfter: number;
  rssBaselineMb: number;
  rssAfterMb: number;
}

export interface OwnerKillOptions {
  random?: () => number;
  /** Give the server a network grant, so its sandbox runs the network proxy's socat too. */
  network?: boolean;
  /** Called after each cycle (progress for the soak). */
  onCycle?: (cycle: number, report: OwnerKillReport) => void;
}

export async function killOwnersMidCall(root: string, cycles: number, options: OwnerKillOptions = {}): Promise<OwnerKillReport> {
  const random = options.random ?? Math.random;
  const dataDir = join(root, 'data');
  const home = join(root, 'home');
  const records = join(root, 'records');
  const keyPath = join(root, 'keys', 'audit-head.key');
  for (const dir of [home, records]) mkdirSync(dir, { recursive: true });
  const marker = `airlock-owner-kill-${randomBytes(6).toString('hex')}`;
  const env = { HOME: home, AIRLOCK_AUDIT_KEY_FILE: keyPath };
  const key = fileAuditKey(keyPath);

  // Installed once, through the real install flow; the server may write only its records folder.
  const setup = new AirlockHost({ dataDir, homeDir: home, version: 'test', hooks: { emit: () => {} }, audit: { key } });
  await addLocalServer(setup, 'scatter', [process.execPath, SERVER, records, marker], {
    profile: { filesystem: { read: [], write: [records], persistentData: false }, ...(options.network ? { network: { allowedDomains: ['example.com'] } } : {}) },
    trusted: true,
  });
  await setup.dispose();

  const report: OwnerKillReport = {
    cycles: 0,
    kills: 0,
    processesKilled: 0,
    socatsKilled: 0,
    orphans: 0,
    slowestTeardownMs: 0,
    medianTeardownMs: 0,
    failedTakeovers: 0,
    callsActed: 0,
    unknown: 0,
    unresolved: 0,
    lost: 0,
    broken: 0,
    repaired: 0,
    leftoverTempFolders: 0,
    fdsBaseline: 0,
    fdsAfter: 0,
    rssBaselineMb: 0,
    rssAfterMb: 0,
  };
  const teardowns: number[] = [];
  const killedPids: number[] = [];
  const acted = () => (existsSync(join(records, 'acted')) ? readFileSync(join(records, 'acted'), 'utf8').split('\n').filter(Boolean) : []);
  const lockHolder = () => {
    try {
      return readFileSync(join(dataDir, 'owner.lock'), 'utf8').trim();
    } catch {
      return '';
    }
  };

  for (let cycle = 1; cycle <= cycles; cycle += 1) {
    const gateway = startGateway(dataDir, env, ['--client', 'owner-kill soak']);
    try {
      await openSession(gateway);
      // The previous owner was killed holding the lock: this one must hold it now.
      if (lockHolder() !== String(gateway.pid)) report.failedTakeovers += 1;
      const note = `cycle-${cycle}`;
      gateway.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'scatter__act', arguments: { note } } });
      await until(
        () => acted().includes(note),
        60_000,
        () => `the call of ${note} never reached the server; the gateway answered: ${JSON.stringify(gateway.lines.slice(-3)).slice(0, 2000)}; stderr: ${gateway.stderr().slice(-2000)}`,
      );
      report.callsActed += 1;
      // The previous cycle's call, now that this process has taken over.
      if (cycle > 1) await checkLog(cycle - 1, true);
      // Mid-call: the server acted and is holding the call open.
      await sleep(random() * 30);
      const tree = processTree(gateway.pid);
      report.processesKilled += tree.length;
      report.socatsKilled += tree.filter((p) => /^(\S*\/)?socat(\s|$)/.test(p.cmdline)).length;
      gateway.child.kill('SIGKILL');
      await gateway.exited;
      killedPids.push(gateway.pid);
      report.kills += 1;
      const seen = new Map<number, ProcInfo>(tree.map((p) => [p.pid, p]));
      const survivors = () => {
        for (const p of processesMentioning(marker)) if (!seen.has(p.pid)) seen.set(p.pid, p);
        return stillAlive([...seen.values()]);
      };
      const { left, ms } = await waitUntilGone(survivors, TEARDOWN_LIMIT_MS);
      teardowns.push(ms);
      if (left.length > 0) {
        report.orphans += left.length;
        // Clean up exactly these (by pid and start time), so the next cycle starts clean.
        killExactly(left);
        await waitUntilGone(() => stillAlive(left), 5_000);
      }
      report.cycles = cycle;
      if (cycle === 1) {
        const usage = selfUsage();
        report.fdsBaseline = usage.fds;
        report.rssBaselineMb = mb(usage.rssBytes);
      }
      options.onCycle?.(cycle, report);
    } finally {
      if (gateway.alive()) gateway.child.kill('SIGKILL');
      await gateway.exited;
    }
  }

  // One more gateway takes over (recording the last call, sweeping the killed owners' temp
  // folders as it starts the server) and is stopped the way an app stops it: stdin closed.
  const last = startGateway(dataDir, env, ['--client', 'owner-kill soak']);
  try {
    await openSession(last);
    if (lockHolder() !== String(last.pid)) report.failedTakeovers += 1;
    await checkLog(cycles, false);
    last.child.stdin.end();
    await Promise.race([last.exited, sleep(30_000)]);
  } finally {
    if (last.alive()) last.child.kill('SIGKILL');
    await last.exited;
  }
  // A clean stop leaves nothing running either.
  const afterStop = await waitUntilGone(() => processesMentioning(marker), TEARDOWN_LIMIT_MS * 5);
  report.orphans += afterStop.left.length;
  killExactly(afterStop.left);
  report.leftoverTempFolders = leftoverRunFolders(killedPids);
  // And the real `airlock audit verify`, as a person would run it.
  const verify = await runCli(dataDir, env, ['audit', 'verify', '--json']);
  if (verify.code !== 0) report.broken += 1;
  global.gc?.();
  const usage = selfUsage();
  report.fdsAfter = usage.fds;
  report.rssAfterMb = mb(usage.rssBytes);
  teardowns.sort((a, b) => a - b);
  report.slowestTeardownMs = Math.round(teardowns.at(-1) ?? 0);
  report.medianTeardownMs = Math.round(teardowns[Math.floor(teardowns.length / 2)] ?? 0);
  return report;

  /**
   * The log after the process following cycle `upTo`'s owner took over: the
   * calls of cycles 1..upTo read unknown (the newest recorded by that
   * process, which may still be finishing its take-over: waited for), one
   * decision per call that acted, and the chain verifies with its end
   * confirmed. `inFlight`: a live owner's call is open after them.
   */
  async function checkLog(upTo: number, inFlight: boolean): Promise<void> {
    const log = new AuditLog({ dir: join(dataDir, 'audit'), key });
    try {
      let calls = await callsIn(log);
      for (let i = 0; i < 200 && calls.filter((c) => c.outcome === 'unknown').length < upTo; i++) {
        await sleep(25);
        calls = await callsIn(log);
      }
      const expected = upTo + (inFlight ? 1 : 0);
      const unknown = calls.filter((c) => c.outcome === 'unknown' && c.detail === UNKNOWN_REASON).length;
      report.lost = Math.max(report.lost, expected - calls.length);
      report.unknown = unknown;
      report.unresolved = Math.max(report.unresolved, upTo - unknown);
      const result = await log.verify();
      if (!result.ok || result.end !== 'confirmed') report.broken += 1;
      report.repaired = result.repaired.length;
    } finally {
      await log.close();
    }
  }
}

async function callsIn(log: AuditLog): Promise<Array<{ outcome?: string; detail?: string }>> {
  const rows = await log.read({ server: 'scatter', limit: 100_000 });
  return rows.map((row) => ({ ...(row.outcome ? { outcome: row.outcome.outcome, detail: row.outcome.detail } : {}) }));
}

/** Run folders (the sandbox's temp homes) whose owner was one of the killed processes. */
function leftoverRunFolders(killed: number[]): number {
  const parent = join(tmpdir(), `airlock-sandbox-${process.getuid?.() ?? 'user'}`);
  const dead = new Set(killed);
  let left = 0;
  let entries: string[] = [];
  try {
    entries = readdirSync(parent);
  } catch {
    return 0;
  }
  for (const entry of entries) {
    try {
      const owner = JSON.parse(readFileSync(join(parent, entry, 'owner.json'), 'utf8')) as { pid?: number };
      if (typeof owner.pid === 'number' && dead.has(owner.pid)) left += 1;
    } catch {
      // not a run folder, or being swept
    }
  }
  return left;
}

function runCli(dataDir: string, env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [CLI, '--data-dir', dataDir, ...args], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) => resolveRun({ code, stdout, stderr }));
  });
}

async function until(check: () => boolean, timeoutMs: number, why: () => string): Promise<void> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > timeoutMs) throw new Error(why());
    await sleep(20);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

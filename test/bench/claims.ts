/**
 * What checking claims against behaviour costs a call, as ratios against a
 * baseline measured in the same run (TESTING.md, "Benchmarks"):
 * - a call through the choke point to a trusted server with a write grant
 *   (its grants watched, its proxy's decisions attributed, the call compared
 *   with its tool's claims when it returns), against the same call on a
 *   second host whose launcher observes nothing — the same server, the same
 *   sandbox, the same grant, calls interleaved so both see the same load
 *   (goal ≤ 1.05);
 * - a call to a server with no grants and no network, on the observing host
 *   against the other: nothing is started for it (no watcher, no proxy), so
 *   nothing is attributed and its call pays one map lookup.
 * Prints one JSON object per figure, with this process's CPU time per call
 * (less moved by other load than the clock). BENCH_CALLS (per round) and
 * BENCH_ROUNDS change the sample; each figure is the median of the rounds'
 * medians; both hosts' servers are restarted before each round.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defaultSandboxProfile, type SandboxProfile } from '../../shared/domain';
import { AirlockHost } from '../../electron/core/host';

const ROOT = resolve(import.meta.dirname, '../..');
const SERVER = join(ROOT, 'test/fixtures/servers/claims-server.mjs');
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number) => Math.round(value * 1000) / 1000;
const figure = (name: string, value: number, baseline: number, extra: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ name, value: round(value), baseline: round(baseline), ratio: round(value / baseline), ...extra }));

async function add(host: AirlockHost, name: string, profile: Partial<SandboxProfile>): Promise<void> {
  const base = defaultSandboxProfile();
  const { unsandboxed: _u, ...editable } = { ...base, ...profile, filesystem: { ...base.filesystem, ...profile.filesystem } };
  const disclosure = await host.install.prepare({ kind: 'local', argv: [process.execPath, SERVER] });
  await host.install.probe(disclosure.draftId, {}, editable);
  await host.install.commit({ draftId: disclosure.draftId, name, profile: editable, trusted: true, secrets: {}, enable: true });
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'airlock-bench-claims-'));
  const granted = join(root, 'granted');
  mkdirSync(granted);
  writeFileSync(join(granted, 'notes.txt'), 'notes\n');
  for (let i = 0; i < 200; i += 1) writeFileSync(join(granted, `file-${i}.txt`), `file ${i}\n`);
  // The same host twice; one's launcher is told to observe nothing (`observe` undefined: no watcher, nothing attributed).
  const observing = new AirlockHost({ dataDir: join(root, 'on'), version: 'bench', hooks: { emit: () => {} } });
  const blind = new AirlockHost({ dataDir: join(root, 'off'), version: 'bench', hooks: { emit: () => {} }, launcherOptions: { observe: undefined } });
  try {
    for (const host of [observing, blind]) {
      await add(host, 'files', { filesystem: { read: [], write: [granted], persistentData: false } });
      await add(host, 'contained', {});
    }
    if (!observing.claims.observing('files') || blind.claims.observing('files')) throw new Error('the bench needs one observing host and one that is not');
    if (observing.claims.observing('contained')) throw new Error('a server with no grants and no network must not be observed');

    const call = (host: AirlockHost, server: string) => host.calls.call({ server, tool: 'read', arguments: { path: server === 'files' ? join(granted, 'notes.txt') : '/etc/hostname' }, caller: { kind: 'client', name: 'bench' } });
    const cpuUs = () => {
      const usage = process.cpuUsage();
      return usage.user + usage.system;
    };
    const measure = async (server: string): Promise<{ on: number; off: number; onCpu: number; offCpu: number }> => {
      const rounds: Array<{ on: number; off: number; onCpu: number; offCpu: number }> = [];
      for (let r = 0; r < ROUNDS; r += 1) {
        // Fresh server processes each round: where the OS places them weighs on a sub-millisecond call.
        await Promise.all([observing.servers.restartIfRunning(server), blind.servers.restartIfRunning(server)]);
        const wall = { on: [] as number[], off: [] as number[] };
        const cpu = { on: 0, off: 0 };
        for (let i = 0; i < CALLS + 20; i += 1) {
          // Alternate which goes first, so neither always follows the other's turn.
          for (const side of i % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
            const host = side === 'on' ? observing : blind;
            const cpuStart = cpuUs();
            const start = performance.now();
            const result = await call(host, server);
            const ms = performance.now() - start;
            const used = cpuUs() - cpuStart;
            if (result.decision.verdict !== 'allow' || result.outcome === 'denied') throw new Error(`bench call not allowed: ${result.message ?? result.decision.reasons.join(' ')}`);
            // The outcome is written once the turn is over: let that happen untimed.
            await new Promise((done) => setImmediate(done));
            if (i >= 20) {
              wall[side].push(ms);
              cpu[side] += used;
            }
          }
        }
        rounds.push({ on: median(wall.on), off: median(wall.off), onCpu: cpu.on / CALLS, offCpu: cpu.off / CALLS });
      }
      const of = (key: 'on' | 'off' | 'onCpu' | 'offCpu') => median(rounds.map((x) => x[key]));
      return { on: of('on'), off: of('off'), onCpu: of('onCpu'), offCpu: of('offCpu') };
    };

    // What every figure here reports besides its goal: the run's size, and the CPU a call took, observed and not.
    const runSize = { unit: 'ms', calls: CALLS, rounds: ROUNDS };
    const cpuOf = (m: Awaited<ReturnType<typeof measure>>) => ({ cpuUsPerCall: round(m.onCpu), baselineCpuUsPerCall: round(m.offCpu), cpuRatio: round(m.onCpu / m.offCpu) });
    const withGrant = await measure('files');
    figure('claims-observation-call-ms', withGrant.on, withGrant.off, {
      ...runSize,
      goal: '<= 1.05',
      ...cpuOf(withGrant),
      note: 'a trusted read-only tool of a server with a write grant (201 files, watched) and a network proxy, auto-allowed; baseline: the same call on a host whose launcher observes nothing',
    });
    const without = await measure('contained');
    figure('claims-observation-call-ms-no-grants', without.on, without.off, {
      ...runSize,
      goal: '~1.0 (nothing observed)',
      observed: observing.claims.observing('contained'),
      ...cpuOf(without),
      note: 'a server with no grants and no network: no watcher and no proxy are started for it; baseline: the same call on the host that observes nothing',
    });
    // No call was attributed anything: the honest read-only tool only reads.
    const contradictions = (await observing.audit.readActivity({ limit: 10 })).filter((record) => 'claims' in record).length;
    if (contradictions !== 0) throw new Error(`an honest read-only tool was recorded as contradicting its claims ${contradictions} time(s)`);
  } finally {
    await observing.dispose();
    await blind.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();

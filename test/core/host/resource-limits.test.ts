/**
 * A server's page says which resource limits it runs under — and it is
 * true: the values are those the kernel reports inside the running server's
 * sandbox, and a limit said not to hold here (the process limit when
 * Airlock runs as root) is measured not to hold, one said to hold, to hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerDetail } from '../../../shared/views';
import { createTestHost, fixture, type TestHost } from './host-support';

const LIMITS_SERVER = fixture('escape/limits-server.mjs');
const limits = { processes: 48, openFiles: 256, memoryBytes: 512 * 1024 ** 2, cpuSeconds: 90 };

async function report(t: TestHost, tool: string, args: Record<string, unknown> = {}) {
  const result = await t.host.calls.call({ server: 'hungry', tool, arguments: args, caller: { kind: 'user' } });
  expect(result.outcome, result.message).toBe('ok');
  return JSON.parse((result.result!.content[0] as { text: string }).text);
}
const row = (detail: ServerDetail, kind: string) => detail.limits.find((limit) => limit.kind === kind)!;

describe('resource limits on the server page', () => {
  let t: TestHost;

  beforeAll(async () => {
    // The flood's children sleep 3 s, and the fixture waits for them: calls get longer than the default 2 s.
    t = await createTestHost({ launcherOptions: { limits }, supervisor: { defaultCall: { timeoutMs: 20_000, maxTotalMs: 30_000 } } });
    await t.add('hungry', [process.execPath, LIMITS_SERVER]);
  });
  afterAll(() => t?.close());

  it('names each limit in words, with the values the kernel reports inside the running server', async () => {
    const inside = await report(t, 'limits');
    const detail = await t.host.servers.detail('hungry');
    expect(detail.limits.map((limit) => limit.kind)).toEqual(['processes', 'memory', 'cpu', 'openFiles']);
    expect(row(detail, 'processes').value).toBe(`${inside.processes.soft}, counting everything it starts`);
    expect(inside.data.soft).toBe(String(512 * 1024 ** 2));
    expect(row(detail, 'memory').value).toBe('512 MB of writable memory per process (more is refused)');
    expect(inside.cpu.soft).toBe('90');
    expect(row(detail, 'cpu').value).toBe('90 seconds per process, then that process is stopped');
    expect(row(detail, 'openFiles').value).toBe(`${inside.openFiles.soft} per process`);
    expect(detail.limitsNote).toBeUndefined();
  });

  it('says honestly whether the process limit holds here — and a fork flood of 100 agrees', async () => {
    const processes = row(await t.host.servers.detail('hungry'), 'processes');
    const { started } = await report(t, 'spawn_many', { count: 100 });
    if (processes.holds) {
      expect(started).toBeLessThan(48);
    } else {
      // Airlock runs as root here: Linux does not count root's processes against the limit, as the page says.
      expect(process.geteuid?.()).toBe(0);
      expect(processes.note).toMatch(/Does not hold here: Airlock runs as root/);
      expect(started).toBeGreaterThan(48);
    }
  });

  it('the memory limit said to hold does: a 700 MB allocation is refused', async () => {
    expect(row(await t.host.servers.detail('hungry'), 'memory').holds).toBe(true);
    expect((await report(t, 'allocate', { mb: 700 })).stdout).toMatch(/^refused/);
  });
});

describe('resource limits where no sandbox can run', () => {
  let t: TestHost;

  beforeAll(async () => {
    t = await createTestHost({ checkSandbox: () => ({ supported: false, platform: 'linux', missing: ['prlimit'], fix: 'sudo apt-get install -y util-linux', summary: 'The sandbox cannot run: prlimit is missing.' }) });
    await t.add('hungry', [process.execPath, LIMITS_SERVER], { probe: false, enable: false });
  });
  afterAll(() => t?.close());

  it('lists none, and says that none applies', async () => {
    const detail = await t.host.servers.detail('hungry');
    expect(detail.limits).toEqual([]);
    expect(detail.limitsNote).toBe('None: the sandbox cannot run on this machine, and the limits are set inside it.');
  });
});

/**
 * The server's page says which resource limits hold, as the platform's
 * backend states them for this machine's facts: on macOS the process count
 * is not set and memory not enforced; on Windows none is set; on Linux all
 * hold for a normal user, and the process count does not when Airlock runs
 * as root. The wording is the backend's; the page only lays the rows out.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../../../electron/core/sandbox/launcher';
import { hostFacts, platformBackend } from '../../../../electron/core/sandbox/platform';
import { createSandboxLauncher } from '../../../../electron/core/sandbox/sandbox-launcher';
import { resourceLimitViews } from '../../../../electron/core/views/resource-limits';

const rows = (platform: 'linux' | 'darwin' | 'win32', runningAsRoot: boolean) =>
  resourceLimitViews({ ...DEFAULT_LIMITS, unenforced: platformBackend(platform)!.unenforcedLimits({ runningAsRoot }) });
const holds = (platform: 'linux' | 'darwin' | 'win32', runningAsRoot = false) => Object.fromEntries(rows(platform, runningAsRoot).map((row) => [row.kind, row.holds]));

describe('which limits hold, per platform', () => {
  it.each([
    ['linux', { processes: true, memory: true, cpu: true, openFiles: true }],
    ['darwin', { processes: false, memory: false, cpu: true, openFiles: true }],
    ['win32', { processes: false, memory: false, cpu: false, openFiles: false }],
  ] as const)('%s, Airlock running as a normal user', (platform, expected) => {
    expect(holds(platform)).toEqual(expected);
  });

  it('Linux, Airlock running as root: the process count does not hold, and the page says why', () => {
    expect(holds('linux', true)).toEqual({ processes: false, memory: true, cpu: true, openFiles: true });
    expect(rows('linux', true).find((row) => row.kind === 'processes')?.note).toMatch(/^Does not hold here: Airlock runs as root/);
  });

  it('says why, in the backend’s words', () => {
    expect(rows('darwin', false).find((row) => row.kind === 'processes')?.note).toMatch(/counts every process of your user/);
  });

  it.each(['linux', 'darwin', 'win32'] as const)('the %s launcher carries its backend’s words for this machine’s facts', (platform) => {
    const launcher = createSandboxLauncher({ capabilityProbe: { platform, pathEnv: '' } });
    const said = platformBackend(platform)!.unenforcedLimits(hostFacts());
    expect(launcher.limits().unenforced ?? {}).toEqual(said);
  });
});

/**
 * The server's page says which resource limits hold, as the platform's
 * backend states them: on macOS the process count is not set and memory
 * not enforced; on Windows none is set; on Linux all hold (as a normal user).
 */
import { describe, expect, it } from 'vitest';
import { createSandboxLauncher } from '../../../../electron/core/sandbox/sandbox-launcher';
import { resourceLimitViews } from '../../../../electron/core/views/resource-limits';

const holds = (platform: NodeJS.Platform) =>
  Object.fromEntries(resourceLimitViews(createSandboxLauncher({ capabilityProbe: { platform, pathEnv: '' } }).limits(), false).map((row) => [row.kind, row.holds]));

describe('which limits hold, per platform', () => {
  it.each([
    ['linux', { processes: true, memory: true, cpu: true, openFiles: true }],
    ['darwin', { processes: false, memory: false, cpu: true, openFiles: true }],
    ['win32', { processes: false, memory: false, cpu: false, openFiles: false }],
  ] as const)('%s', (platform, expected) => {
    expect(holds(platform)).toEqual(expected);
  });

  it('says why, in the backend’s words', () => {
    const rows = resourceLimitViews(createSandboxLauncher({ capabilityProbe: { platform: 'darwin', pathEnv: '' } }).limits(), false);
    expect(rows.find((row) => row.kind === 'processes')?.note).toMatch(/counts every process of your user/);
  });
});

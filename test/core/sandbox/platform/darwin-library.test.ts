/**
 * sandbox-runtime's macOS module is loaded only where it is used (on macOS
 * before a host opens, or for a macOS plan shown elsewhere), so no other
 * system pays for it at start. Used before it was loaded, the macOS backend
 * fails closed: no profile, no launch — never a launch without one.
 */
import { describe, expect, it } from 'vitest';
import { loadSandboxLibrary } from '../../../../electron/core/sandbox';
import { SandboxInitError } from '../../../../electron/core/sandbox/errors';
import { darwinBackend, darwinPlan } from '../../../../electron/core/sandbox/platform/darwin';
import { macWorld, planInputFor } from './plan-inputs';

describe("sandbox-runtime's macOS module", () => {
  it('is not loaded for Linux; a macOS plan made without it is refused, and made once it is loaded', async () => {
    const input = planInputFor(darwinBackend, macWorld());
    await loadSandboxLibrary('linux');
    expect(() => darwinPlan(input)).toThrow(SandboxInitError);
    expect(() => darwinPlan(input)).toThrow(/macOS sandbox module was not loaded/);
    await loadSandboxLibrary('darwin');
    expect(darwinPlan(input).profileText).toMatch(/^\(version 1\)/);
  });
});

/**
 * `AIRLOCK_REQUIRE_SANDBOX=1`: on a machine that is meant to sandbox (the CI
 * runners for macOS and Windows), a test that cannot sandbox FAILS with the
 * capability check's own words, instead of skipping. Without it, such a
 * test is skipped and says why (a laptop without bubblewrap).
 */
import type { SandboxSupport } from '../../../shared/domain';

/** Whether this run demands the sandbox. */
export const SANDBOX_REQUIRED = process.env.AIRLOCK_REQUIRE_SANDBOX === '1';

/** What the tests that need the sandbox do here: run, skip (with why), or fail (with why). */
export function sandboxRequirement(support: SandboxSupport): { run: boolean; failure?: string; skipReason?: string } {
  if (support.supported) return { run: true };
  const why = `${support.summary}${support.fix ? ` Fix: ${support.fix}` : ''}`;
  return SANDBOX_REQUIRED ? { run: false, failure: `AIRLOCK_REQUIRE_SANDBOX=1, but the sandbox cannot run on ${support.platform}: ${why}` } : { run: false, skipReason: why };
}

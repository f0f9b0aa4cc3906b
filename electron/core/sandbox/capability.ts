/**
 * Whether this machine can sandbox servers — asked of the platform's
 * backend (platform/), so `airlock doctor`, the Settings screen and the
 * refusal to start a server all read one answer.
 */
import type { SandboxSupport } from '../../../shared/domain';
import { type CapabilityProbe } from './executables';
import { platformBackend, thisMachine } from './platform';

export { findExecutable, findSandboxTool, SYSTEM_TOOL_DIRS, type CapabilityProbe } from './executables';

/**
 * Whether this machine can sandbox servers, and if not, exactly what is
 * missing and the command that fixes it. The same truth feeds `airlock doctor`,
 * the Settings screen and the refusal to start a server.
 */
export function checkSandboxSupport(probe: CapabilityProbe = thisMachine(), check: { fresh?: boolean } = {}): SandboxSupport {
  const backend = platformBackend(probe.platform);
  if (!backend) {
    return {
      supported: false,
      platform: probe.platform,
      missing: [],
      summary: `Airlock cannot sandbox servers on ${probe.platform}; servers will not start unless you allow one to run unsandboxed.`,
    };
  }
  return backend.support(probe, check);
}

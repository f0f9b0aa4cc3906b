import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { SandboxSupport } from '../../../shared/domain';

/** What the sandbox needs on each platform it supports. */
const REQUIREMENTS: Record<string, { tools: string[]; fix?: (missing: string[]) => string }> = {
  linux: {
    // bubblewrap isolates the filesystem and network namespace; socat bridges
    // the granted network proxy into it; ripgrep finds files to protect;
    // prlimit (util-linux) sets each server's resource limits.
    tools: ['bwrap', 'socat', 'rg', 'prlimit'],
    fix: (missing) =>
      `sudo apt-get install -y ${missing.map((tool) => DEBIAN_PACKAGE[tool] ?? tool).join(' ')}`,
  },
  darwin: {
    tools: ['sandbox-exec', 'rg'],
    fix: (missing) => (missing.includes('rg') ? 'brew install ripgrep' : 'sandbox-exec ships with macOS; reinstall the OS tools'),
  },
};

const DEBIAN_PACKAGE: Record<string, string> = { bwrap: 'bubblewrap', socat: 'socat', rg: 'ripgrep', prlimit: 'util-linux' };

/** Tools that live in the system's own folders, where an app started from the desktop (with a short PATH) may not look. */
const SYSTEM_TOOLS = new Set(['prlimit']);
/** Where those are looked for after PATH. */
export const SYSTEM_TOOL_DIRS: readonly string[] = ['/usr/bin', '/bin'];

export interface CapabilityProbe {
  platform: NodeJS.Platform;
  /** The PATH to search (defaults to this process's). */
  pathEnv: string | undefined;
  /** Where system tools (prlimit) are also looked for (default `SYSTEM_TOOL_DIRS`; tests pass none). */
  systemDirs?: readonly string[];
}

/** Where the sandbox finds one of its tools: on PATH, and for a system tool also in the system's folders. The capability check and the launcher look the same way. */
export function findSandboxTool(name: string, probe: Pick<CapabilityProbe, 'pathEnv' | 'systemDirs'>): string | undefined {
  const extra = SYSTEM_TOOLS.has(name) ? (probe.systemDirs ?? SYSTEM_TOOL_DIRS) : [];
  return findExecutable(name, [probe.pathEnv ?? '', ...extra].filter(Boolean).join(delimiter));
}

/** Finds an executable on PATH, as `which` would; undefined when absent. */
export function findExecutable(name: string, pathEnv: string | undefined): string | undefined {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/**
 * Whether this machine can sandbox servers, and if not, exactly what is
 * missing and the command that fixes it. The same truth feeds `airlock doctor`,
 * the Settings screen and the refusal to start a server.
 */
export function checkSandboxSupport(
  probe: CapabilityProbe = { platform: process.platform, pathEnv: process.env.PATH },
): SandboxSupport {
  const requirement = REQUIREMENTS[probe.platform];
  if (!requirement) {
    return {
      supported: false,
      platform: probe.platform,
      missing: [],
      summary: `Airlock cannot sandbox servers on ${probe.platform} yet; servers will not start unless you allow one to run unsandboxed.`,
    };
  }
  const missing = requirement.tools.filter((tool) => !findSandboxTool(tool, probe));
  if (missing.length === 0) {
    return {
      supported: true,
      platform: probe.platform,
      missing: [],
      summary: `The sandbox is ready (${requirement.tools.join(', ')} found).`,
    };
  }
  return {
    supported: false,
    platform: probe.platform,
    missing,
    fix: requirement.fix?.(missing),
    summary: `The sandbox cannot run: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing. Servers will not start until ${missing.length === 1 ? 'it is' : 'they are'} installed.`,
  };
}

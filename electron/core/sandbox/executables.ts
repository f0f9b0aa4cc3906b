/**
 * Where the sandbox finds the programs it needs. The capability check and
 * the launchers look the same way, so what `doctor` reports is what runs.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where a capability check looks. */
export interface CapabilityProbe {
  platform: NodeJS.Platform;
  /** The PATH to search (defaults to this process's). */
  pathEnv: string | undefined;
  /** Where system tools (prlimit) are also looked for (default `SYSTEM_TOOL_DIRS`; tests pass none). */
  systemDirs?: readonly string[];
  /**
   * Windows: what srt-win's `status` reports. Absent: the packaged srt-win
   * is run. Tests pass a stand-in (srt-win runs only on Windows).
   */
  windowsSandboxStatus?(): WindowsSandboxState;
}

/** What srt-win's `status` reports that the capability check reads (sandbox-runtime's `WindowsSandboxStatus`, in part). */
export interface WindowsSandboxState {
  /** The sandbox's Windows user: made, its SID, and its password readable by this process. */
  user: { provisioned: boolean; sid?: string; credPresent: boolean };
  /** The firewall filters: `cannot-read` without elevation (the egress check before the first server then proves them). */
  wfp: { state: 'absent' | 'installed' | 'cannot-read' };
}

/** Tools that live in the system's own folders, where an app started from the desktop (with a short PATH) may not look. */
const SYSTEM_TOOLS = new Set(['prlimit']);
/** Where those are looked for after PATH. */
export const SYSTEM_TOOL_DIRS: readonly string[] = ['/usr/bin', '/bin'];

/** Where the sandbox finds one of its tools: on PATH, and for a system tool also in the system's folders. The capability check and the launcher look the same way. */
export function findSandboxTool(name: string, probe: Pick<CapabilityProbe, 'pathEnv' | 'systemDirs'>): string | undefined {
  const extra = SYSTEM_TOOLS.has(name) ? (probe.systemDirs ?? SYSTEM_TOOL_DIRS) : [];
  return findExecutable(name, [probe.pathEnv ?? '', ...extra].filter(Boolean).join(delimiter));
}

/**
 * Finds an executable on PATH, as `which` would; undefined when absent.
 * `extensions` are tried after the bare name (Windows' PATHEXT: `.EXE`, `.CMD`, …).
 */
export function findExecutable(name: string, pathEnv: string | undefined, extensions: readonly string[] = []): string | undefined {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const suffix of ['', ...extensions]) {
      const candidate = join(dir, `${name}${suffix}`);
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here; keep looking
      }
    }
  }
  return undefined;
}

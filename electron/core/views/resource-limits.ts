/**
 * The resource limits a sandboxed server runs under, in words a person can
 * read on the server's page and in `airlock show` — and honestly: a limit
 * the platform's sandbox does not set, or the OS does not enforce here,
 * says so with why. Which ones those are is the sandbox backend's to say
 * (`ResourceLimits.unenforced`: macOS's process count, every limit on
 * Windows, the process count on Linux when Airlock runs as root); this
 * file only words the rows.
 */
import type { ResourceLimitView } from '../../../shared/views';
import type { ResourceLimits } from '../sandbox/launcher';

/** What the page says about limits when no sandbox can run here: no limit applies. */
export const NO_SANDBOX_LIMITS_NOTE = 'None: the sandbox cannot run on this machine, and the limits are set inside it.';

const count = (value: number) => value.toLocaleString('en');

/** Bytes in the largest whole unit people use (8 GB, 512 MB). */
export function bytesInWords(bytes: number): string {
  for (const [unit, size] of [
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ] as const) {
    if (bytes >= size) {
      const value = bytes / size;
      return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
    }
  }
  return `${bytes} bytes`;
}

/** Seconds as hours, minutes or seconds (4 hours, 90 minutes, 1 second). */
export function secondsInWords(seconds: number): string {
  const plural = (n: number, word: string) => `${count(n)} ${word}${n === 1 ? '' : 's'}`;
  if (seconds >= 3600 && seconds % 3600 === 0) return plural(seconds / 3600, 'hour');
  if (seconds >= 60 && seconds % 60 === 0) return plural(seconds / 60, 'minute');
  return plural(seconds, 'second');
}

/**
 * The limits as rows, in the order a person thinks of them (processes,
 * memory, CPU time, open files); a limit the sandbox says does not hold
 * carries its why.
 */
export function resourceLimitViews(limits: ResourceLimits): ResourceLimitView[] {
  const holds = (kind: keyof NonNullable<ResourceLimits['unenforced']>) => {
    const why = limits.unenforced?.[kind];
    return why ? { holds: false, note: why } : { holds: true };
  };
  return [
    { kind: 'processes', label: 'Processes and threads', value: `${count(limits.processes)}, counting everything it starts`, ...holds('processes') },
    { kind: 'memory', label: 'Memory', value: `${bytesInWords(limits.memoryBytes)} of writable memory per process (more is refused)`, ...holds('memoryBytes') },
    { kind: 'cpu', label: 'CPU time', value: `${secondsInWords(limits.cpuSeconds)} per process, then that process is stopped`, ...holds('cpuSeconds') },
    { kind: 'openFiles', label: 'Open files', value: `${count(limits.openFiles)} per process`, ...holds('openFiles') },
  ];
}

/**
 * The limits a server's page shows: those its running sandbox has, or those
 * its next launch would get (`nextLaunch`, absent when no sandbox can run
 * here); none, with why, for a server running without a sandbox.
 */
export function serverLimitsView(
  status: { state: string; sandboxed?: boolean; limits?: ResourceLimits },
  nextLaunch: (() => ResourceLimits) | undefined,
): { limits: ResourceLimitView[]; limitsNote?: string } {
  const running = status.state === 'ready' || status.state === 'starting';
  if (running && status.sandboxed === false) return { limits: [], limitsNote: 'None: it runs without a sandbox, and the limits are set inside it.' };
  const limits = running && status.limits ? status.limits : nextLaunch?.();
  if (!limits) return { limits: [], limitsNote: NO_SANDBOX_LIMITS_NOTE };
  return { limits: resourceLimitViews(limits) };
}

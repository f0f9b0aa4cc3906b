/**
 * Runs commands in a private mount namespace where /etc/airlock is an empty
 * tmpfs of its own (root-owned, 0755): a test writes real policy files at the
 * real path, and no other process on the machine — another test run, the
 * app — ever sees them. Needs root and util-linux's unshare; the host keeps
 * only an empty /etc/airlock folder as the mount point.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';

/** True when this machine can run the real-path tests (root, unshare, setpriv). */
export function canUseRealPolicyPaths(): boolean {
  return process.getuid?.() === 0 && spawnSync('unshare', ['--version']).status === 0 && spawnSync('setpriv', ['--version']).status === 0;
}

/** Quotes one argument for sh. */
export function sh(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs `script` (sh) with /etc/airlock a fresh private tmpfs. Resolves to its
 * exit code and output.
 */
export function inPolicyNamespace(script: string, options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): { status: number | null; stdout: string; stderr: string } {
  if (!existsSync('/etc/airlock')) mkdirSync('/etc/airlock', { mode: 0o755 });
  const result = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs -o mode=0755 airlock-policy-test /etc/airlock && ${script}`], {
    encoding: 'utf8',
    cwd: options.cwd,
    env: options.env ?? process.env,
    timeout: options.timeoutMs ?? 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The same, without blocking this process: for a command that talks to
 * something the test itself serves (an OTLP receiver on loopback), or that
 * runs until stopped (its stdin closed, or killed). `done` settles with its
 * exit code and output.
 */
export function startInPolicyNamespace(script: string, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { child: ChildProcessWithoutNullStreams; done: Promise<{ status: number | null; stdout: string; stderr: string }> } {
  if (!existsSync('/etc/airlock')) mkdirSync('/etc/airlock', { mode: 0o755 });
  const child = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs -o mode=0755 airlock-policy-test /etc/airlock && ${script}`], {
    cwd: options.cwd,
    env: options.env ?? process.env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
  return { child, done };
}

/**
 * The Windows backend's effects, per launcher: before the first server,
 * the provisioning is checked (the sandbox user and its password exist)
 * and the firewall filter is proven to work (`verifyWindowsWfpEgress`: a
 * direct connection from the sandbox's user to a loopback port outside the
 * permitted range must be blocked) — either failing, no server starts.
 * Then each launch: its read and write places granted to the sandbox's
 * user (additive NTFS entries, held by this Airlock process), the credential
 * denies only for paths that exist (srt-win would otherwise create
 * placeholders for the missing ones in the person's home folder), and the
 * plan's argv. The grants are one set for every sandboxed server (one
 * Windows user): they are taken back when no sandboxed server runs.
 *
 * Not yet verified on a real Windows machine: written from sandbox-runtime
 * 0.0.78's own files; the CI workflow runs it on windows-latest.
 */
import { existsSync } from 'node:fs';
import type { getWindowsSandboxUserStatusAsync, grantWindowsAcl, revokeWindowsAcl, SrtWinSpawn, verifyWindowsWfpEgress } from '@anthropic-ai/sandbox-runtime/dist/sandbox/windows-sandbox-utils.js';
import { loadWindowsLibrary, windowsLibrary } from './win32-library';
import { SandboxInitError } from '../errors';
import type { BackendSession, LaunchRequest, PlanInput, PlatformPlan, SessionOptions, StartedLaunch } from './backend';

/** The srt-win operations the session runs (sandbox-runtime's own functions; a test passes stand-ins for the Windows-only processes). */
export interface SrtWinOperations {
  userStatus: typeof getWindowsSandboxUserStatusAsync;
  verifyEgress: typeof verifyWindowsWfpEgress;
  grant: typeof grantWindowsAcl;
  revoke: typeof revokeWindowsAcl;
  exists(path: string): boolean;
}

// Each loads the Windows module first (it is loaded when first needed, see win32-library.ts).
const SRT_WIN_OPERATIONS: SrtWinOperations = {
  userStatus: async (...args) => (await loadWindowsLibrary()).getWindowsSandboxUserStatusAsync(...args),
  verifyEgress: async (...args) => (await loadWindowsLibrary()).verifyWindowsWfpEgress(...args),
  // Synchronous: by then the checks above loaded it (used before, it throws: nothing starts).
  grant: (...args) => windowsLibrary().grantWindowsAcl(...args),
  revoke: (...args) => windowsLibrary().revokeWindowsAcl(...args),
  exists: existsSync,
};

/** What the session needs from the backend (kept apart so the two files do not import each other). */
export interface Win32Planner {
  plan(input: PlanInput): PlatformPlan;
  srtWin: SrtWinSpawn;
  portRange: readonly [number, number];
}

export class Win32Session implements BackendSession {
  private ready: Promise<string> | undefined;
  private readonly granted = { read: new Set<string>(), write: new Set<string>() };
  private live = 0;

  constructor(
    _options: SessionOptions,
    private readonly planner: Win32Planner,
    private readonly srt: SrtWinOperations = SRT_WIN_OPERATIONS,
  ) {}

  async launch(request: LaunchRequest): Promise<StartedLaunch> {
    const sid = await this.ensureReady();
    const { input } = request;
    const read = input.files.readAllowed.filter((path) => !this.granted.read.has(path));
    const write = input.files.writeAllowed.filter((path) => !this.granted.write.has(path));
    this.live += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.live -= 1;
      if (this.live === 0) this.revokeAll(sid);
    };
    try {
      if (read.length > 0 || write.length > 0) {
        try {
          this.srt.grant({ sandboxUserSid: sid, read, write, srtWin: this.planner.srtWin });
        } catch (error) {
          throw new SandboxInitError(`Windows could not give the sandbox's user access to ${input.serverName}'s folders: ${(error as Error).message}`, { cause: error });
        }
        for (const path of read) this.granted.read.add(path);
        for (const path of write) this.granted.write.add(path);
      }
      // srt-win makes a placeholder for a deny target that does not exist; only existing ones are denied.
      const files = { ...input.files, readDenied: input.files.readDenied.filter((path) => this.srt.exists(path)) };
      const plan = this.planner.plan({ ...input, files });
      return { command: plan.launch.command, args: plan.launch.args, env: plan.launch.env, dispose: release };
    } catch (error) {
      release();
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.live > 0 && this.ready) {
      const sid = await this.ready.catch(() => undefined); // A sandbox that never became ready has no grants to take back.
      if (sid) this.revokeAll(sid);
    }
    this.live = 0;
  }

  private revokeAll(sid: string): void {
    if (this.granted.read.size === 0 && this.granted.write.size === 0) return;
    try {
      this.srt.revoke({ sandboxUserSid: sid, srtWin: this.planner.srtWin });
    } catch {
      // Taking access back can only narrow it: if srt-win fails here the entries stay as they were
      // (readable to the sandbox's user) until the next revoke, and no server runs meanwhile.
    }
    this.granted.read.clear();
    this.granted.write.clear();
  }

  /** Once per launcher: provisioned, and the firewall filter proven to block. Fails closed with the fix. */
  private ensureReady(): Promise<string> {
    this.ready ??= (async () => {
      const srtWin = this.planner.srtWin;
      let user: Awaited<ReturnType<typeof getWindowsSandboxUserStatusAsync>>;
      try {
        user = await this.srt.userStatus({ srtWin });
      } catch (error) {
        throw new SandboxInitError(`srt-win could not report the Windows sandbox's state: ${(error as Error).message}`, { cause: error });
      }
      if (!user.provisioned || !user.credPresent || !user.sid) {
        throw new SandboxInitError(
          'The Windows sandbox is not installed (its user srt-sandbox or that user\'s password is missing). Run once, and accept the administrator prompt: npx --yes @anthropic-ai/sandbox-runtime@0.0.78 windows-install',
        );
      }
      try {
        await this.srt.verifyEgress({ proxyPortRange: this.planner.portRange, srtWin });
      } catch (error) {
        throw new SandboxInitError(
          `The Windows sandbox's firewall filter did not block a direct connection from the sandbox's user, so no server starts (${(error as Error).message}). Run the install again, and accept the administrator prompt: npx --yes @anthropic-ai/sandbox-runtime@0.0.78 windows-install`,
          { cause: error },
        );
      }
      return user.sid;
    })();
    this.ready.catch(() => {
      this.ready = undefined; // a fixed machine can try again
    });
    return this.ready;
  }
}

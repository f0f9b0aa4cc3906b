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
 * Windows user): while servers run, the sandbox's user holds exactly the
 * union of their grants — when one stops (or restarts with a grant
 * removed), what no running server needs is taken back.
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

/** The places one live launch was given: what the sandbox's user must keep while it runs. */
interface LaunchGrants {
  serverName: string;
  read: readonly string[];
  write: readonly string[];
  note(text: string): void;
}

export class Win32Session implements BackendSession {
  private ready: Promise<string> | undefined;
  /** What srt-win holds for this Airlock process now (one set for the one Windows user). */
  private readonly granted = { read: new Set<string>(), write: new Set<string>() };
  /** Every live launch's own places: the grants are always their union, never more. */
  private readonly launches = new Set<LaunchGrants>();

  constructor(
    _options: SessionOptions,
    private readonly planner: Win32Planner,
    private readonly srt: SrtWinOperations = SRT_WIN_OPERATIONS,
  ) {}

  async launch(request: LaunchRequest): Promise<StartedLaunch> {
    const sid = await this.ensureReady();
    const { input } = request;
    const own: LaunchGrants = { serverName: input.serverName, read: [...input.files.readAllowed], write: [...input.files.writeAllowed], note: request.note };
    this.launches.add(own);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.launches.delete(own);
      this.narrowTo(sid, own);
    };
    try {
      const read = own.read.filter((path) => !this.granted.read.has(path));
      const write = own.write.filter((path) => !this.granted.write.has(path));
      if (read.length > 0 || write.length > 0) {
        // Recorded first: a grant that fails part-way may hold some of them, and the release below takes them back.
        for (const path of read) this.granted.read.add(path);
        for (const path of write) this.granted.write.add(path);
        try {
          this.srt.grant({ sandboxUserSid: sid, read, write, srtWin: this.planner.srtWin });
        } catch (error) {
          throw new SandboxInitError(`Windows could not give the sandbox's user access to ${input.serverName}'s folders: ${(error as Error).message}`, { cause: error });
        }
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
    this.launches.clear();
    if (this.ready) {
      const sid = await this.ready.catch(() => undefined); // A sandbox that never became ready has no grants to take back.
      if (sid) this.narrowTo(sid);
    }
  }

  /**
   * SECURITY (invariant 5): after a launch ends, the sandbox's user keeps
   * exactly what the launches still running need. srt-win takes back only
   * all of this process's grants at once, so when something is no longer
   * needed — a server stopped, or restarted with a grant removed — every
   * grant is taken back and the live launches' union given again. Until it
   * is, those servers are refused their folders: narrower, never wider.
   */
  private narrowTo(sid: string, ended?: LaunchGrants): void {
    const keep = { read: new Set<string>(), write: new Set<string>() };
    for (const launch of this.launches) {
      for (const path of launch.read) keep.read.add(path);
      for (const path of launch.write) keep.write.add(path);
    }
    const surplus = [...this.granted.read].some((path) => !keep.read.has(path)) || [...this.granted.write].some((path) => !keep.write.has(path));
    if (!surplus) return;
    let outcome: ReturnType<SrtWinOperations['revoke']>;
    try {
      outcome = this.srt.revoke({ sandboxUserSid: sid, srtWin: this.planner.srtWin });
    } catch {
      outcome = undefined; // revokeWindowsAcl reports a failed srt-win by returning nothing; a throw means the same
    }
    if (outcome === undefined) {
      // Nothing was taken back: keep the record as it is, so the next server that stops tries again.
      const text = "Windows could not take back the sandbox's access to folders no running server needs (srt-win failed); Airlock tries again when the next server stops.";
      for (const launch of [...(ended ? [ended] : []), ...this.launches]) launch.note(text);
      return;
    }
    this.granted.read.clear();
    this.granted.write.clear();
    if (keep.read.size === 0 && keep.write.size === 0) return;
    // Recorded first, as in launch(): whatever a failed grant left is taken back when it is no longer needed.
    for (const path of keep.read) this.granted.read.add(path);
    for (const path of keep.write) this.granted.write.add(path);
    try {
      this.srt.grant({ sandboxUserSid: sid, read: [...keep.read], write: [...keep.write], srtWin: this.planner.srtWin });
    } catch (error) {
      // Fail closed: the live servers lose their folders rather than keep a grant that was taken back.
      for (const launch of this.launches) {
        launch.note(`Windows could not give the sandbox's user ${launch.serverName}'s folders again after another server stopped (${(error as Error).message}); it is refused them until it restarts.`);
      }
    }
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

/**
 * The macOS backend's per-launcher state: the launches' plans, and one
 * `log stream` (sandbox-runtime's `startMacOSSandboxLogMonitor`) that reads
 * back what Seatbelt refused. Every rule of a launch's profile carries its
 * tag (`CMD64_<base64 of "airlock <launch>">_END_<session>`), so a refusal
 * is attributed to the launch, and through it to the server: into its log
 * and, through `onViolation`, the audit log. Linux and Windows have no such
 * stream; nothing is invented for them.
 *
 * A refusal line comes from the system log, which a sandboxed process can
 * also write to: a server could make up refusals, at worst for itself or
 * another running server, never change what is enforced. Lines are data:
 * capped in length and in number per launch.
 */
import { accessSync, constants } from 'node:fs';
import { macosLibrary } from './darwin-library';
import type { BackendSession, LaunchRequest, PlanInput, PlatformPlan, SessionOptions, StartedLaunch } from './backend';

/** Refusals written into one launch's log before the rest are only counted. */
export const MAX_VIOLATION_NOTES = 100;
const MAX_LINE = 500;

interface Watched {
  serverName: string;
  note(text: string): void;
  shown: number;
  hidden: number;
}

/** Starts `log stream` once, with sandbox-runtime's monitor (injectable for tests). */
export type StartMonitor = (callback: (violation: { line: string; command?: string }) => void) => () => void;

const defaultMonitor: StartMonitor = (callback) => {
  accessSync('/usr/bin/log', constants.X_OK);
  return macosLibrary().startMacOSSandboxLogMonitor(callback, undefined, (key) => key);
};

export class DarwinSession implements BackendSession {
  private readonly watched = new Map<string, Watched>();
  private stopMonitor: (() => void) | undefined;

  constructor(
    private readonly options: SessionOptions,
    private readonly planner: { plan(input: PlanInput): PlatformPlan; commandId(input: PlanInput): string },
    private readonly startMonitor: StartMonitor = defaultMonitor,
  ) {}

  async launch(request: LaunchRequest): Promise<StartedLaunch> {
    const plan = this.planner.plan(request.input);
    const id = this.planner.commandId(request.input);
    this.watched.set(id, { serverName: request.input.serverName, note: request.note, shown: 0, hidden: 0 });
    this.ensureMonitor(request.note);
    return {
      command: plan.launch.command,
      args: plan.launch.args,
      env: plan.launch.env,
      dispose: () => {
        const entry = this.watched.get(id);
        if (entry && entry.hidden > 0) entry.note(`…and ${entry.hidden} more refusals by the sandbox, not shown.`);
        this.watched.delete(id);
      },
    };
  }

  /** One refusal Seatbelt logged: to the launch that made it (unknown tags are ignored). */
  report(violation: { line: string; command?: string }): void {
    const entry = violation.command ? this.watched.get(violation.command) : undefined;
    if (!entry) return;
    const line = violation.line.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, MAX_LINE);
    if (entry.shown < MAX_VIOLATION_NOTES) {
      entry.shown += 1;
      entry.note(`The sandbox refused: ${line}`);
    } else {
      entry.hidden += 1;
    }
    this.options.onViolation?.(entry.serverName, line);
  }

  async close(): Promise<void> {
    this.stopMonitor?.();
    this.stopMonitor = undefined;
    this.watched.clear();
  }

  private ensureMonitor(note: (text: string) => void): void {
    if (this.stopMonitor) return;
    try {
      this.stopMonitor = this.startMonitor((violation) => this.report(violation));
    } catch (error) {
      note(`The sandbox runs, but its refusals cannot be shown here: ${(error as Error).message}`);
    }
  }
}

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { LaunchPlan } from '../sandbox/launcher';
import { BoundedLineSplitter } from './line-splitter';
import { LogRing } from './log-ring';
import { decodeLine, FaultMeter, type StdoutFaultKind } from './message-decoder';
import {
  descendantsOf,
  waitForProcessesExit,
  signalIfSame,
  signalProcessGroup,
  type ProcessIdentity,
  trackProcessGroup,
  untrackProcessGroup,
  waitForProcessGroupExit,
} from './process-group';

/** Caps on what a server can make Airlock hold or tolerate on its stdio. */
export interface StdioLimits {
  /** Longest stdout line (one JSON-RPC message) in bytes. */
  maxLineBytes: number;
  /** Deepest nesting of arrays/objects accepted in a message. */
  maxDepth: number;
  /** More than this many bad stdout lines within `faultWindowMs` marks the server faulty. */
  maxFaults: number;
  faultWindowMs: number;
  /** Most bytes queued for a server that does not read its stdin. */
  maxPendingStdinBytes: number;
}

/** Defaults: 8 MiB lines, depth 100, 50 faults a minute, 16 MiB unread input. */
export const DEFAULT_STDIO_LIMITS: StdioLimits = {
  maxLineBytes: 8 * 1024 * 1024,
  maxDepth: 100,
  maxFaults: 50,
  faultWindowMs: 60_000,
  maxPendingStdinBytes: 16 * 1024 * 1024,
};

/** How long each step of the stop sequence waits before the next, harsher one. */
export interface ShutdownTimings {
  /** After closing stdin, before SIGTERM. */
  graceMs: number;
  /** After SIGTERM to the group, before SIGKILL. */
  termMs: number;
  /** After SIGKILL, how long to wait for the group to vanish. */
  killMs: number;
}

/** Defaults per the MCP stdio shutdown sequence: 2 s, 2 s, 2 s. */
export const DEFAULT_SHUTDOWN_TIMINGS: ShutdownTimings = { graceMs: 2000, termMs: 2000, killMs: 2000 };

/** How the server's own process ended (or, for a remote server, its session). */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** A remote server's session ended: why, in words (there is no exit code). */
  reason?: string;
}

/** Counters about what came over a server's stdio. */
export interface StdioStats {
  messagesIn: number;
  faults: Record<StdoutFaultKind, number>;
  /** Messages that carried `__proto__` keys (removed before use). */
  sanitizedMessages: number;
  /** The most bytes ever held for one unfinished stdout line. */
  highWaterLineBytes: number;
  /** Sends refused because the server was not reading its input. */
  refusedSends: number;
}

/** Raised (through `onerror`) when a server passed the fault limit; the transport then stops it. */
export class ServerFaultyError extends Error {
  constructor(readonly stats: StdioStats) {
    super(`the server sent too much that is not MCP on stdout (${Object.values(stats.faults).reduce((a, b) => a + b, 0)} bad lines) and was stopped`);
    this.name = 'ServerFaultyError';
  }
}

/** Options for {@link ProcessStdioTransport}. */
export interface ProcessStdioTransportOptions {
  limits?: Partial<StdioLimits>;
  shutdown?: Partial<ShutdownTimings>;
  /** Where stderr and Airlock's notes about this server go. */
  log?: LogRing;
  now?: () => number;
}

const FAULT_NOTES_PER_KIND = 10;

/**
 * The MCP stdio transport Airlock uses instead of the SDK's: it runs a
 * {@link LaunchPlan} exactly (its argv with no shell, its env and nothing
 * merged in) as the leader of a new process group, bounds everything the
 * server can make it hold, and stops the server with the MCP sequence
 * applied to the whole group.
 */
export class ProcessStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** Called by the SDK with the negotiated protocol version. */
  setProtocolVersion?: (version: string) => void;

  readonly log: LogRing;
  private readonly limits: StdioLimits;
  private readonly timings: ShutdownTimings;
  private readonly splitter: BoundedLineSplitter;
  private readonly meter: FaultMeter;
  private child?: ChildProcessWithoutNullStreams;
  private closing?: Promise<void>;
  private closed = false;
  private faultyError?: ServerFaultyError;
  private exitInfo?: ProcessExit;
  private resolveExit!: (exit: ProcessExit) => void;
  private readonly exitPromise: Promise<ProcessExit>;
  private readonly counters: StdioStats = {
    messagesIn: 0,
    faults: { 'oversize-line': 0, 'invalid-utf8': 0, 'too-deep': 0, 'not-json': 0, 'not-jsonrpc': 0 },
    sanitizedMessages: 0,
    highWaterLineBytes: 0,
    refusedSends: 0,
  };

  constructor(
    private readonly plan: Pick<LaunchPlan, 'command' | 'args' | 'env' | 'cwd' | 'endTree'>,
    options: ProcessStdioTransportOptions = {},
  ) {
    this.limits = { ...DEFAULT_STDIO_LIMITS, ...options.limits };
    this.timings = { ...DEFAULT_SHUTDOWN_TIMINGS, ...options.shutdown };
    this.log = options.log ?? new LogRing({}, options.now);
    this.meter = new FaultMeter(this.limits.maxFaults, this.limits.faultWindowMs, options.now);
    this.splitter = new BoundedLineSplitter(
      this.limits.maxLineBytes,
      (line) => this.handleLine(line),
      (dropped) => this.fault('oversize-line', `a stdout line passed ${this.limits.maxLineBytes} bytes with no newline (${dropped} bytes dropped)`),
    );
    this.exitPromise = new Promise((resolve) => (this.resolveExit = resolve));
  }

  /** The server's pid, which is also its process group id; undefined before start. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Resolves when the server's own process has exited. */
  get exited(): Promise<ProcessExit> {
    return this.exitPromise;
  }

  /** Set when the server passed the fault limit and was stopped for it. */
  get faulty(): ServerFaultyError | undefined {
    return this.faultyError;
  }

  /** A copy of the counters. */
  stats(): StdioStats {
    return { ...this.counters, faults: { ...this.counters.faults }, highWaterLineBytes: this.splitter.highWaterBytes };
  }

  /** Spawns the server; resolves once the process exists, rejects if it could not be spawned. */
  start(): Promise<void> {
    if (this.child) throw new Error('transport already started');
    // Closed before it started: never spawn a process nobody would stop.
    if (this.closing || this.closed) return Promise.reject(new Error('transport closed'));
    return new Promise((resolve, reject) => {
      // SECURITY: invariant 5 — env is exactly the plan's (no inherited or default variables);
      // no shell; the server leads a new process group so the whole group can be stopped.
      let child: ChildProcessWithoutNullStreams;
      try {
        child = spawn(this.plan.command, this.plan.args, {
          env: this.plan.env,
          cwd: this.plan.cwd,
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: true,
          shell: false,
          windowsHide: true,
        });
      } catch (error) {
        // e.g. a NUL byte in an argument or variable
        this.resolveExit({ code: null, signal: null });
        this.finish();
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      this.child = child;
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        if (child.pid !== undefined) trackProcessGroup(child.pid, this.plan.endTree?.bind(this.plan));
        resolve();
      });
      child.on('error', (error) => {
        if (!spawned) {
          this.resolveExit({ code: null, signal: null });
          this.finish();
          reject(error);
        } else this.onerror?.(error);
      });
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        this.resolveExit(this.exitInfo);
        // Let stdout drain what the server wrote before it exited, but do not wait on a
        // grandchild that still holds the pipe open.
        const done = () => this.finish();
        if (child.stdout.readableEnded) done();
        else {
          const timer = setTimeout(done, 200);
          child.stdout.once('end', () => {
            clearTimeout(timer);
            done();
          });
        }
      });
      child.stdout.on('data', (chunk: Buffer) => {
        if (this.closed || this.faultyError) return;
        this.splitter.push(chunk);
      });
      child.stdout.on('error', (error) => this.onerror?.(error));
      child.stdin.on('error', () => {
        // EPIPE after the server exited: the exit itself is what matters.
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => this.log.write('stderr', chunk));
      child.stderr.on('error', () => {});
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || this.closing || this.exitInfo || !stdin.writable) {
      return Promise.reject(new Error('Not connected'));
    }
    if (stdin.writableLength > this.limits.maxPendingStdinBytes) {
      this.counters.refusedSends++;
      return Promise.reject(new Error('the server is not reading its input'));
    }
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else {
        const settle = () => {
          stdin.off('drain', settle);
          stdin.off('close', settle);
          resolve();
        };
        stdin.once('drain', settle);
        stdin.once('close', settle);
      }
    });
  }

  /**
   * Stops the server: close stdin, wait; SIGTERM to the group, wait; SIGKILL
   * to the group, wait. Resolves when no live process of the group remains
   * (or the last wait ran out). Safe to call more than once.
   * SECURITY: no orphans — the whole group is signalled, so grandchildren
   * that stayed in it go too, even after the server itself has exited.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) {
      this.finish();
      return;
    }
    const pgid = child.pid;
    const exitedWithin = (ms: number) =>
      Promise.race([this.exitPromise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    if (this.plan.endTree) {
      await this.endTreeShutdown(child, pgid, exitedWithin);
      return;
    }
    // Descendants that left the group (setsid) are found by parent links while those
    // links exist, i.e. before the server exits; they get the same signals as the group.
    const escaped = new Map<number, ProcessIdentity>();
    const noteEscapees = () => {
      if (this.exitInfo) return;
      for (const p of descendantsOf(pgid)) escaped.set(p.pid, p);
    };
    noteEscapees();
    if (!this.exitInfo) {
      try {
        child.stdin.end();
      } catch {
        // already closed
      }
      await exitedWithin(this.timings.graceMs);
    }
    noteEscapees();
    // The leader may be gone while children it forked linger in the group.
    if (!(await waitForProcessGroupExit(pgid, 0)) || signalIfSame(escaped.values(), 'SIGTERM') > 0) {
      signalProcessGroup(pgid, 'SIGTERM');
      if (!(await waitForProcessGroupExit(pgid, this.timings.termMs))) {
        signalProcessGroup(pgid, 'SIGKILL');
        this.log.push('airlock', 'the server did not stop on SIGTERM; its process group was killed');
        await waitForProcessGroupExit(pgid, this.timings.killMs);
      }
      if (signalIfSame(escaped.values(), 'SIGKILL') > 0) {
        this.log.push('airlock', 'killed processes the server had moved out of its process group');
        // SECURITY: no orphans — "stopped" means gone, not merely signalled.
        await waitForProcessesExit(escaped.values(), this.timings.killMs);
      }
    }
    await exitedWithin(this.timings.killMs);
    untrackProcessGroup(pgid);
    this.finish();
  }

  /**
   * The stop where the OS has no process groups (Windows): close stdin,
   * wait; then, if it has not exited, the plan's `endTree` (the platform's
   * way to end it and everything it started: there, srt-win's job object
   * ends every process in the sandbox) and a kill of the process itself;
   * wait. SECURITY: no orphans — the tree is ended while the pid is still
   * this server's (before its exit), never after.
   */
  private async endTreeShutdown(child: ChildProcessWithoutNullStreams, pid: number, exitedWithin: (ms: number) => Promise<boolean>): Promise<void> {
    if (!this.exitInfo) {
      try {
        child.stdin.end();
      } catch {
        // already closed
      }
      await exitedWithin(this.timings.graceMs);
    }
    if (!this.exitInfo) {
      try {
        this.plan.endTree!(pid);
      } catch (error) {
        this.log.push('airlock', `ending the server's processes failed: ${(error as Error).message}`);
      }
      child.kill('SIGKILL');
      this.log.push('airlock', 'the server did not stop when its input closed; it and everything it started were ended');
      await exitedWithin(this.timings.termMs + this.timings.killMs);
    }
    untrackProcessGroup(pid);
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.splitter.clear();
    this.onclose?.();
  }

  private handleLine(line: Buffer): void {
    const decoded = decodeLine(line, this.limits.maxDepth);
    if (decoded.ok) {
      this.counters.messagesIn++;
      if (decoded.sanitized) {
        this.counters.sanitizedMessages++;
        if (this.counters.sanitizedMessages <= FAULT_NOTES_PER_KIND) this.log.push('airlock', 'removed `__proto__` keys from a message');
      }
      const message = decoded.message as { method?: unknown; id?: unknown };
      if (message.method === undefined && message.id !== undefined) {
        // A response goes one microtask later: the SDK handles notifications a microtask after
        // they arrive and responses at once, so the last progress notification a server sends
        // right before its result (same chunk) would otherwise find its handler already gone.
        queueMicrotask(() => this.onmessage?.(decoded.message));
      } else this.onmessage?.(decoded.message);
      return;
    }
    if (decoded.fault === null) return;
    const notes: Record<StdoutFaultKind, string> = {
      'oversize-line': 'an oversized stdout line was dropped',
      'invalid-utf8': 'a stdout line that is not valid UTF-8 was dropped',
      'too-deep': `a stdout line nested deeper than ${this.limits.maxDepth} was dropped`,
      'not-json': 'a stdout line that is not JSON was dropped',
      'not-jsonrpc': 'a stdout line that is not a JSON-RPC message was dropped',
    };
    this.fault(decoded.fault, `${notes[decoded.fault]} (${line.length} bytes)`);
  }

  private fault(kind: StdoutFaultKind, note: string): void {
    if (this.faultyError || this.closed) return;
    this.counters.faults[kind]++;
    if (this.counters.faults[kind] <= FAULT_NOTES_PER_KIND) this.log.push('airlock', note);
    if (this.meter.record()) {
      this.faultyError = new ServerFaultyError(this.stats());
      this.log.push('airlock', this.faultyError.message);
      this.onerror?.(this.faultyError);
      void this.close();
    }
  }
}

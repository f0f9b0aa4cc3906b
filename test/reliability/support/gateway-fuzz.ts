/**
 * Gateway fuzz (issue 16.2): raw JSON-RPC, right, nearly right and wrong, for
 * every kind of message an app can send (support/jsonrpc-arbitraries.ts), to
 * a real `airlock gateway` process (the built CLI) over stdio or over HTTP,
 * with a real sandboxed server behind it (test/fixtures/servers/fuzz-target.mjs,
 * installed trusted: its read-only `echo` runs without asking, its
 * destructive `write_note` needs a person, and there is none to ask). Checked
 * from outside, for every run:
 *
 * - every well-formed request with a valid id is answered exactly once, and
 *   nothing is answered twice;
 * - nothing the contract forbids is accepted: a request that is not valid
 *   JSON-RPC never gets a result; `write_note` never reaches the server (its
 *   record file), and no tools/call but `echo` succeeds; every `echo` that
 *   reached the server is one the gateway answered with success;
 * - nothing crashes: the process stays up, no answer is an internal error
 *   (-32603, or HTTP 500);
 * - afterwards it still answers a real request (ping, and an `echo` that
 *   reaches the server), and when stopped the audit log verifies
 *   (`airlock audit verify`).
 *
 * Used by `npm test` (a few runs per kind) and `npm run soak` (1,000).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { AirlockHost } from '../../../electron/core/host';
import { fileAuditKey } from '../../../electron/core/audit/audit-key';
import { addLocalServer } from '../../support/add-server';
import { CLI, openSession, REPO, startGateway, type GatewayProcess } from './gateway-process';
import { DESTRUCTIVE_TOOL, ECHO_TOOL, MESSAGE_KINDS, messagesOf, render, type MessageKind, type MessageSpec } from './jsonrpc-arbitraries';

const SERVER = join(REPO, 'test/fixtures/servers/fuzz-target.mjs');
const INTERNAL_ERROR = -32603;

export type GatewayTransport = 'stdio' | 'http';

export interface GatewayFuzzReport {
  transport: GatewayTransport;
  kinds: number;
  /** Messages sent (a batch counts once). */
  payloads: number;
  perKind: Partial<Record<MessageKind, number>>;
  /** Well-formed requests with a valid id: each must be answered exactly once. */
  wellFormed: number;
  answered: number;
  unanswered: number;
  answeredTwice: number;
  /** Results to malformed requests, write_note reaching the server, a tools/call other than echo succeeding, echo acting unanswered. */
  acceptedForbidden: number;
  /** Answers that are internal errors (-32603) or HTTP 500. */
  internalErrors: number;
  /** The gateway process died during the fuzz. */
  crashes: number;
  /** What reached the server (its own record), by method and tool. */
  reachedServer: Record<string, number>;
  echoSucceeded: number;
  /** Valid calls of the destructive tool sent (none may reach the server: nobody is there to confirm). */
  destructiveAsked: number;
  /** HTTP only: responses by status code. */
  statuses: Record<string, number>;
  answersAfter: boolean;
  auditVerifies: boolean;
  problems: string[];
}

export interface GatewayFuzzOptions {
  seed?: number;
  kinds?: readonly MessageKind[];
}

/** Fuzzes one gateway process over `transport`, `runsPerKind` messages of each kind. */
export async function fuzzGateway(root: string, transport: GatewayTransport, runsPerKind: number, options: GatewayFuzzOptions = {}): Promise<GatewayFuzzReport> {
  const dataDir = join(root, 'data');
  const home = join(root, 'home');
  // The server's own data folder (its bookkeeping): `echo` says it only reads, and Airlock holds a tool to that in the folders a person grants.
  const records = join(dataDir, 'server-data', 'fuzz');
  const keyPath = join(root, 'keys', 'audit-head.key');
  for (const dir of [home]) mkdirSync(dir, { recursive: true });
  const env = { HOME: home, AIRLOCK_AUDIT_KEY_FILE: keyPath };

  // Installed through the real install flow, trusted; the server may write only its own data folder.
  const setup = new AirlockHost({ dataDir, homeDir: home, version: 'test', hooks: { emit: () => {} }, audit: { key: fileAuditKey(keyPath) } });
  await addLocalServer(setup, 'fuzz', [process.execPath, SERVER], {
    profile: { filesystem: { read: [], write: [], persistentData: true } },
    trusted: true,
  });
  if (setup.servers.serverDataDir('fuzz') !== records) throw new Error(`the fuzz expects the server's data folder at ${records}`);
  await setup.dispose();

  const kinds = options.kinds ?? MESSAGE_KINDS;
  const report: GatewayFuzzReport = {
    transport,
    kinds: kinds.length,
    payloads: 0,
    perKind: {},
    wellFormed: 0,
    answered: 0,
    unanswered: 0,
    answeredTwice: 0,
    acceptedForbidden: 0,
    internalErrors: 0,
    crashes: 0,
    reachedServer: {},
    echoSucceeded: 0,
    destructiveAsked: 0,
    statuses: {},
    answersAfter: false,
    auditVerifies: false,
    problems: [],
  };
  const problem = (text: string) => {
    if (report.problems.length < 20) report.problems.push(text.slice(0, 400));
  };

  // Every spec, kind by kind, from a fixed seed (so a failure can be replayed).
  const specs: MessageSpec[] = [];
  kinds.forEach((kind, index) => {
    specs.push(...fc.sample(messagesOf(kind), { numRuns: runsPerKind, seed: (options.seed ?? 16_02) + index }));
  });

  /** What each answer owes, by request id. */
  const owed = new Map<string, { kind: MessageKind; tool?: string; wellFormed: boolean; mustAnswer: boolean; answers: number }>();
  const idKey = (id: unknown) => `${typeof id}:${String(id)}`;
  /** Checks one answer the gateway sent (a response: it has an id and a result or an error). */
  const onAnswer = (message: Record<string, unknown>) => {
    if (!('result' in message) && !('error' in message)) return;
    const error = message.error as { code?: unknown; message?: unknown } | undefined;
    if (error && error.code === INTERNAL_ERROR) {
      report.internalErrors += 1;
      problem(`internal error: ${JSON.stringify(message).slice(0, 300)}`);
    }
    const entry = owed.get(idKey(message.id));
    if (!entry) {
      // Errors without an id (a line that was not JSON-RPC) are allowed; a result never is.
      if ('result' in message && !String(message.id).startsWith('probe-')) {
        report.acceptedForbidden += 1;
        problem(`a result for a message that was no request: ${JSON.stringify(message).slice(0, 300)}`);
      }
      return;
    }
    entry.answers += 1;
    if (entry.answers === 2) {
      report.answeredTwice += 1;
      problem(`answered twice: ${String(message.id)}`);
    }
    if ('result' in message && !entry.wellFormed) {
      report.acceptedForbidden += 1;
      problem(`a result for a malformed ${entry.kind}: ${JSON.stringify(message).slice(0, 300)}`);
    }
    if (entry.kind === 'tools/call' && 'result' in message) {
      const result = message.result as { isError?: unknown } | null;
      const succeeded = result !== null && typeof result === 'object' && result.isError !== true;
      if (succeeded && entry.tool === ECHO_TOOL) report.echoSucceeded += 1;
      else if (succeeded) {
        report.acceptedForbidden += 1;
        problem(`tools/call of ${String(entry.tool)} succeeded: ${JSON.stringify(message).slice(0, 300)}`);
      }
    }
  };

  const session = transport === 'stdio' ? await stdioSession(dataDir, env, onAnswer) : await httpSession(dataDir, env, onAnswer, report.statuses, problem);
  try {
    let syncs = 0;
    let unsynced = 0;
    for (const spec of specs) {
      const rendered = render(spec);
      report.payloads += 1;
      report.perKind[spec.kind] = (report.perKind[spec.kind] ?? 0) + 1;
      const expected: string[] = [];
      for (const request of rendered.requests) {
        // JSON-RPC batches were removed from MCP (2025-06-18): the requests inside one need no answer, but may get one.
        const mustAnswer = request.wellFormed && spec.kind !== 'batch';
        owed.set(idKey(request.id), { kind: request.kind, ...(request.tool !== undefined ? { tool: request.tool } : {}), wellFormed: request.wellFormed, mustAnswer, answers: 0 });
        if (mustAnswer) expected.push(idKey(request.id));
        if (request.wellFormed && request.tool === DESTRUCTIVE_TOOL) report.destructiveAsked += 1;
      }
      report.wellFormed += expected.length;
      await session.send(rendered.line, rendered.requests.map((request) => request.id));
      if (expected.length > 0) {
        const missing = await session.waitFor(() => expected.every((key) => (owed.get(key)?.answers ?? 0) > 0), 30_000);
        if (missing) problem(`no answer within 30 s to ${spec.kind}: ${rendered.line.slice(0, 300)}`);
      } else if (++unsynced >= 10) {
        // Lines that owe no answer: a ping now and then shows they were read and the gateway is still there.
        unsynced = 0;
        if (!(await session.ping(`probe-sync-${++syncs}`))) problem(`no answer to a ping after ${spec.kind}: ${rendered.line.slice(0, 300)}`);
      }
      if (!session.alive()) {
        report.crashes += 1;
        problem(`the gateway died after ${spec.kind}: ${rendered.line.slice(0, 300)}; stderr: ${session.stderr().slice(-1500)}`);
        break;
      }
    }
    // Still there: a ping, and a real call that reaches the server.
    const echoedBefore = countRecords(records)['tools/call echo'] ?? 0;
    const pinged = await session.ping('probe-after');
    const echo = await session.call('probe-echo', { name: ECHO_TOOL, arguments: { message: 'still here' } });
    const echoedAfter = countRecords(records)['tools/call echo'] ?? 0;
    report.answersAfter = pinged && echo === 'still here' && echoedAfter === echoedBefore + 1;
    if (!report.answersAfter) problem(`afterwards: ping ${String(pinged)}, echo ${String(echo)}; stderr: ${session.stderr().slice(-1500)}`);
    if (!session.alive()) report.crashes += 1;
  } finally {
    await session.stop();
  }

  for (const [key, entry] of owed) {
    if (entry.mustAnswer && entry.answers === 0) {
      report.unanswered += 1;
      problem(`never answered: ${entry.kind} ${key}`);
    }
    if (entry.answers > 0) report.answered += 1;
  }
  report.reachedServer = countRecords(records);
  const wrote = report.reachedServer['tools/call write_note'] ?? 0;
  if (wrote > 0) {
    report.acceptedForbidden += wrote;
    problem(`${DESTRUCTIVE_TOOL} reached the server ${wrote} times with nobody to confirm it`);
  }
  // The probe's echo is the one success not counted above.
  const echoes = report.reachedServer['tools/call echo'] ?? 0;
  if (echoes !== report.echoSucceeded + 1) {
    report.acceptedForbidden += Math.abs(echoes - report.echoSucceeded - 1);
    problem(`echo reached the server ${echoes} times, answered with success ${report.echoSucceeded + 1} times`);
  }
  const verify = await runCli(dataDir, env, ['audit', 'verify', '--json']);
  report.auditVerifies = verify.code === 0;
  if (!report.auditVerifies) problem(`audit verify: ${verify.stdout.slice(-500)} ${verify.stderr.slice(-500)}`);
  return report;
}

/** One gateway process and how to talk to it. */
interface Session {
  /** Sends one line; `ids` are the requests in it. */
  send(line: string, ids: Array<string | number>): Promise<void>;
  /** Waits until `done()`; true when it timed out. */
  waitFor(done: () => boolean, timeoutMs: number): Promise<boolean>;
  ping(id: string): Promise<boolean>;
  /** A tools/call; the text it answered, or undefined. */
  call(id: string, params: unknown): Promise<string | undefined>;
  alive(): boolean;
  stderr(): string;
  stop(): Promise<void>;
}

async function stdioSession(dataDir: string, env: NodeJS.ProcessEnv, onAnswer: (message: Record<string, unknown>) => void): Promise<Session> {
  const gateway = startGateway(dataDir, env, ['--client', 'gateway fuzz']);
  await openSession(gateway);
  const waiters = new Set<() => void>();
  const answers = new Map<string, Record<string, unknown>>();
  const handle = (message: Record<string, unknown>) => {
    if (typeof message.id === 'string' && message.id.startsWith('probe-')) answers.set(message.id, message);
    onAnswer(message);
  };
  let seen = 0;
  const drain = () => {
    for (; seen < gateway.lines.length; seen += 1) {
      const line = gateway.lines[seen]!;
      if ('message' in line) handle(line.message);
      // Anything but JSON on stdout breaks the app's protocol: counted as accepted where it is forbidden.
      else handle({ id: 'not-json', result: line.raw.slice(0, 200) });
      // The lines are kept only as long as needed: a long fuzz writes many.
      gateway.lines[seen] = { raw: '' };
    }
    for (const waiter of waiters) waiter();
  };
  seen = gateway.lines.length;
  gateway.child.stdout.on('data', () => queueMicrotask(drain));
  void gateway.exited.then(() => {
    for (const waiter of waiters) waiter();
  });
  const waitFor = (done: () => boolean, timeoutMs: number) =>
    new Promise<boolean>((resolveWait) => {
      const check = () => {
        if (done() || !gateway.alive()) finish(!done());
      };
      const timer = setTimeout(() => finish(true), timeoutMs);
      const finish = (timedOut: boolean) => {
        clearTimeout(timer);
        waiters.delete(check);
        resolveWait(timedOut);
      };
      waiters.add(check);
      check();
    });
  const request = async (id: string, method: string, params?: unknown) => {
    const wait = waitFor(() => answers.has(id), 30_000);
    gateway.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) }));
    await wait;
    return answers.get(id);
  };
  return {
    async send(line) {
      await writeLine(gateway, line);
    },
    waitFor,
    async ping(id) {
      return (await request(id, 'ping'))?.result !== undefined;
    },
    async call(id, params) {
      return textOf(await request(id, 'tools/call', params));
    },
    alive: () => gateway.alive(),
    stderr: () => gateway.stderr(),
    async stop() {
      // As an app stops it: stdin closed.
      gateway.child.stdin.end();
      await Promise.race([gateway.exited, sleep(30_000)]);
      if (gateway.alive()) gateway.child.kill('SIGKILL');
      await gateway.exited;
    },
  };
}

/** Writes a line and waits until the pipe takes it (a 2 MB line must not pile up behind the next). */
function writeLine(gateway: GatewayProcess, line: string): Promise<void> {
  return new Promise((resolveWrite) => {
    if (gateway.child.stdin.destroyed) return resolveWrite();
    gateway.child.stdin.write(`${line}\n`, () => resolveWrite());
  });
}

async function httpSession(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  onAnswer: (message: Record<string, unknown>) => void,
  statuses: Record<string, number>,
  problem: (text: string) => void,
): Promise<Session> {
  const child = spawn(process.execPath, [CLI, '--data-dir', dataDir, '--json', 'gateway', '--http', '0', '--client', 'gateway fuzz'], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  }) as unknown as ChildProcessWithoutNullStreams;
  let stdout = '';
  let stderr = '';
  let done = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 64 * 1024) stderr += chunk;
  });
  const exited = new Promise<void>((resolveExit) =>
    child.once('exit', () => {
      done = true;
      resolveExit();
    }),
  );
  const started = performance.now();
  while (!stdout.includes('\n')) {
    if (done || performance.now() - started > 60_000) throw new Error(`the HTTP gateway did not start; stderr: ${stderr.slice(-2000)}`);
    await sleep(20);
  }
  const { url, tokenFile } = JSON.parse(stdout.split('\n')[0]!) as { url: string; tokenFile: string };
  const token = readFileSync(tokenFile, 'utf8').trim();
  let sessionId = '';

  /** POSTs one body; every JSON-RPC message in the answer (JSON or an SSE stream) goes to `onAnswer`. */
  const post = async (body: string): Promise<{ status: number; messages: Array<Record<string, unknown>> }> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    if (!sessionId) sessionId = response.headers.get('mcp-session-id') ?? '';
    const messages: Array<Record<string, unknown>> = [];
    const take = (json: string) => {
      try {
        const parsed = JSON.parse(json) as unknown;
        for (const message of Array.isArray(parsed) ? parsed : [parsed]) messages.push(message as Record<string, unknown>);
      } catch {
        problem(`not JSON in an HTTP answer (${response.status}): ${json.slice(0, 200)}`);
      }
    };
    if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      for (const event of text.split(/\r?\n\r?\n/)) {
        const data = event
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data) take(data);
      }
    } else if (text) take(text);
    return { status: response.status, messages };
  };
  const answers = new Map<string, Record<string, unknown>>();
  const deliver = (messages: Array<Record<string, unknown>>) => {
    for (const message of messages) {
      if (typeof message.id === 'string' && message.id.startsWith('probe-')) answers.set(message.id, message);
      onAnswer(message);
    }
  };
  const opened = await post(JSON.stringify({ jsonrpc: '2.0', id: 'probe-init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'gateway fuzz', version: '1.0.0' } } }));
  if (opened.status !== 200 || !sessionId) throw new Error(`initialize over HTTP answered ${opened.status}; stderr: ${stderr.slice(-2000)}`);
  await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const request = async (id: string, method: string, params?: unknown) => {
    try {
      deliver((await post(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) }))).messages);
    } catch (error) {
      problem(`${method} ${id} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return answers.get(id);
  };
  return {
    async send(line, ids) {
      try {
        const { status, messages } = await post(line);
        if (status >= 500) problem(`HTTP ${status} for ${line.slice(0, 300)}`);
        if (status === 500) onAnswer({ id: 'http-500', error: { code: INTERNAL_ERROR, message: 'HTTP 500' } });
        deliver(messages);
        // Refused as a whole (413 too large, 400 initialize in a session…): one JSON-RPC error without an
        // id answers every request the body held.
        const refusal = messages.find((message) => message.id === null && 'error' in message);
        if (status >= 400 && refusal) for (const id of ids) onAnswer({ id, error: refusal.error });
      } catch (error) {
        problem(`POST failed: ${error instanceof Error ? error.message : String(error)} for ${line.slice(0, 300)}`);
      }
    },
    // Every answer arrived with its POST.
    async waitFor(isDone) {
      return !isDone();
    },
    async ping(id) {
      return (await request(id, 'ping'))?.result !== undefined;
    },
    async call(id, params) {
      return textOf(await request(id, 'tools/call', params));
    },
    alive: () => !done,
    stderr: () => stderr,
    async stop() {
      // As a person stops it: SIGTERM closes the listener and the servers.
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(30_000)]);
      if (!done) child.kill('SIGKILL');
      await exited;
    },
  };
}

function textOf(answer: Record<string, unknown> | undefined): string | undefined {
  const result = answer?.result as { content?: Array<{ type?: string; text?: string }>; isError?: boolean } | undefined;
  if (!result || result.isError) return undefined;
  return result.content?.find((item) => item.type === 'text')?.text;
}

/** What the fuzz target recorded: how many requests of each method (and tool or uri scheme) reached it. */
function countRecords(records: string): Record<string, number> {
  const file = join(records, 'requests');
  const counts: Record<string, number> = {};
  if (!existsSync(file)) return counts;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const key = line.startsWith('tools/call ') || line.startsWith('completion/complete') ? line : line.split(' ')[0]!;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function runCli(dataDir: string, env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [CLI, '--data-dir', dataDir, ...args], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) => resolveRun({ code, stdout, stderr }));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * IPC fuzz (issue 16.4): random and malformed payloads for every channel of
 * the contract, through the Electron wrapper (`registerIpcHandlers`: the
 * sender check, then the real `dispatchIpc`) into a real AirlockHost's
 * handlers, with a real sandboxed server behind them. Each run is one of:
 *
 * - a request the contract's schema accepts (generated from it), so the real
 *   handler runs: it must answer with a value the contract allows or a plain
 *   error — never `internal` (a handler that threw something unexpected) or
 *   `invalid-response`;
 * - a request broken in one known way (not an object, an extra or
 *   `__proto__` key, a missing key, a value of the wrong kind or too long,
 *   too large, too deep, not plain data): refused as `invalid-request`,
 *   and no handler runs;
 * - anything a renderer's structured clone can carry: no crash, and a
 *   handler runs only for what the schema accepts;
 * - any of those from a forged sender (a subframe, another origin, a
 *   destroyed frame): `forbidden-sender`, and no handler runs.
 *
 * Afterwards the host still answers: `app.info`, and a real call that
 * reaches the server. Used by `npm test` (fewer runs) and `npm run soak`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { channelNames, channels, IpcErrorCodeSchema, type ChannelName, type IpcHandlers } from '../../../shared/ipc';
import { AirlockHost } from '../../../electron/core/host';
import { registerIpcHandlers } from '../../../electron/main/ipc';
import { APP_ORIGIN } from '../../../electron/main/window';
import { addLocalServer } from '../../support/add-server';
import { anyPayload, brokenFor, isStrictObject, validFor, type BreakKind } from './contract-arbitraries';
import { REPO } from './gateway-process';

/** The server behind the host: a name the generators will not hit by chance. */
export const FUZZ_SERVER = 'fuzz-target-echo-server';

export interface IpcFuzzReport {
  channels: number;
  payloads: number;
  /** Runs whose request the schema accepted, so the real handler ran. */
  handled: number;
  /** Broken requests, by how they were broken; every one must be refused. */
  broken: Partial<Record<BreakKind, number>>;
  forgedSenders: number;
  /** Broken requests or forged senders that reached a handler, or were not refused as they should be. */
  acceptedForbidden: number;
  /** Answers `internal` or `invalid-response`, or not an IpcResult at all. */
  crashes: number;
  /** Uncaught exceptions and unhandled rejections in this process during the fuzz. */
  uncaught: number;
  /** Object.prototype polluted afterwards. */
  polluted: boolean;
  /** The host still answered app.info and a real call afterwards. */
  answersAfter: boolean;
  /** The first few problems, for the failure message. */
  problems: string[];
}

export async function fuzzIpc(runsPerChannel: number, options: { seed?: number; only?: ChannelName[] } = {}): Promise<IpcFuzzReport> {
  const root = mkdtempSync(join(tmpdir(), 'airlock-ipc-fuzz-'));
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  // Nothing the fuzz does may leave the test's folders or reach a network: npm answers from its (empty) cache only.
  const savedEnv = { ...process.env };
  Object.assign(process.env, { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), npm_config_offline: 'true', npm_config_cache: join(root, 'npm-cache'), npm_config_registry: 'http://127.0.0.1:9/' });
  const opened: string[] = [];
  const host = new AirlockHost({
    dataDir: join(root, 'data'),
    homeDir: home,
    version: 'fuzz',
    hooks: { emit: () => {}, canAsk: () => false, openExternal: async (url) => void opened.push(url) },
    audit: { key: null },
    confirmationTimeoutMs: 2_000,
    supervisor: { defaultCall: { timeoutMs: 5_000, maxTotalMs: 10_000 } },
  });
  const report: IpcFuzzReport = { channels: 0, payloads: 0, handled: 0, broken: {}, forgedSenders: 0, acceptedForbidden: 0, crashes: 0, uncaught: 0, polluted: false, answersAfter: false, problems: [] };
  const problem = (text: string) => {
    if (report.problems.length < 20) report.problems.push(text.slice(0, 500));
  };
  const onUncaught = (error: unknown) => {
    report.uncaught += 1;
    problem(`uncaught: ${error instanceof Error ? error.stack : String(error)}`);
  };
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  try {
    await addLocalServer(host, FUZZ_SERVER, [process.execPath, join(REPO, 'test/fixtures/servers/echo.mjs')], { trusted: true });

    // The real handlers, each noting that it ran and with what.
    let ran: { channel: string; request: unknown } | undefined;
    const real = host.ipcHandlers();
    const spied = Object.fromEntries(
      channelNames.map((channel) => [
        channel,
        (request: unknown) => {
          ran = { channel, request };
          return (real[channel] as (r: unknown) => unknown)(request);
        },
      ]),
    ) as unknown as IpcHandlers;
    const listeners = new Map<string, (event: unknown, request: unknown) => Promise<unknown>>();
    registerIpcHandlers({ handle: (channel: string, listener: never) => void listeners.set(channel, listener) } as never, spied, {
      appOrigin: APP_ORIGIN,
      logError: (channel, error) => problem(`${channel} logged: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    });
    const mainFrame = { url: `${APP_ORIGIN}/index.html` };
    const appEvent = { senderFrame: mainFrame, sender: { mainFrame } };
    const forgedEvents = fc.constantFrom(
      { senderFrame: { url: `${APP_ORIGIN}/index.html` }, sender: { mainFrame } },
      { senderFrame: { url: 'https://evil.example/' }, sender: { mainFrame: { url: 'https://evil.example/' } } },
      { senderFrame: null, sender: { mainFrame } },
      { senderFrame: { url: 'airlock://app.evil/index.html' }, sender: { mainFrame: { url: 'airlock://app.evil/index.html' } } },
    );

    for (const channel of options.only ?? channelNames) {
      const schema = channels[channel].request;
      if (!isStrictObject(schema)) problem(`${channel}: its request is not a strict object, so unknown keys would pass`);
      const listener = listeners.get(channel)!;
      report.channels += 1;
      const input = fc.oneof(
        { weight: 4, arbitrary: validFor(schema).map((payload) => ({ how: 'valid' as const, payload })) },
        { weight: 4, arbitrary: brokenFor(schema).map((broken) => ({ how: 'broken' as const, ...broken })) },
        { weight: 2, arbitrary: anyPayload().map((payload) => ({ how: 'any' as const, payload })) },
      );
      // One run in ten comes from a forged sender.
      const run = fc.tuple(input, fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: forgedEvents }));
      await fc.assert(
        fc.asyncProperty(run, async ([generated, forged]) => {
          report.payloads += 1;
          ran = undefined;
          let result: unknown;
          try {
            result = await listener(forged ?? appEvent, generated.payload);
          } catch (error) {
            report.crashes += 1;
            problem(`${channel}: the wrapper threw: ${error instanceof Error ? error.stack : String(error)}`);
            return;
          }
          const label = `${channel} ${generated.how}${'kind' in generated ? `/${generated.kind}${generated.key ? `(${generated.key})` : ''}` : ''}${forged ? ' forged' : ''}`;
          if (!isIpcResult(result)) {
            report.crashes += 1;
            problem(`${label}: not an IpcResult: ${safeText(result)}`);
            return;
          }
          if (!result.ok && (result.code === 'internal' || result.code === 'invalid-response')) {
            report.crashes += 1;
            problem(`${label}: ${result.code}: ${result.message} — payload ${safeText(generated.payload)}`);
          }
          if (ran) report.handled += 1;
          if (forged) {
            report.forgedSenders += 1;
            if (ran || result.ok || result.code !== 'forbidden-sender') {
              report.acceptedForbidden += 1;
              problem(`${label}: a forged sender was not refused (${safeText(result)})`);
            }
            return;
          }
          if (generated.how === 'broken') {
            report.broken[generated.kind] = (report.broken[generated.kind] ?? 0) + 1;
            if (ran || result.ok || result.code !== 'invalid-request') {
              report.acceptedForbidden += 1;
              problem(`${label}: accepted what the contract forbids (${safeText(result)}) — payload ${safeText(generated.payload)}`);
            }
            return;
          }
          // Whatever ran, the contract allowed: the handler saw exactly what the schema accepts.
          if (ran && !schema.safeParse(generated.payload).success) {
            report.acceptedForbidden += 1;
            problem(`${label}: a handler ran for a request the schema refuses — payload ${safeText(generated.payload)}`);
          }
        }),
        { numRuns: runsPerChannel, ...(options.seed !== undefined ? { seed: options.seed } : {}), endOnFailure: true },
      );
    }

    report.polluted = Object.keys(Object.prototype).length > 0 || ({} as Record<string, unknown>).polluted !== undefined;
    // Still answering, a real request and a real call.
    const info = (await listeners.get('app.info')!(appEvent, {})) as { ok: boolean };
    const call = (await listeners.get('tools.call')!(appEvent, { server: FUZZ_SERVER, tool: 'echo', arguments: { message: 'still here' } })) as {
      ok: boolean;
      value?: { status?: string; content?: unknown };
    };
    report.answersAfter = info.ok && call.ok && JSON.stringify(call.value).includes('still here');
    if (!report.answersAfter) problem(`after the fuzz: app.info ${safeText(info)}, tools.call ${safeText(call)}`);
    return report;
  } finally {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    await host.dispose().catch(() => undefined);
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    Object.assign(process.env, savedEnv);
    rmSync(root, { recursive: true, force: true });
  }
}

function isIpcResult(value: unknown): value is { ok: true; value: unknown } | { ok: false; code: string; message: string } {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  if (r.ok === true) return 'value' in r;
  return r.ok === false && IpcErrorCodeSchema.safeParse(r.code).success && typeof r.message === 'string' && r.message.length > 0;
}

function safeText(value: unknown): string {
  try {
    return (JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'string' && v.length > 80 ? `${v.slice(0, 80)}…(${v.length})` : v)) ?? String(value)).slice(0, 300);
  } catch {
    return '[not JSON]';
  }
}

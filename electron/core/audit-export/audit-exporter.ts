/**
 * Streams the audit log to an OpenTelemetry collector over OTLP/HTTP, with
 * the OpenTelemetry JS SDK: each entry becomes one log record of the SDK's
 * `LoggerProvider` (resource: `service.name`, `service.version`,
 * `service.instance.id`, `host.name`), sent by the SDK's own OTLP exporter
 * (`@opentelemetry/exporter-logs-otlp-proto` for http/protobuf,
 * `-otlp-http` for http/json).
 *
 * Delivery is at least once:
 * - entries are read back from the log after they are written (audit-tail.ts),
 *   a batch at a time — the log is the queue, so the backlog costs no memory
 *   and survives restarts and outages;
 * - the last sequence number the collector acknowledged is remembered per
 *   endpoint in the data folder (`audit-export.json`), written after each
 *   acknowledged batch; a batch is sent again until it is acknowledged
 *   (a crash in between sends it twice, never drops it);
 * - a collector that is down is retried with exponential backoff (1 s,
 *   doubling, at most a minute, with jitter) and caught up from the log
 *   when it answers.
 *
 * Never on the call path: nothing a call does waits for it. It looks for new
 * entries on a timer (one `stat` when nothing changed) and when nudged.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { LoggerProvider, LogRecordExporter, LogRecordProcessor, ReadableLogRecord, SdkLogRecord } from '@opentelemetry/sdk-logs';
import { AuditTail, type TailEntry } from './audit-tail';
import { toLogRecord } from './otlp-records';
import type { ExportTarget, NoTarget } from './otlp-target';

/** What the exporter reports (Settings, `airlock settings`, `doctor`). */
export interface ExportStatus {
  /** `paused`: the organisation's policy cannot be read, so nothing is sent anywhere (see NoTarget.paused). */
  state: 'off' | 'idle' | 'sending' | 'retrying' | 'paused';
  target?: ExportTarget;
  acknowledged: number;
  head: number;
  backlog: number;
  /** When the oldest entry waiting was written (known once a batch from it was read). */
  oldestWaitingAt?: string;
  /** Set once the backlog passes `backlogWarning` (entries or age). */
  warning?: string;
  lastError?: string;
  lastSuccessAt?: number;
  nextRetryAt?: number;
}

export interface AuditExporterOptions {
  /** The audit log's folder. */
  auditDir: string;
  /** Where acknowledged positions and the installation id are kept. */
  stateFile: string;
  /** The target in force now (read at every batch; a change takes effect at the next one). */
  target(): ExportTarget | NoTarget | undefined;
  /** `service.version`. */
  version: string;
  /** Entries per request (default 128: its serialisation is one stretch of the event loop, ≈ 4 ms). */
  batchSize?: number;
  /** How often to look for new entries when nothing nudged (ms; default 1000). */
  pollMs?: number;
  /** After a nudge (an append), how long to gather entries before sending them in one request (ms; default 200). */
  batchDelayMs?: number;
  /** First retry delay and the longest (ms; default 1000 and 60000). */
  backoff?: { initialMs: number; maxMs: number };
  /** Each request's time limit (ms; default 10000). */
  timeoutMs?: number;
  /**
   * When the backlog is worth a warning: this many entries waiting, or the
   * oldest waiting this long (default 10,000 entries or an hour). The log
   * itself is the queue, so nothing is dropped past it: the warning is the bound people see.
   */
  backlogWarning?: { entries: number; ageMs: number };
  now?: () => number;
  log?(message: string, error?: unknown): void;
  /** Told after each change of the status (Settings refreshes). */
  onDidChange?(status: ExportStatus): void;
}

interface SavedState {
  installationId: string;
  /** The last acknowledged sequence number, by logs URL. */
  acknowledged: Record<string, number>;
}

/** Collects the records the SDK's logger emits, so this exporter decides when a batch goes and learns whether it was acknowledged. */
class BatchCollector implements LogRecordProcessor {
  records: SdkLogRecord[] = [];
  onEmit(record: SdkLogRecord): void {
    this.records.push(record);
  }
  take(): ReadableLogRecord[] {
    const out = this.records;
    this.records = [];
    return out;
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** One target's SDK pipeline: the logger provider (with its resource), the collector of its records, the OTLP exporter. */
interface SdkPipeline {
  key: string;
  provider: LoggerProvider;
  collector: BatchCollector;
  exporter: LogRecordExporter;
}

export class AuditExporter {
  readonly #tail: AuditTail;
  readonly #options: AuditExporterOptions;
  readonly #now: () => number;
  #saved: SavedState;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerDue = 0;
  #running = false;
  #stopped = true;
  #inFlight: Promise<void> | undefined;
  #status: ExportStatus = { state: 'off', acknowledged: 0, head: 0, backlog: 0 };
  #attempt = 0;
  #retryAt = 0;
  #sdk: SdkPipeline | undefined;
  #headStamp = '';
  #head = 0;
  /** The first entry of the last batch read (the oldest waiting while it is not acknowledged), for the backlog's age. */
  #oldest: { url: string; seq: number; time: string } | undefined;

  constructor(options: AuditExporterOptions) {
    this.#options = options;
    this.#tail = new AuditTail(options.auditDir);
    this.#now = options.now ?? (() => Date.now());
    this.#saved = readState(options.stateFile);
    if (!fileExists(options.stateFile)) this.#save();
  }

  /** This installation's id (`service.instance.id`), kept with the positions. */
  get installationId(): string {
    return this.#saved.installationId;
  }

  /** Starts looking for entries to send. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Looks for new entries now (after an append, or a change of the target). */
  nudge(): void {
    if (this.#stopped || this.#running) return;
    if (this.#status.state === 'retrying' && this.#now() < this.#retryAt) return;
    // A batch is already due: this entry goes with it (one request for a burst of calls, not one per call).
    if (this.#timer && this.#timerDue <= this.#now() + (this.#options.batchDelayMs ?? 200)) return;
    this.#schedule(this.#options.batchDelayMs ?? 200);
  }

  /** Stops: waits (at most `graceMs`) for a batch in flight, then shuts the SDK down. Nothing unacknowledged is forgotten. */
  async stop(graceMs = 2_000): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#inFlight) await Promise.race([this.#inFlight, new Promise((resolve) => setTimeout(resolve, graceMs).unref?.())]);
    await this.#closeSdk();
  }

  status(): ExportStatus {
    const target = this.#options.target();
    const head = this.#currentHead();
    if (!target || 'problem' in target) {
      return { state: target && 'paused' in target ? 'paused' : 'off', acknowledged: 0, head, backlog: 0, ...(target && 'problem' in target ? { lastError: target.problem } : {}) };
    }
    const acknowledged = this.#saved.acknowledged[target.url] ?? 0;
    const backlog = Math.max(0, head - acknowledged);
    const oldest = this.#oldest;
    const oldestWaitingAt = backlog > 0 && oldest?.url === target.url && oldest.seq === acknowledged + 1 ? oldest.time : undefined;
    const state = this.#status.state === 'off' || this.#status.state === 'paused' ? 'idle' : this.#status.state;
    const warning = backlogWarning(backlog, oldestWaitingAt, this.#now(), this.#options.backlogWarning ?? DEFAULT_BACKLOG_WARNING, this.#status.lastError);
    return { ...this.#status, target, acknowledged, head, backlog, state, ...(oldestWaitingAt ? { oldestWaitingAt } : {}), ...(warning ? { warning } : {}) };
  }

  /**
   * Sends the entries from `from` to `to` (sequence numbers, inclusive) now,
   * by hand, to the target in force; the streamed position does not move.
   * Rejects when the collector does not acknowledge a batch.
   */
  async sendRange(from: number, to: number): Promise<{ sent: number; first?: number; last?: number; url: string }> {
    const target = this.#options.target();
    if (!target) throw new Error('No OpenTelemetry collector is configured (Settings › Audit log streaming, `airlock settings audit-export URL`, or OTEL_EXPORTER_OTLP_ENDPOINT).');
    if ('problem' in target) throw new Error(target.problem);
    const tail = new AuditTail(this.#options.auditDir);
    let after = from - 1;
    let sent = 0;
    let first: number | undefined;
    let last: number | undefined;
    // Its own SDK pipeline: the stream's is not held up, nor holds this up.
    const sdk = await this.#buildSdk(target);
    try {
      for (;;) {
        const entries = tail.read(after, this.#options.batchSize ?? DEFAULT_BATCH, to);
        if (entries.length === 0) break;
        await this.#send(target, entries, sdk);
        sent += entries.length;
        first ??= entries[0]!.seq;
        last = entries.at(-1)!.seq;
        after = last;
      }
    } finally {
      await Promise.allSettled([sdk.exporter.shutdown(), sdk.provider.shutdown()]);
    }
    return { sent, ...(first !== undefined ? { first } : {}), ...(last !== undefined ? { last } : {}), url: target.url };
  }

  // ── The loop ──────────────────────────────────────────────────────────

  #schedule(ms: number): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerDue = this.#now() + ms;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#inFlight = this.#tick().finally(() => (this.#inFlight = undefined));
    }, ms);
    this.#timer.unref?.();
  }

  async #tick(): Promise<void> {
    if (this.#running || this.#stopped) return;
    this.#running = true;
    let next = this.#options.pollMs ?? 1_000;
    try {
      const target = this.#options.target();
      if (!target || 'problem' in target) {
        this.#setStatus({ state: target && 'paused' in target ? 'paused' : 'off' });
        await this.#closeSdk();
        return;
      }
      const acknowledged = this.#saved.acknowledged[target.url] ?? 0;
      const entries = this.#tail.read(acknowledged, this.#options.batchSize ?? DEFAULT_BATCH);
      this.#oldest = entries[0] ? { url: target.url, seq: entries[0].seq, time: entries[0].time } : undefined;
      if (entries.length === 0) {
        this.#setStatus({ state: 'idle' });
        return;
      }
      // A retry stays "retrying" (with its error) until the collector takes the batch.
      if (this.#status.state !== 'retrying') this.#setStatus({ state: 'sending' });
      try {
        await this.#send(target, entries);
      } catch (error) {
        // The collector did not take it: the same entries go again after a while.
        this.#attempt += 1;
        const { initialMs, maxMs } = this.#options.backoff ?? { initialMs: 1_000, maxMs: 60_000 };
        const delay = Math.min(maxMs, initialMs * 2 ** Math.min(this.#attempt - 1, 20)) * (0.8 + Math.random() * 0.4);
        next = Math.round(delay);
        this.#retryAt = this.#now() + next;
        this.#setStatus({ state: 'retrying', lastError: messageOf(error), nextRetryAt: this.#retryAt });
        return;
      }
      this.#attempt = 0;
      this.#saved.acknowledged[target.url] = entries.at(-1)!.seq;
      this.#save();
      this.#setStatus({ state: entries.length >= (this.#options.batchSize ?? DEFAULT_BATCH) ? 'sending' : 'idle', lastSuccessAt: this.#now() });
      // More may wait: go on at once.
      if (entries.length >= (this.#options.batchSize ?? DEFAULT_BATCH)) next = 0;
    } catch (error) {
      this.#options.log?.('the audit export failed', error);
    } finally {
      this.#running = false;
      this.#schedule(next);
    }
  }

  /** One batch through the SDK: emitted as log records, exported, acknowledged or not. */
  async #send(target: ExportTarget, entries: readonly TailEntry[], own?: SdkPipeline): Promise<void> {
    const sdk = own ?? (await this.#sdkFor(target));
    const logger = sdk.provider.getLogger('airlock.audit', this.#options.version);
    for (let k = 0; k < entries.length; k++) {
      // A few records per turn of the event loop: a call that arrives meanwhile waits for a slice, never for the batch.
      if (k > 0 && k % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      const entry = entries[k]!;
      const record = toLogRecord(entry);
      logger.emit({ timestamp: record.timestamp, observedTimestamp: new Date(this.#now()), severityNumber: record.severityNumber, severityText: record.severityText, body: record.body, eventName: record.eventName, attributes: record.attributes });
    }
    const batch = sdk.collector.take();
    await new Promise<void>((resolve, reject) => {
      sdk.exporter.export(batch, (result) => {
        // ExportResultCode.SUCCESS is 0.
        if (result.code === 0) resolve();
        else reject(result.error ?? new Error('the collector did not accept the records'));
      });
    });
  }

  async #sdkFor(target: ExportTarget): Promise<SdkPipeline> {
    const key = JSON.stringify(target);
    if (this.#sdk?.key === key) return this.#sdk;
    void this.#closeSdk();
    const sdk = await this.#buildSdk(target);
    this.#sdk = sdk;
    return sdk;
  }

  /** A pipeline to `target`. The OpenTelemetry libraries are loaded here, when something is first sent: most runs of Airlock never stream. */
  async #buildSdk(target: ExportTarget): Promise<SdkPipeline> {
    const [{ LoggerProvider }, { resourceFromAttributes }, { OTLPLogExporter: OtlpJsonExporter }, { OTLPLogExporter: OtlpProtoExporter }] = await Promise.all([
      import('@opentelemetry/sdk-logs'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/exporter-logs-otlp-http'),
      import('@opentelemetry/exporter-logs-otlp-proto'),
    ]);
    const key = JSON.stringify(target);
    const collector = new BatchCollector();
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({
        'service.name': 'airlock',
        'service.version': this.#options.version,
        'service.instance.id': this.#saved.installationId,
        'host.name': hostname(),
      }),
      processors: [collector],
    });
    const config = { url: target.url, headers: { ...target.headers }, timeoutMillis: this.#options.timeoutMs ?? 10_000, concurrencyLimit: 1 };
    // SECURITY: the exporter reads OTEL_EXPORTER_OTLP_* itself and merges them in; the target was already
    // chosen (the organisation's policy first), so it is built without them: nothing the environment holds
    // adds a header to, or changes the certificates of, a collector the policy or a person named.
    const exporter = withoutOtlpEnvironment(() => (target.protocol === 'http/json' ? new OtlpJsonExporter(config) : new OtlpProtoExporter(config)));
    return { key, provider, collector, exporter };
  }

  async #closeSdk(): Promise<void> {
    const sdk = this.#sdk;
    this.#sdk = undefined;
    if (!sdk) return;
    await Promise.allSettled([sdk.exporter.shutdown(), sdk.provider.shutdown()]);
  }

  #setStatus(change: Partial<ExportStatus>): void {
    const before = this.#status.state;
    this.#status = { ...this.#status, ...change };
    if (change.state === 'idle' || change.state === 'sending') {
      delete this.#status.nextRetryAt;
      if (change.state === 'idle') delete this.#status.lastError;
    }
    if (before !== this.#status.state || change.lastError !== undefined) this.#options.onDidChange?.(this.status());
  }

  #currentHead(): number {
    // The active file's identity and size: unchanged, the head is too.
    let stamp = '';
    try {
      const stats = statSync(join(this.#options.auditDir, 'audit.jsonl'));
      stamp = `${stats.ino}:${stats.size}`;
    } catch {
      stamp = 'none';
    }
    if (stamp !== this.#headStamp) {
      this.#head = this.#tail.head();
      this.#headStamp = stamp;
    }
    return this.#head;
  }

  #save(): void {
    const tmp = `${this.#options.stateFile}.tmp-${process.pid}`;
    try {
      writeFileSync(tmp, `${JSON.stringify(this.#saved)}\n`, { mode: 0o600 });
      renameSync(tmp, this.#options.stateFile);
    } catch (error) {
      // Not saved: after a restart the same entries are sent again (at least once, never lost).
      this.#options.log?.('could not save the audit export position', error);
    }
  }
}

/** Entries per request. */
const DEFAULT_BATCH = 128;

/** A backlog worth a warning: ten thousand entries (minutes of heavy use), or the oldest waiting an hour. */
const DEFAULT_BACKLOG_WARNING = { entries: 10_000, ageMs: 60 * 60 * 1000 };

/** The warning once the backlog passes its threshold (entries or the oldest entry's age), or undefined. */
export function backlogWarning(backlog: number, oldestWaitingAt: string | undefined, now: number, threshold: { entries: number; ageMs: number }, lastError?: string): string | undefined {
  if (backlog === 0) return undefined;
  const age = oldestWaitingAt ? now - Date.parse(oldestWaitingAt) : 0;
  if (backlog < threshold.entries && !(age >= threshold.ageMs)) return undefined;
  return (
    `Streaming the activity log is falling behind: the collector has not taken ${backlog} ${backlog === 1 ? 'entry' : 'entries'}${oldestWaitingAt ? ` (the oldest written ${oldestWaitingAt})` : ''}. ` +
    `They wait in the activity log on disk, so nothing is lost however long it takes, and are sent when the collector takes them${lastError ? ` (last error: ${lastError})` : ''}.`
  );
}

/** Records emitted per turn of the event loop (≈ 40 µs each with the SDK; see `#send`). */
const YIELD_EVERY = 32;

function readState(path: string): SavedState {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<SavedState>;
    const acknowledged: Record<string, number> = {};
    for (const [url, seq] of Object.entries(parsed.acknowledged ?? {})) if (Number.isSafeInteger(seq) && seq >= 0) acknowledged[url] = seq;
    if (typeof parsed.installationId === 'string' && /^[0-9a-f-]{36}$/.test(parsed.installationId)) return { installationId: parsed.installationId, acknowledged };
  } catch {
    // No file yet (or unreadable): a new installation id, nothing acknowledged (everything is sent).
  }
  return { installationId: randomUUID(), acknowledged: {} };
}

function fileExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

const OTLP_ENV = /^OTEL_EXPORTER_OTLP_/;

/** Runs `build` with the OTEL_EXPORTER_OTLP_* variables out of process.env (restored at once; synchronous). */
export function withoutOtlpEnvironment<T>(build: () => T): T {
  const saved: Array<[string, string | undefined]> = [];
  for (const name of Object.keys(process.env)) {
    if (OTLP_ENV.test(name)) {
      saved.push([name, process.env[name]]);
      delete process.env[name];
    }
  }
  try {
    return build();
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

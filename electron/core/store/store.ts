import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { nameKeyedRecord, PolicyModeSchema, RuleSchema, ServerNameSchema, ServerRecordSchema } from '../../../shared/domain';
import type { AppNotice } from '../../../shared/ipc';
import { AirlockError, messageOf } from '../errors';
import { deepFreeze } from '../deep-freeze';
import { JsonFileStore } from './json-file';

/** Everything Airlock persists except secrets and the audit log. */
export const StoreDataSchema = z.object({
  servers: nameKeyedRecord(ServerNameSchema, ServerRecordSchema),
  rules: z.array(RuleSchema),
  settings: z.object({
    policyMode: PolicyModeSchema,
    /** Flush every decision to disk before its call is sent (default: within the audit log's window). */
    strictDurability: z.boolean().optional(),
    /** Programs the person pointed Airlock at (absent: Airlock looks for them). Optional, so older files read as they are. */
    runtimes: z.object({ node: z.string().optional(), python: z.string().optional(), uv: z.string().optional() }).optional(),
    /** The MCP Registry to search (absent: the official one). Optional, so older files read as they are. */
    registryUrl: z.string().optional(),
    /** Streaming the audit log to an OpenTelemetry collector (absent: the OTEL_EXPORTER_OTLP_* variables decide); header values are in the secret store. */
    auditExport: z
      .object({ enabled: z.boolean(), endpoint: z.string().optional(), protocol: z.enum(['http/protobuf', 'http/json']).optional(), headerNames: z.array(z.string()).optional() })
      .optional(),
  }),
});
export type StoreData = z.infer<typeof StoreDataSchema>;

/** The store's file name inside the data folder (`airlock.json`). */
export const STORE_NAME = 'airlock';

/** The version of the store's shape; bump it and add a migration when the shape changes. */
export const STORE_VERSION = '1.0.0';

const DEFAULTS: StoreData = { servers: {}, rules: [], settings: { policyMode: 'default' } };

/**
 * The subset of conf (and of electron-store, which is conf plus Electron's
 * paths) the store uses. The desktop app passes an electron-store factory; the
 * core and CLI use JsonFileStore, which keeps conf's file the same way; both
 * read and write the same file with the same options.
 */
export interface StoreBackend {
  readonly path: string;
  readonly store: Record<string, unknown>;
  set(object: Record<string, unknown>): void;
}

/** Options shared by conf and electron-store so both open the same file the same way. */
export function storeOptions(dataDir: string) {
  return {
    cwd: dataDir,
    configName: STORE_NAME,
    projectName: 'airlock',
    projectVersion: STORE_VERSION,
    defaults: DEFAULTS as unknown as Record<string, unknown>,
    // A corrupt file must reach us as an error, never be silently reset.
    clearInvalidConfig: false,
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
    watch: false,
    migrations: {
      // The first released shape. Later shapes add a step here, e.g. '1.1.0': (store) => store.set({ … }),
      // using only `store` and `set(object)`: conf (the app's electron-store) and JsonFileStore both run it.
      '1.0.0': () => {},
    },
  } as const;
}

export type StoreBackendFactory = (options: ReturnType<typeof storeOptions>) => StoreBackend;

/** The core's own: conf's file, format and atomic save, without loading conf (see json-file.ts). */
const jsonFileFactory: StoreBackendFactory = (options) => new JsonFileStore(options);

/** How a copy of an unreadable settings file kept aside is named (then the time, then `.json`). */
export const CORRUPT_PREFIX = `${STORE_NAME}.corrupt-`;

/** The unreadable copies kept aside in `dataDir`, oldest first. */
function keptCopies(dataDir: string): string[] {
  try {
    return readdirSync(dataDir)
      .filter((name) => name.startsWith(CORRUPT_PREFIX) && name.endsWith('.json'))
      .sort()
      .map((name) => join(dataDir, name));
  } catch {
    // A data folder that cannot be listed has no copies to tell about; opening the store reports the folder itself.
    return [];
  }
}

/** Why a kept copy cannot be used as settings, in words ("it is not valid JSON: …"); undefined when it now can. */
function whyUnreadable(path: string): string | undefined {
  try {
    return whyUnreadableText(readFileSync(path, 'utf8'));
  } catch (error) {
    return `it cannot be read: ${messageOf(error)}`;
  }
}

function whyUnreadableText(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `it is not valid JSON: ${jsonProblem(text, error)}`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'it is not a JSON object';
  const parsed = StoreDataSchema.safeParse(pick(value as Record<string, unknown>));
  return parsed.success ? undefined : reason(parsed.error);
}

/** A JSON parse error with its line and column (Node says only "at position N"). */
function jsonProblem(text: string, error: unknown): string {
  const message = messageOf(error);
  const at = /at position (\d+)/.exec(message);
  if (!at) return message;
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${message.replace(/ in JSON at position \d+.*$/, '')} at line ${line}, column ${column}`;
}

/** A temporary file an interrupted save left behind is removed once it is this old (ms). */
const STALE_TEMP_MS = 60_000;

/**
 * Airlock's persisted state: servers, rules and settings, validated when
 * read. Writes are atomic (a temporary file, fsynced and renamed over it —
 * by conf in the app, by JsonFileStore elsewhere), so a save cut short leaves the old file or the new one,
 * never half of one. A file that cannot be parsed or does not match the
 * schema is moved aside (never deleted) and the user is told, through
 * `notices`, where it went.
 *
 * No file read on the hot path: the last snapshot is kept (frozen) and
 * revalidated with one `stat` — inode, size, modification and change time —
 * so a rule saved by another process is seen by the next read, and an
 * unchanged file is not read again.
 */
export class AirlockStore {
  private readonly backend: StoreBackend;
  private readonly file: string;
  private cached: { stamp: string; data: StoreData } | undefined;
  /** Why the file was unreadable, for the copy this process moved aside (the reason is known first-hand). */
  private readonly reasons = new Map<string, string>();

  constructor(
    readonly dataDir: string,
    factory: StoreBackendFactory = jsonFileFactory,
    now: () => Date = () => new Date(),
  ) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const options = storeOptions(dataDir);
    const path = join(dataDir, `${STORE_NAME}.json`);
    this.file = path;
    removeStaleTemps(dataDir, now().getTime());
    // Keep the exact bytes: opening may rewrite the file (conf merges in defaults).
    const original = existsSync(path) ? readFileSync(path) : undefined;
    let backend: StoreBackend;
    try {
      backend = factory(options);
      StoreDataSchema.parse(pick(backend.store));
    } catch (error) {
      if (original === undefined) throw unreadable(path, error);
      const aside = join(dataDir, `${CORRUPT_PREFIX}${now().toISOString().replace(/[:.]/g, '-')}.json`);
      try {
        writeFileSync(aside, original, { mode: 0o600, flag: 'wx' });
        rmSync(path, { force: true });
      } catch (moveError) {
        throw unreadable(path, moveError);
      }
      this.reasons.set(aside, whyUnreadableText(original.toString('utf8')) ?? reason(error));
      backend = factory(options);
    }
    this.backend = backend;
  }

  /**
   * What the person must know about the settings file: every unreadable copy
   * kept aside in the data folder — the one moved aside now, and any from an
   * earlier start that was neither restored nor deleted — with why it could
   * not be read, where it is, and how to get it back. Said at every start
   * until the person acts, never only once.
   */
  get notices(): AppNotice[] {
    return keptCopies(this.dataDir).map((copy) => {
      const why = this.reasons.get(copy) ?? whyUnreadable(copy);
      return {
        level: 'error' as const,
        kind: 'settings-unreadable' as const,
        message:
          `Airlock's settings file could not be read${why ? ` (${why})` : ''}, so Airlock is running with empty settings: your servers, rules and settings are not in use, but they are not lost. ` +
          `The unreadable file is kept as ${copy}; your audit log, secrets and installed servers were not touched. ` +
          `To get them back, repair that file and run \`airlock settings restore ${copy}\` (Airlock checks it first, and keeps the settings in use now beside it). ` +
          'If you do not need it, delete it and this warning stops.',
      };
    });
  }

  /**
   * The settings in `file`, checked as `restore` checks them; throws an
   * `invalid-request` error that says what is wrong (with the line and
   * column of a JSON mistake). Changes nothing.
   */
  checkFile(file: string): StoreData {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new AirlockError('invalid-request', `Airlock cannot read ${file}: ${messageOf(error)}. Nothing was changed.`);
    }
    const problem = whyUnreadableText(text);
    if (problem) throw new AirlockError('invalid-request', `${file} still cannot be used: ${problem}. Repair it and try again; nothing was changed.`);
    return StoreDataSchema.parse(pick(JSON.parse(text) as Record<string, unknown>));
  }

  /**
   * Puts back settings from `file` (a copy kept aside, once repaired, or a
   * backup): checked first — nothing changes unless it reads and matches the
   * expected shape — then the settings in use are kept beside it as
   * `airlock.replaced-TIME.json` and the file's are written atomically. A
   * kept-aside copy of the data folder is removed once its settings are back
   * (they live in the settings file again). Returns where the replaced
   * settings went.
   */
  restore(file: string, now: Date = new Date()): { keptAs: string; servers: number; rules: number } {
    const data = this.checkFile(file);
    const keptAs = join(this.dataDir, `${STORE_NAME}.replaced-${now.toISOString().replace(/[:.]/g, '-')}.json`);
    try {
      if (existsSync(this.file)) writeFileSync(keptAs, readFileSync(this.file), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      throw new AirlockError('unavailable', `Airlock could not keep the settings in use now as ${keptAs}: ${messageOf(error)}. Nothing was changed.`);
    }
    this.update(() => data);
    if (dirname(resolve(file)) === resolve(this.dataDir) && basename(file).startsWith(CORRUPT_PREFIX)) rmSync(file, { force: true });
    return { keptAs, servers: Object.keys(data.servers).length, rules: data.rules.length };
  }

  /** Where the store lives on disk. */
  get path(): string {
    return this.backend.path;
  }

  /**
   * The current state, validated. Read from disk only when the file changed
   * since the last read (one `stat` otherwise). The result is frozen: change
   * it through `update`.
   */
  read(): StoreData {
    const stamp = fileStamp(this.file);
    if (this.cached && stamp !== undefined && this.cached.stamp === stamp) return this.cached.data;
    const parsed = StoreDataSchema.safeParse(pick(this.backend.store));
    if (!parsed.success) {
      this.cached = undefined;
      throw new AirlockError(
        'unavailable',
        `Airlock's settings file (${this.backend.path}) was changed to something invalid while Airlock was running: ${parsed.error.issues[0]?.message ?? 'unknown problem'}. Nothing was changed; fix or remove the file and restart Airlock.`,
      );
    }
    const data = deepFreeze(parsed.data);
    // The stamp from before the read: if the file changed in between, the next read sees a newer stamp and reads again.
    this.cached = stamp === undefined ? undefined : { stamp, data };
    return data;
  }

  /** Applies a change to the state and writes it atomically; the result is validated first. */
  update(change: (current: StoreData) => StoreData): StoreData {
    const next = StoreDataSchema.parse(change(this.read()));
    try {
      this.backend.set(next);
    } catch (error) {
      this.cached = undefined;
      if (isDiskFull(error)) {
        throw new AirlockError('unavailable', `The disk is full: Airlock could not save its settings (${this.file}). Nothing was changed; free some space and try again.`);
      }
      throw new AirlockError('unavailable', `Airlock could not save its settings (${this.file}): ${reason(error)}. Nothing was changed.`);
    }
    this.cached = undefined;
    return deepFreeze(next);
  }
}

/** What identifies one version of a file: inode, size, modification and change time (ns). */
function fileStamp(path: string): string | undefined {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stats ? `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}` : undefined;
}

// Temporary files of saves cut short (atomic writes name them `airlock.json.tmp-…`).
function removeStaleTemps(dataDir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(`${STORE_NAME}.json.tmp-`)) continue;
    const path = join(dataDir, name);
    try {
      if (now - statSync(path).mtimeMs > STALE_TEMP_MS) rmSync(path, { force: true });
    } catch {
      // gone already
    }
  }
}

function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** The keys we own (conf keeps its own `__internal__` bookkeeping beside them). */
function pick(store: Record<string, unknown>): Record<string, unknown> {
  return { servers: store.servers, rules: store.rules, settings: store.settings };
}

function reason(error: unknown): string {
  if (error instanceof z.ZodError) return `it does not match the expected shape: ${error.issues[0]?.path.join('.') || 'root'} ${error.issues[0]?.message ?? ''}`.trim();
  return messageOf(error);
}

function unreadable(path: string, error: unknown): AirlockError {
  return new AirlockError(
    'unavailable',
    `Airlock cannot open its settings file ${path}: ${reason(error)}. Nothing was changed. Check the folder's permissions, then start Airlock again.`,
  );
}

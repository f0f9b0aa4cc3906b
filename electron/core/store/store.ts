import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import { z } from 'zod';
import { PolicyModeSchema, RuleSchema, ServerNameSchema, ServerRecordSchema } from '../../../shared/domain';
import type { AppNotice } from '../../../shared/ipc';
import { AirlockError } from '../errors';

/** Everything Airlock persists except secrets and the audit log. */
export const StoreDataSchema = z.object({
  servers: z.record(ServerNameSchema, ServerRecordSchema),
  rules: z.array(RuleSchema),
  settings: z.object({
    policyMode: PolicyModeSchema,
    /** Programs the person pointed Airlock at (absent: Airlock looks for them). Optional, so older files read as they are. */
    runtimes: z.object({ node: z.string().optional(), python: z.string().optional(), uv: z.string().optional() }).optional(),
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
 * core and CLI use conf; both read and write the same file with the same
 * options.
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
      // The first released shape. Later shapes add a step here, e.g. '1.1.0': (store) => {...}.
      '1.0.0': () => {},
    },
  } as const;
}

export type StoreBackendFactory = (options: ReturnType<typeof storeOptions>) => StoreBackend;

const confFactory: StoreBackendFactory = (options) => new Conf(options) as unknown as StoreBackend;

/**
 * Airlock's persisted state: servers, rules and settings, validated on every
 * read. Writes are atomic (conf writes a temporary file and renames it). A file
 * that cannot be parsed or does not match the schema is moved aside (never
 * deleted) and the user is told, through `notices`, where it went.
 */
export class AirlockStore {
  readonly notices: AppNotice[] = [];
  private readonly backend: StoreBackend;

  constructor(
    readonly dataDir: string,
    factory: StoreBackendFactory = confFactory,
    now: () => Date = () => new Date(),
  ) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const options = storeOptions(dataDir);
    const path = join(dataDir, `${STORE_NAME}.json`);
    // Keep the exact bytes: opening may rewrite the file (conf merges in defaults).
    const original = existsSync(path) ? readFileSync(path) : undefined;
    let backend: StoreBackend;
    try {
      backend = factory(options);
      StoreDataSchema.parse(pick(backend.store));
    } catch (error) {
      if (original === undefined) throw unreadable(path, error);
      const aside = join(dataDir, `${STORE_NAME}.corrupt-${now().toISOString().replace(/[:.]/g, '-')}.json`);
      try {
        writeFileSync(aside, original, { mode: 0o600, flag: 'wx' });
        rmSync(path, { force: true });
      } catch (moveError) {
        throw unreadable(path, moveError);
      }
      this.notices.push({
        level: 'error',
        message: `Airlock's settings file could not be read (${reason(error)}). It was kept as ${aside} and Airlock started with empty settings; your audit log and secrets were not touched. Restore or repair that file while Airlock is closed to get your servers back.`,
      });
      backend = factory(options);
    }
    this.backend = backend;
  }

  /** Where the store lives on disk. */
  get path(): string {
    return this.backend.path;
  }

  /** The current state, read from disk and validated. */
  read(): StoreData {
    const parsed = StoreDataSchema.safeParse(pick(this.backend.store));
    if (!parsed.success) {
      throw new AirlockError(
        'unavailable',
        `Airlock's settings file (${this.backend.path}) was changed to something invalid while Airlock was running: ${parsed.error.issues[0]?.message ?? 'unknown problem'}. Nothing was changed; fix or remove the file and restart Airlock.`,
      );
    }
    return parsed.data;
  }

  /** Applies a change to the state and writes it atomically; the result is validated first. */
  update(change: (current: StoreData) => StoreData): StoreData {
    const next = StoreDataSchema.parse(change(this.read()));
    this.backend.set(next as unknown as Record<string, unknown>);
    return next;
  }
}

/** The keys we own (conf keeps its own `__internal__` bookkeeping beside them). */
function pick(store: Record<string, unknown>): Record<string, unknown> {
  return { servers: store.servers, rules: store.rules, settings: store.settings };
}

function reason(error: unknown): string {
  if (error instanceof z.ZodError) return `it does not match the expected shape: ${error.issues[0]?.path.join('.') || 'root'} ${error.issues[0]?.message ?? ''}`.trim();
  return error instanceof Error ? error.message : String(error);
}

function unreadable(path: string, error: unknown): AirlockError {
  return new AirlockError(
    'unavailable',
    `Airlock cannot open its settings file ${path}: ${reason(error)}. Nothing was changed. Check the folder's permissions, then start Airlock again.`,
  );
}

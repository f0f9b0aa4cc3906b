/**
 * The settings file as conf (and electron-store, which is conf with
 * Electron's paths) keeps it — same path, same format (tab-indented JSON,
 * conf's `__internal__` bookkeeping kept as it is), the same atomic save
 * (a temporary file beside it, flushed to disk, renamed over it) and the
 * same migrations — in a few lines of plain Node, so a command that only
 * reads its settings does not load conf and the schema validator it brings
 * (most of the time `airlock list` took). The app still uses electron-store;
 * both read and write one file.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

/** What a migration is given: the file's keys, and a way to set some (conf's instance offers the same two). */
export interface JsonFileBackend {
  readonly path: string;
  readonly store: Record<string, unknown>;
  set(object: Record<string, unknown>): void;
}

/** conf's own key for its bookkeeping (the version migrations ran to). */
const INTERNAL_KEY = '__internal__';

/** What the backend is opened with: the subset of conf's options Airlock uses (see `storeOptions`). */
export interface JsonFileOptions {
  cwd: string;
  configName: string;
  projectVersion: string;
  defaults: Record<string, unknown>;
  configFileMode: number;
  /** By version, as conf runs them: each gets the backend (`store`, `set`) and runs once, in order. */
  migrations?: Readonly<Record<string, (store: JsonFileBackend) => void>>;
}

export class JsonFileStore implements JsonFileBackend {
  readonly path: string;
  readonly #mode: number;

  /** Opens the file as conf does: defaults merged in and saved, then the migrations newer than the file's. Throws on a file that is not JSON. */
  constructor(options: JsonFileOptions) {
    this.path = join(options.cwd, `${options.configName}.json`);
    this.#mode = options.configFileMode;
    const file = this.store;
    const withDefaults = Object.assign(Object.create(null) as Record<string, unknown>, options.defaults, file);
    if (!isDeepStrictEqual({ ...file }, { ...withDefaults })) this.#write(withDefaults);
    this.#migrate(options.migrations ?? {}, options.projectVersion);
  }

  /** The whole file as it is on disk now (read at every access, as conf does); empty when there is none. */
  get store(): Record<string, unknown> {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Object.create(null) as Record<string, unknown>;
      throw error;
    }
    return Object.assign(Object.create(null) as Record<string, unknown>, JSON.parse(text) as Record<string, unknown>);
  }

  /** Sets these keys (the others, `__internal__` among them, stay as they are) and saves atomically. */
  set(object: Record<string, unknown>): void {
    this.#write(Object.assign(this.store, object));
  }

  #migrate(migrations: Readonly<Record<string, (store: JsonFileBackend) => void>>, target: string): void {
    const internal = this.store[INTERNAL_KEY] as { migrations?: { version?: unknown } } | undefined;
    const from = typeof internal?.migrations?.version === 'string' ? internal.migrations.version : '0.0.0';
    const due = Object.keys(migrations)
      .filter((version) => compareVersions(version, from) > 0 && compareVersions(version, target) <= 0)
      .sort(compareVersions);
    for (const version of due) {
      migrations[version]!(this);
      this.#setVersion(version);
    }
    if (compareVersions(from, target) !== 0 || due.length === 0) {
      const now = this.store[INTERNAL_KEY] as { migrations?: { version?: unknown } } | undefined;
      if (now?.migrations?.version !== target) this.#setVersion(target);
    }
  }

  #setVersion(version: string): void {
    const current = this.store;
    const internal = (current[INTERNAL_KEY] && typeof current[INTERNAL_KEY] === 'object' ? current[INTERNAL_KEY] : {}) as Record<string, unknown>;
    const migrations = (internal.migrations && typeof internal.migrations === 'object' ? internal.migrations : {}) as Record<string, unknown>;
    this.#write(Object.assign(current, { [INTERNAL_KEY]: { ...internal, migrations: { ...migrations, version } } }));
  }

  /** Writes a temporary file beside the settings, flushes it to disk and renames it over them: a save cut short leaves the old file or the new one. */
  #write(value: Record<string, unknown>): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temp = `${this.path}.tmp-${Date.now()}${randomBytes(4).toString('hex')}`;
    try {
      const fd = openSync(temp, 'w', this.#mode);
      try {
        writeSync(fd, JSON.stringify(value, undefined, '\t'));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }
}

/** Orders `major.minor.patch` versions (what the store's migrations are keyed by). */
function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
    const difference = (x[i] ?? 0) - (y[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

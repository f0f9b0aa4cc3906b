/**
 * The person's model providers and chat settings, in `models.json` of the
 * data folder (mode 0600, written atomically). Keys are not in this file:
 * each provider's key is sealed in the secret store, like a server's
 * secrets, under a name no server can have (`model-provider:<id>`), and is
 * never sent back — views say only whether a key is set. A file that cannot
 * be read is kept aside, never overwritten, and the person is told.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ModelRefSchema, ProviderIdSchema, ProviderKindSchema, type ModelRef, type ProviderKind } from '../../../shared/chat';
import { AirlockError } from '../errors';
import type { SecretStore } from '../secrets/secret-store';
import type { ProviderConfig } from './model-client';

export const MODELS_FILE = 'models.json';

/** Tool-using steps a turn may take by default before the model must ask to continue. */
export const DEFAULT_STEP_LIMIT = 10;
export const MAX_STEP_LIMIT = 100;

const StoredProviderSchema = z.object({
  id: ProviderIdSchema,
  kind: ProviderKindSchema,
  label: z.string().min(1).max(100),
  baseUrl: z.string().max(2048).optional(),
  models: z.array(z.string().max(200)).max(5000),
  lastTest: z.object({ ok: z.boolean(), message: z.string(), at: z.string() }).optional(),
});
export type StoredProvider = z.infer<typeof StoredProviderSchema>;

const ModelsFileSchema = z.object({
  version: z.literal(1),
  providers: z.array(StoredProviderSchema),
  defaultModel: ModelRefSchema.optional(),
  stepLimit: z.number().int().min(1).max(MAX_STEP_LIMIT),
});
type ModelsFile = z.infer<typeof ModelsFileSchema>;

const EMPTY: ModelsFile = { version: 1, providers: [], stepLimit: DEFAULT_STEP_LIMIT };

/** The secret store's namespace for a provider's key: not a valid server name, so it never meets a server's secrets. */
export function keyOwner(providerId: string): string {
  return `model-provider:${providerId}`;
}
const KEY_NAME = 'API_KEY';

export class ModelsStore {
  private readonly path: string;
  readonly notices: string[] = [];
  /** Set when the file could not be read: changes are refused until the person deals with it (nothing is overwritten). */
  private unreadable = false;
  /** The file as last read, with the size and time it had (another process may change it). */
  private cache: { file: ModelsFile; size: number; mtimeMs: number } | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly secrets: Pick<SecretStore, 'values' | 'set' | 'delete' | 'names' | 'deleteAll'>,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.path = join(dataDir, MODELS_FILE);
    this.read();
  }

  providers(): StoredProvider[] {
    return this.read().providers;
  }

  provider(id: string): StoredProvider {
    const found = this.read().providers.find((provider) => provider.id === id);
    if (!found) throw new AirlockError('not-found', `There is no model provider named ${id}.`);
    return found;
  }

  config(id: string): ProviderConfig {
    const { kind, label, baseUrl } = this.provider(id);
    return { id, kind, label, ...(baseUrl ? { baseUrl } : {}) };
  }

  hasKey(id: string): boolean {
    try {
      return this.secrets.names(keyOwner(id)).includes(KEY_NAME);
    } catch {
      return false;
    }
  }

  /** The provider's key, for a request (never for a view). */
  key(id: string): string | undefined {
    return this.secrets.values(keyOwner(id), [KEY_NAME])[KEY_NAME];
  }

  defaultModel(): ModelRef | undefined {
    return this.read().defaultModel;
  }

  stepLimit(): number {
    return this.read().stepLimit;
  }

  add(input: { kind: ProviderKind; label: string; baseUrl?: string; apiKey?: string; models?: string[] }): StoredProvider {
    const label = checkLabel(input.label);
    const baseUrl = checkBaseUrl(input.kind, input.baseUrl);
    if (input.kind !== 'openai-compatible' && !input.apiKey) throw new AirlockError('invalid-request', `A key is needed for ${input.kind === 'anthropic' ? 'Anthropic' : 'OpenAI'}.`);
    let created: StoredProvider | undefined;
    this.change((file) => {
      const id = uniqueId(slug(label), file.providers.map((provider) => provider.id));
      created = { id, kind: input.kind, label, ...(baseUrl ? { baseUrl } : {}), models: input.models ?? [] };
      // The key first: a provider must never exist with a key that failed to save silently.
      if (input.apiKey) this.secrets.set(keyOwner(id), KEY_NAME, input.apiKey);
      const providers = [...file.providers, created];
      return { ...file, providers, ...(file.defaultModel ? {} : {}) };
    });
    return created!;
  }

  update(id: string, changes: { label?: string; baseUrl?: string | null; apiKey?: string; models?: string[]; lastTest?: StoredProvider['lastTest'] }): StoredProvider {
    const label = changes.label === undefined ? undefined : checkLabel(changes.label);
    let updated: StoredProvider | undefined;
    this.change((file) => {
      const current = file.providers.find((provider) => provider.id === id);
      if (!current) throw new AirlockError('not-found', `There is no model provider named ${id}.`);
      const baseUrl = changes.baseUrl === undefined ? current.baseUrl : changes.baseUrl === null ? undefined : checkBaseUrl(current.kind, changes.baseUrl);
      if (current.kind === 'openai-compatible' && !baseUrl) throw new AirlockError('invalid-request', 'An OpenAI-compatible provider needs its address (base URL).');
      if (changes.apiKey) this.secrets.set(keyOwner(id), KEY_NAME, changes.apiKey);
      const { baseUrl: _old, ...rest } = current;
      updated = {
        ...rest,
        ...(label !== undefined ? { label } : {}),
        ...(baseUrl ? { baseUrl } : {}),
        ...(changes.models ? { models: changes.models.slice(0, 5000) } : {}),
        ...(changes.lastTest ? { lastTest: changes.lastTest } : {}),
      };
      return { ...file, providers: file.providers.map((provider) => (provider.id === id ? updated! : provider)) };
    });
    return updated!;
  }

  /** Removes a provider and its key; a default model of that provider is cleared. */
  remove(id: string): void {
    this.change((file) => {
      if (!file.providers.some((provider) => provider.id === id)) throw new AirlockError('not-found', `There is no model provider named ${id}.`);
      const { defaultModel, ...rest } = file;
      return { ...rest, providers: file.providers.filter((provider) => provider.id !== id), ...(defaultModel && defaultModel.provider !== id ? { defaultModel } : {}) };
    });
    try {
      this.secrets.deleteAll(keyOwner(id));
    } catch {
      // The key is sealed by the other shell (app vs. command line); it stays until removed there, and is unused.
    }
  }

  setDefaultModel(ref: ModelRef): void {
    this.change((file) => {
      if (!file.providers.some((provider) => provider.id === ref.provider)) throw new AirlockError('not-found', `There is no model provider named ${ref.provider}.`);
      return { ...file, defaultModel: ref };
    });
  }

  setStepLimit(limit: number): void {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_STEP_LIMIT) throw new AirlockError('invalid-request', `The step limit is a whole number from 1 to ${MAX_STEP_LIMIT}.`);
    this.change((file) => ({ ...file, stepLimit: limit }));
  }

  private read(): ModelsFile {
    let stat;
    try {
      stat = statSync(this.path);
    } catch {
      return EMPTY;
    }
    if (this.cache && this.cache.size === stat.size && this.cache.mtimeMs === stat.mtimeMs) return this.cache.file;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (error) {
      return this.keepAside(`could not be read (${(error as Error).message})`);
    }
    const checked = ModelsFileSchema.safeParse(parsed);
    if (!checked.success) return this.keepAside('is not in the shape Airlock expects');
    this.cache = { file: checked.data, size: stat.size, mtimeMs: stat.mtimeMs };
    return checked.data;
  }

  /** A file Airlock cannot read is moved aside (never deleted) and reported; Airlock starts from no providers. */
  private keepAside(why: string): ModelsFile {
    if (this.unreadable) return EMPTY;
    this.unreadable = true;
    const aside = join(this.dataDir, `models.corrupt-${this.now().toISOString().replace(/[:.]/g, '-')}.json`);
    try {
      renameSync(this.path, aside);
      this.notices.push(`Airlock's models file ${why}. It was kept as ${aside}; add your providers again (their keys are still in the secret store).`);
      this.unreadable = false;
    } catch (error) {
      this.notices.push(`Airlock's models file (${this.path}) ${why}, and could not be moved aside (${(error as Error).message}). Nothing was changed.`);
    }
    return EMPTY;
  }

  private change(mutate: (file: ModelsFile) => ModelsFile): void {
    if (this.unreadable) throw new AirlockError('unavailable', `Airlock's models file (${this.path}) cannot be read; fix or remove it first. Nothing was changed.`);
    const next = ModelsFileSchema.parse(mutate(this.read()));
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, this.path);
    this.cache = undefined;
  }
}

/**
 * A provider's name as the person typed it, trimmed; a blank one is refused
 * here, before anything is saved (its key included), with words, not as a
 * failure of the file's own schema.
 */
function checkLabel(raw: string): string {
  const label = raw.trim();
  if (!label) throw new AirlockError('invalid-request', 'A model provider needs a name; the one given is blank.');
  return label;
}

/** An http(s) address without credentials in it; required for compatible endpoints. */
function checkBaseUrl(kind: ProviderKind, raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value) {
    if (kind === 'openai-compatible') throw new AirlockError('invalid-request', 'An OpenAI-compatible provider needs its address, like http://localhost:11434/v1 for Ollama.');
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AirlockError('invalid-request', `“${value.slice(0, 200)}” is not an address. Use one like http://localhost:11434/v1.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AirlockError('invalid-request', 'The address must start with https:// (or http:// for a server on your own network).');
  // SECURITY: a key typed into the address would be stored in plain text in models.json.
  if (url.username || url.password) throw new AirlockError('invalid-request', 'Put the key in the key field, not in the address.');
  return value.replace(/\/+$/, '');
}

function slug(label: string): string {
  const base = label
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return base || 'provider';
}

function uniqueId(base: string, taken: readonly string[]): string {
  if (!taken.includes(base)) return base;
  for (let n = 2; ; n += 1) if (!taken.includes(`${base}-${n}`)) return `${base}-${n}`;
}

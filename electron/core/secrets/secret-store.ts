import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { nameKeyedRecord, ownEntry } from '../../../shared/domain';
import { AirlockError } from '../errors';
import { registerDataFolder } from '../sandbox/data-folders';

/**
 * How secret values are protected at rest. The desktop app passes Electron's
 * `safeStorage` (the OS keychain); headless use keeps them in a file only the
 * user can read (mode 0600 in a 0700 folder), and says so. Either way no
 * server reads the file: every data folder is hidden from every sandbox
 * (the home folder as a whole, and the data-folder registry for folders
 * elsewhere).
 */
export interface SecretCipher {
  /** A short label stored with the values ("electron-safeStorage"). */
  readonly id: string;
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

const SecretsFileSchema = z.object({
  version: z.literal(1),
  /** "none": plain text in a mode-0600 file; otherwise the cipher's id. */
  protection: z.string(),
  // Secret names can come from a bundle's manifest: names are data, never Object.prototype's.
  servers: nameKeyedRecord(z.string(), nameKeyedRecord(z.string(), z.string())),
});
type SecretsFile = z.infer<typeof SecretsFileSchema>;

export const SECRETS_FILE = 'secrets.json';

/**
 * Server secrets (API keys, MCPB `sensitive` fields), kept out of the JSON
 * store. Values are never sent to the renderer; only their names are.
 * SECURITY: invariant 5 — a server gets only the secrets granted to it.
 */
export class SecretStore {
  private readonly path: string;

  constructor(
    dataDir: string,
    private readonly cipher?: SecretCipher,
    /**
     * The per-user list of data folders every sandbox hides (default
     * `dataFolderRegistryPath()`); null: not recorded, because the person
     * keeps this folder self-contained (`--data-dir`).
     */
    registry?: string | null,
  ) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // SECURITY (invariant 5): recorded before any secret is written, so a
    // server started by another Airlock process (the app, another CLI data
    // folder) never reads this file, wherever the folder is. A self-contained
    // folder is hidden from its own servers (every launch denies it), and is
    // as safe from other folders' servers as its place: inside the home folder,
    // hidden from all of them.
    if (registry !== null) registerDataFolder(dataDir, registry ? { registry } : {});
    this.path = join(dataDir, SECRETS_FILE);
  }

  /** Names of the secrets stored for a server. */
  names(server: string): string[] {
    return Object.keys(ownEntry(this.read().servers, server) ?? {}).sort();
  }

  /** The values of the named secrets for a server (missing names are left out). */
  values(server: string, names: readonly string[]): Record<string, string> {
    const file = this.read();
    const stored = ownEntry(file.servers, server) ?? {};
    const out = Object.create(null) as Record<string, string>;
    for (const name of names) {
      const sealed = ownEntry(stored, name);
      if (sealed !== undefined) out[name] = this.open(file, sealed, name);
    }
    for (const listener of this.readers) listener(server, out);
    return out;
  }

  private readonly readers = new Set<(server: string, values: Readonly<Record<string, string>>) => void>();

  /**
   * Calls `listener` with every set of values read (so the values a server
   * was given are known after the store loses them; see
   * redaction/given-secrets.ts). Returns the unsubscribe.
   */
  onDidRead(listener: (server: string, values: Readonly<Record<string, string>>) => void): () => void {
    this.readers.add(listener);
    return () => this.readers.delete(listener);
  }

  set(server: string, name: string, value: string): void {
    this.change((file) => {
      (file.servers[server] ??= Object.create(null) as Record<string, string>)[name] = this.seal(value);
    });
  }

  delete(server: string, name: string): void {
    this.change((file) => {
      delete file.servers[server]?.[name];
    });
  }

  /** Removes every secret of a server (when it is removed). */
  deleteAll(server: string): void {
    this.change((file) => {
      delete file.servers[server];
    });
  }

  private seal(value: string): string {
    return this.cipher ? this.cipher.encrypt(value) : value;
  }

  private open(file: SecretsFile, sealed: string, name: string): string {
    if (file.protection === 'none') return sealed;
    if (!this.cipher || this.cipher.id !== file.protection) {
      throw new AirlockError(
        'unavailable',
        `The secret ${name} is stored encrypted by the Airlock app (${file.protection}); start this server from the app.`,
      );
    }
    return this.cipher.decrypt(sealed);
  }

  // The last parse, revalidated with one stat (a call's redaction reads the server's secrets: no file read when unchanged).
  private cached: { stamp: string; file: SecretsFile } | undefined;

  private read(): SecretsFile {
    const stats = statSync(this.path, { bigint: true, throwIfNoEntry: false });
    if (!stats) return { version: 1, protection: this.cipher?.id ?? 'none', servers: Object.create(null) as SecretsFile['servers'] };
    const stamp = `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
    if (this.cached?.stamp === stamp) return cloneSecretsFile(this.cached.file);
    const file = this.readFile();
    this.cached = { stamp, file };
    return cloneSecretsFile(file);
  }

  private readFile(): SecretsFile {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (error) {
      throw new AirlockError('unavailable', `Airlock's secrets file (${this.path}) cannot be read: ${(error as Error).message}. Nothing was changed.`);
    }
    const checked = SecretsFileSchema.safeParse(parsed);
    if (!checked.success) throw new AirlockError('unavailable', `Airlock's secrets file (${this.path}) is not in the expected shape. Nothing was changed.`);
    return checked.data;
  }

  private change(mutate: (file: SecretsFile) => void): void {
    const file = this.read();
    if (file.protection !== (this.cipher?.id ?? 'none') && Object.keys(file.servers).length > 0) {
      throw new AirlockError('unavailable', `Secrets were stored by ${file.protection === 'none' ? 'the command line' : 'the Airlock app'}; change them there.`);
    }
    file.protection = this.cipher?.id ?? 'none';
    mutate(file);
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, this.path);
  }
}

/** A copy callers may change; maps keyed by names stay null-prototype (structuredClone would give them Object.prototype). */
function cloneSecretsFile(file: SecretsFile): SecretsFile {
  const servers = Object.create(null) as SecretsFile['servers'];
  for (const [server, values] of Object.entries(file.servers)) servers[server] = Object.assign(Object.create(null) as Record<string, string>, values);
  return { version: file.version, protection: file.protection, servers };
}

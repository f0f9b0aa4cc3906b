/**
 * The key that anchors the end of the audit log (issue 9.6). The hash chain
 * finds an edited, removed or reordered entry, but anyone who can write the
 * data folder can cut entries off the end and rewrite the record of where it
 * ended. So that record (`audit.head.json`) carries an HMAC made with a key
 * the data folder does not hold: the shell provides it through `AuditKey`.
 *
 * - Every shell — the desktop app, the CLI, a gateway — keeps it in one file
 *   outside the data folder, mode 0600 in a 0700 folder (`fileAuditKey`,
 *   `defaultAuditKeyPath`), so each confirms the end the others wrote. That
 *   detects cutting by anyone who can change the data folder but cannot
 *   read that file (a restored backup, a sync tool, another account with
 *   access to the folder); it cannot stop a program running as the same
 *   user, which can read the key too.
 * - `sealedFileAuditKey` seals it with a cipher (the OS keychain through
 *   Electron's safeStorage). The app does not use it: the CLI cannot open
 *   a keychain-sealed key, so it could confirm no end the app wrote.
 *
 * SECURITY: the key never enters the data folder and never leaves this
 * module: callers get `mac()`, not the bytes.
 */
import { createHmac, randomBytes, createHash, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { AirlockError, messageOf } from '../errors';
import type { SecretCipher } from '../secrets/secret-store';

/** What the audit log needs from its key: an id to write beside a MAC, and the MAC. */
export interface AuditKey {
  /** A short, non-secret id (written in the head, so a head made with another key reads as "cannot confirm", not as forged). */
  readonly id: string;
  /** HMAC-SHA256 (hex) of `message`. */
  mac(message: string): string;
}

/** An `AuditKey` over raw key bytes (32 random bytes). */
export function auditKeyFromBytes(key: Buffer): AuditKey {
  if (key.length < 32) throw new Error('An audit key needs at least 32 bytes.');
  const bytes = Buffer.from(key);
  return {
    id: createHash('sha256').update('airlock-audit-key-id').update(bytes).digest('hex').slice(0, 16),
    mac: (message) => createHmac('sha256', bytes).update(message).digest('hex'),
  };
}

/** Compares two hex MACs in constant time. */
export function macEquals(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Where headless Airlock keeps the key: `$AIRLOCK_AUDIT_KEY_FILE`, or
 * `$XDG_CONFIG_HOME/airlock-keys/audit-head.key` (default
 * `~/.config/airlock-keys/audit-head.key`) — one key per user, outside every
 * data folder.
 */
export function defaultAuditKeyPath(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (env.AIRLOCK_AUDIT_KEY_FILE) return env.AIRLOCK_AUDIT_KEY_FILE;
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'airlock-keys', 'audit-head.key');
}

const KEY_FILE = /^airlock-audit-key v1 ([0-9a-f]{64})\n?$/;

/**
 * The key kept in a plain file (created on first use: 32 random bytes, mode
 * 0600, folder 0700). Refuses a path inside `dataDir`: the point is that the
 * data folder alone does not hold it.
 */
export function fileAuditKey(path: string, dataDir?: string): AuditKey {
  refuseInside(path, dataDir);
  return auditKeyFromBytes(Buffer.from(loadOrCreate(path, (hex) => `airlock-audit-key v1 ${hex}\n`, (text) => KEY_FILE.exec(text)?.[1]), 'hex'));
}

/**
 * The key sealed by a cipher (the app: Electron's safeStorage, i.e. the OS
 * keychain), kept in a file outside the data folder. Without the keychain
 * the file is useless.
 */
export function sealedFileAuditKey(path: string, cipher: SecretCipher, dataDir?: string): AuditKey {
  refuseInside(path, dataDir);
  const hex = loadOrCreate(
    path,
    (fresh) => `${JSON.stringify({ version: 1, protection: cipher.id, sealed: cipher.encrypt(fresh) })}\n`,
    (text) => {
      const file = JSON.parse(text) as { version?: number; protection?: string; sealed?: string };
      if (file.version !== 1 || file.protection !== cipher.id || typeof file.sealed !== 'string') return undefined;
      const opened = cipher.decrypt(file.sealed);
      return /^[0-9a-f]{64}$/.test(opened) ? opened : undefined;
    },
  );
  return auditKeyFromBytes(Buffer.from(hex, 'hex'));
}

function loadOrCreate(path: string, serialise: (hex: string) => string, parse: (text: string) => string | undefined): string {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const hex = randomBytes(32).toString('hex');
    try {
      // wx: two processes starting at once must not each write their own key.
      writeFileSync(path, serialise(hex), { mode: 0o600, flag: 'wx' });
      chmodSync(path, 0o600);
      return hex;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw keyError(path, error);
    }
  }
  let hex: string | undefined;
  try {
    hex = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw keyError(path, error);
  }
  if (!hex) throw keyError(path, new Error('it is not an Airlock audit key'));
  return hex;
}

function refuseInside(path: string, dataDir: string | undefined): void {
  if (!dataDir) return;
  const rel = relative(resolve(dataDir), resolve(path));
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
    throw new AirlockError('invalid-request', `The audit key (${path}) must be kept outside Airlock's data folder (${dataDir}); otherwise it anchors nothing.`);
  }
}

function keyError(path: string, error: unknown): AirlockError {
  return new AirlockError(
    'unavailable',
    `Airlock cannot use its audit key ${path}: ${messageOf(error)}. The audit log still records every call, but cannot confirm that nothing was cut from its end until the key is readable again (or removed, to make a new one).`,
  );
}

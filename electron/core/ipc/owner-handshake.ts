/**
 * The handshake between a data folder's owner and a client (see
 * local-socket.ts): each proves to the other, with HMAC over a fresh nonce,
 * that it can read the key in Airlock's data folder — so it runs as this
 * user and is not one of Airlock's sandboxed servers, which never can.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { inertText } from '../servers/log-ring';
import { isPlainObject, type PeerHello } from './owner-wire';

/** A hello as the owner accepts it: known fields, bounded, the label made inert. */
export function readHello(params: unknown): (PeerHello & { proof: string; nonce: string }) | undefined {
  if (!isPlainObject(params)) return undefined;
  const { role, terminal, label, proof, nonce } = params;
  if (role !== 'cli' && role !== 'gateway' && role !== 'app') return undefined;
  if (typeof proof !== 'string' || typeof nonce !== 'string' || nonce.length < 16 || nonce.length > 200) return undefined;
  const text = typeof label === 'string' ? inertText(label.slice(0, 100)) : '';
  return { role, terminal: terminal === true, label: text, proof, nonce };
}

/** The proof of holding `key` for `message` (HMAC-SHA256). */
export function prove(key: Buffer, message: string): string {
  return createHmac('sha256', key).update(message).digest('base64url');
}

/** True when `proof` is the proof of holding `key` for `message`. */
export function proofMatches(key: Buffer, message: string, proof: unknown): boolean {
  if (typeof proof !== 'string') return false;
  const expected = Buffer.from(prove(key, message));
  const given = Buffer.from(proof);
  // SECURITY: constant time, so timing tells nothing about the key.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A fresh key for this ownership, written atomically, readable by the user only. */
export function writeKey(keyPath: string): Buffer {
  const key = randomBytes(32);
  const temporary = `${keyPath}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  writeFileSync(temporary, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  renameSync(temporary, keyPath);
  return key;
}

/** The key the owner wrote (a client proves with it). */
export function readKey(keyPath: string): Buffer {
  const text = readFileSync(keyPath, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(text)) throw new Error('the key file is not what Airlock writes');
  return Buffer.from(text, 'hex');
}

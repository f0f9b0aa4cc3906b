import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, link, lstat, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { AirlockError } from '../errors';

/** The file in Airlock's data folder that holds the HTTP gateway's bearer token. */
export const GATEWAY_TOKEN_FILE = 'gateway-token';

/** 32 random bytes, base64url: 43 characters. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43,256}$/;

/** The shortest token `startHttpGateway` accepts. */
export const MIN_GATEWAY_TOKEN_LENGTH = 32;

/** A new bearer token: 256 random bits, base64url. */
export function generateGatewayToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * True when `given` is `expected`, in time that depends on neither (both
 * are hashed first, so even their lengths do not show).
 */
export function tokensMatch(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * The HTTP gateway's token, from `<dataDir>/gateway-token`, created (mode
 * 0600) when there is none. A file others could read, or that does not hold
 * a token, is replaced by a new token: clients then need the new one, which
 * is better than a secret that may have leaked. Several processes starting
 * at once all get the same token (the file is created with a hard link,
 * which fails rather than overwrites).
 */
export async function loadOrCreateGatewayToken(dataDir: string, platform: NodeJS.Platform = process.platform): Promise<string> {
  const path = join(dataDir, GATEWAY_TOKEN_FILE);
  const existing = await readTokenFile(path, platform);
  if (existing) return existing;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const token = generateGatewayToken();
  const temp = await writeTemp(dataDir, token);
  try {
    await link(temp, path);
    return token;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') throw error;
    // Another process won the race, or the file was unusable: read it again, replace it if it still is.
    const theirs = await readTokenFile(path, platform);
    if (theirs) return theirs;
    await rename(temp, path);
    return token;
  } finally {
    await unlink(temp).catch(() => undefined); // The temporary file may already be renamed or gone.
  }
}

/** Replaces the gateway token with a new one (e.g. from Settings); connected HTTP clients need it. */
export async function rotateGatewayToken(dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const token = generateGatewayToken();
  const temp = await writeTemp(dataDir, token);
  try {
    await rename(temp, join(dataDir, GATEWAY_TOKEN_FILE));
  } catch (error) {
    await unlink(temp).catch(() => undefined); // The temporary file may not exist; the error that matters is thrown below.
    throw error;
  }
  return token;
}

/** The token in the file, or undefined when there is none to trust. */
async function readTokenFile(path: string, platform: NodeJS.Platform): Promise<string | undefined> {
  let info;
  try {
    info = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // SECURITY: never follow a link planted in the data folder to some other file.
  if (!info.isFile()) {
    throw new AirlockError('conflict', `${path} is not a plain file (a link or a folder?); remove it and Airlock will make a new token`);
  }
  // SECURITY: a token others on this machine could read is not a secret any more (POSIX modes only).
  if (platform !== 'win32' && (info.mode & 0o077) !== 0) return undefined;
  const token = (await readFile(path, 'utf8')).trim();
  return TOKEN_SHAPE.test(token) ? token : undefined;
}

async function writeTemp(dir: string, token: string): Promise<string> {
  const temp = join(dir, `.${GATEWAY_TOKEN_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  // SECURITY: created 0600 from the start, never readable by others even for a moment.
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${token}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(temp, 0o600); // against a umask that would not matter here, but be explicit
  return temp;
}

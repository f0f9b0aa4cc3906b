/** The HTTP gateway's token file: created private, reused, replaced when it cannot be trusted. */
import { chmod, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN_FILE, loadOrCreateGatewayToken, rotateGatewayToken, tokensMatch } from '../../../electron/core/gateway/gateway-token';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'airlock-token-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the gateway token', () => {
  it('is created with mode 0600 and read back the same', async () => {
    const data = join(dir, 'data');
    const token = await loadOrCreateGatewayToken(data);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(join(data, GATEWAY_TOKEN_FILE))).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateGatewayToken(data)).toBe(token);
  });

  it('is the same for processes that start at once', async () => {
    const tokens = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateGatewayToken(dir)));
    expect(new Set(tokens).size).toBe(1);
    expect((await readFile(join(dir, GATEWAY_TOKEN_FILE), 'utf8')).trim()).toBe(tokens[0]);
  });

  it('is replaced when others could read the file, or it holds no token', async () => {
    const first = await loadOrCreateGatewayToken(dir);
    await chmod(join(dir, GATEWAY_TOKEN_FILE), 0o644);
    const second = await loadOrCreateGatewayToken(dir);
    expect(second).not.toBe(first);
    expect((await stat(join(dir, GATEWAY_TOKEN_FILE))).mode & 0o777).toBe(0o600);
    await writeFile(join(dir, GATEWAY_TOKEN_FILE), 'short\n', { mode: 0o600 });
    expect(await loadOrCreateGatewayToken(dir)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses to follow a link planted in its place', async () => {
    await writeFile(join(dir, 'elsewhere'), 'x'.repeat(43), { mode: 0o600 });
    await symlink(join(dir, 'elsewhere'), join(dir, GATEWAY_TOKEN_FILE));
    await expect(loadOrCreateGatewayToken(dir)).rejects.toThrow(/not a plain file/);
  });

  it('rotates', async () => {
    const first = await loadOrCreateGatewayToken(dir);
    const second = await rotateGatewayToken(dir);
    expect(second).not.toBe(first);
    expect(await loadOrCreateGatewayToken(dir)).toBe(second);
  });

  it('compares tokens whole', () => {
    expect(tokensMatch('a'.repeat(43), 'a'.repeat(43))).toBe(true);
    expect(tokensMatch('a'.repeat(42), 'a'.repeat(43))).toBe(false);
    expect(tokensMatch('', 'a')).toBe(false);
  });
});

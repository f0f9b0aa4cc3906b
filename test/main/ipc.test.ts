import { describe, expect, it, vi } from 'vitest';
import type { IpcHandlers } from '../../shared/ipc';
import { channelNames } from '../../shared/ipc';
import { AirlockError } from '../../electron/core/errors';
import { dispatchIpc, isAppSender, MAX_REQUEST_BYTES, registerIpcHandlers } from '../../electron/main/ipc';
import { APP_ORIGIN } from '../../electron/main/window';

const sandbox = { supported: true, platform: 'linux', missing: [], summary: 'ready' };
const info = { name: 'Airlock', version: '1.0.0', platform: 'linux', dataDir: '/tmp/x', notices: [], canPickFiles: false };

/** Handlers for the three channels these tests use; any other channel fails loudly. */
function handlers(overrides: Partial<IpcHandlers> = {}): IpcHandlers {
  const unused = Object.fromEntries(
    channelNames.map((name) => [
      name,
      () => {
        throw new Error(`${name} is not used in this test`);
      },
    ]),
  ) as unknown as IpcHandlers;
  return { ...unused, 'app.info': () => info, 'sandbox.status': () => sandbox, 'sandbox.recheck': () => sandbox, ...overrides };
}

describe('dispatchIpc validates every request against the contract', () => {
  it('runs a valid request and returns the validated value', async () => {
    expect(await dispatchIpc(handlers(), 'app.info', {})).toEqual({ ok: true, value: info });
  });

  const wrongTypes = [null, undefined, 'text', 42, [], true];
  it.each(wrongTypes.map((value) => [JSON.stringify(value) ?? 'undefined', value]))('refuses a request of the wrong type: %s', async (_label, value) => {
    const handler = vi.fn(() => info);
    const result = await dispatchIpc(handlers({ 'app.info': handler }), 'app.info', value);
    expect(result).toMatchObject({ ok: false, code: 'invalid-request' });
    expect(handler).not.toHaveBeenCalled();
  });

  it('refuses extra keys instead of ignoring them', async () => {
    const handler = vi.fn(() => info);
    const result = await dispatchIpc(handlers({ 'app.info': handler }), 'app.info', { extra: 1 });
    expect(result).toMatchObject({ ok: false, code: 'invalid-request' });
    expect(result.ok === false && result.message).toContain('extra');
    expect(handler).not.toHaveBeenCalled();
  });

  it('refuses an own __proto__ key and does not pollute prototypes', async () => {
    const handler = vi.fn(() => info);
    const payload = JSON.parse('{"__proto__": {"polluted": true}}');
    const result = await dispatchIpc(handlers({ 'app.info': handler }), 'app.info', payload);
    expect(result).toMatchObject({ ok: false, code: 'invalid-request' });
    expect(handler).not.toHaveBeenCalled();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a huge payload before parsing it', async () => {
    const handler = vi.fn(() => info);
    const result = await dispatchIpc(handlers({ 'app.info': handler }), 'app.info', { big: 'x'.repeat(MAX_REQUEST_BYTES + 1) });
    expect(result).toMatchObject({ ok: false, code: 'invalid-request' });
    expect(result.ok === false && result.message).toContain('too large');
    expect(handler).not.toHaveBeenCalled();
  });

  it('refuses data that is not plain (cycles, BigInt)', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(await dispatchIpc(handlers(), 'app.info', cyclic)).toMatchObject({ ok: false, code: 'invalid-request' });
    expect(await dispatchIpc(handlers(), 'app.info', { n: 1n })).toMatchObject({ ok: false, code: 'invalid-request' });
  });

  it.each([['fs.readFile'], ['__proto__'], ['constructor'], ['toString'], [''], [42]])('refuses a channel the contract does not name: %s', async (channel) => {
    expect(await dispatchIpc(handlers(), channel, {})).toMatchObject({ ok: false, code: 'unknown-channel' });
  });

  it('turns an AirlockError into its code and message', async () => {
    const result = await dispatchIpc(
      handlers({
        'app.info': () => {
          throw new AirlockError('not-found', 'No server named x.');
        },
      }),
      'app.info',
      {},
    );
    expect(result).toEqual({ ok: false, code: 'not-found', message: 'No server named x.' });
  });

  it('hides the details of an unexpected error from the renderer but logs them', async () => {
    const log = vi.fn();
    const result = await dispatchIpc(
      handlers({
        'app.info': () => {
          throw new Error('secret stack detail at /home/me/.ssh');
        },
      }),
      'app.info',
      {},
      log,
    );
    expect(result).toMatchObject({ ok: false, code: 'internal' });
    expect(JSON.stringify(result)).not.toContain('.ssh');
    expect(log).toHaveBeenCalledOnce();
  });

  it('refuses a response that breaks the contract', async () => {
    const result = await dispatchIpc(handlers({ 'app.info': () => ({ name: 42 }) as never }), 'app.info', {}, () => {});
    expect(result).toMatchObject({ ok: false, code: 'invalid-response' });
  });
});

describe('the sender check', () => {
  const mainFrame = { url: `${APP_ORIGIN}/index.html` };
  const sender = { mainFrame };
  const event = (frame: unknown, from = sender) => ({ senderFrame: frame, sender: from }) as never;

  it("accepts the app's own main frame", () => {
    expect(isAppSender(event(mainFrame), APP_ORIGIN)).toBe(true);
  });

  it('refuses a subframe, even one on the app origin', () => {
    expect(isAppSender(event({ url: `${APP_ORIGIN}/index.html` }), APP_ORIGIN)).toBe(false);
  });

  it.each([
    ['https://evil.example/'],
    ['file:///work/main/out/renderer/index.html'],
    ['airlock://evil/index.html'],
    ['airlock://app.evil/index.html'],
    ['http://app/index.html'],
    ['not a url'],
  ])('refuses a main frame on another origin: %s', (url) => {
    const frame = { url };
    expect(isAppSender(event(frame, { mainFrame: frame }), APP_ORIGIN)).toBe(false);
  });

  it('refuses a destroyed frame', () => {
    expect(isAppSender(event(null), APP_ORIGIN)).toBe(false);
  });
});

describe('registerIpcHandlers', () => {
  function fakeIpcMain() {
    const registered = new Map<string, (event: unknown, request: unknown) => Promise<unknown>>();
    return {
      registered,
      handle: (channel: string, listener: (event: unknown, request: unknown) => Promise<unknown>) => {
        if (registered.has(channel)) throw new Error(`second handler for ${channel}`);
        registered.set(channel, listener);
      },
    };
  }

  it('registers exactly one handler per channel of the contract', () => {
    const ipcMain = fakeIpcMain();
    const names = registerIpcHandlers(ipcMain as never, handlers(), { appOrigin: APP_ORIGIN });
    expect([...ipcMain.registered.keys()].sort()).toEqual([...channelNames].sort());
    expect(names.sort()).toEqual([...channelNames].sort());
  });

  it('refuses a forged sender without running the handler', async () => {
    const ipcMain = fakeIpcMain();
    const handler = vi.fn(() => info);
    registerIpcHandlers(ipcMain as never, handlers({ 'app.info': handler }), { appOrigin: APP_ORIGIN });
    const forged = { url: 'https://evil.example/' };
    const result = await ipcMain.registered.get('app.info')!({ senderFrame: forged, sender: { mainFrame: forged } }, {});
    expect(result).toMatchObject({ ok: false, code: 'forbidden-sender' });
    expect(handler).not.toHaveBeenCalled();
    const good = { url: `${APP_ORIGIN}/index.html` };
    expect(await ipcMain.registered.get('app.info')!({ senderFrame: good, sender: { mainFrame: good } }, {})).toEqual({ ok: true, value: info });
  });
});

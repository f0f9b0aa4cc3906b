/**
 * The system browser opens a server's URL only through main, only https, and
 * only for a URL question the core asked (the core refuses anything else).
 */
import { describe, expect, it } from 'vitest';
import { openUrlHandler } from '../../electron/main/open-external';
import { AirlockError } from '../../electron/core/errors';

describe('openUrlHandler', () => {
  it('hands the core’s https URL to the shell', async () => {
    const opened: string[] = [];
    const handler = openUrlHandler(async () => ({ url: 'https://example.com/path?q=1' }), { openExternal: async (url) => void opened.push(url) });
    expect(await handler({ id: 'x' })).toEqual({ url: 'https://example.com/path?q=1' });
    expect(opened).toEqual(['https://example.com/path?q=1']);
  });

  it.each(['http://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url'])('refuses %s without calling the shell', async (url) => {
    const opened: string[] = [];
    const handler = openUrlHandler(async () => ({ url }), { openExternal: async (u) => void opened.push(u) });
    await expect(handler({ id: 'x' })).rejects.toBeInstanceOf(AirlockError);
    expect(opened).toEqual([]);
  });

  it('opens nothing when the core refuses the id', async () => {
    const opened: string[] = [];
    const handler = openUrlHandler(async () => {
      throw new AirlockError('not-found', 'Airlock did not ask to open this.');
    }, { openExternal: async (u) => void opened.push(u) });
    await expect(handler({ id: 'forged' })).rejects.toThrow(/did not ask/);
    expect(opened).toEqual([]);
  });
});

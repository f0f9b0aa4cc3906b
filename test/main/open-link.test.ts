/**
 * Links from the chat reach the OS only from main, only as https, never with
 * a name or password in them (SECURITY.md, Electron checklist).
 */
import { describe, expect, it } from 'vitest';
import { isOpenableLink, openLink } from '../../electron/main/open-link';

describe('opening links from the chat', () => {
  it.each([
    ['https://example.com/docs?a=1#x', true],
    ['HTTPS://EXAMPLE.COM/', true],
    ['http://example.com/', false],
    ['javascript:alert(1)', false],
    ['file:///etc/passwd', false],
    ['airlock://app/index.html', false],
    ['https://bank.example@evil.example/', false],
    ['https://user:pass@example.com/', false],
    ['not a url', false],
    ['', false],
  ])('%s → %s', (url, ok) => {
    expect(isOpenableLink(url)).toBe(ok);
  });

  it('hands an https link to the OS, and refuses anything else before the OS sees it', async () => {
    const opened: string[] = [];
    const shell = { openExternal: async (url: string) => void opened.push(url) };
    await openLink(shell, 'https://example.com/a b');
    await expect(openLink(shell, 'file:///etc/passwd')).rejects.toThrow(/only https links/);
    await expect(openLink(shell, 'https://x@evil.example')).rejects.toThrow(/only https links/);
    expect(opened).toEqual(['https://example.com/a%20b']);
  });
});

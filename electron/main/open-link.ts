/**
 * Opens a link from the chat in the system browser — never in an app
 * window. The renderer asks only after the person clicked the link and saw
 * its full address; main checks again that it is https before the OS sees it.
 * SECURITY (Electron checklist): `shell.openExternal` only from main, only
 * for https URLs the person confirmed.
 */
import type { Shell } from 'electron';
import { AirlockError } from '../core/errors';

/** True when `url` is an https address main may hand to the OS. */
export function isOpenableLink(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  // Credentials in a link are a phishing trick ("https://bank.com@evil.example"); such a link is refused.
  return parsed.protocol === 'https:' && parsed.hostname.length > 0 && !parsed.username && !parsed.password;
}

/** Opens an https link with the OS; anything else is refused with the reason. */
export async function openLink(shell: Pick<Shell, 'openExternal'>, url: string): Promise<void> {
  if (!isOpenableLink(url)) throw new AirlockError('invalid-request', 'Airlock opens only https links, without a name or password in them.');
  await shell.openExternal(new URL(url).toString(), { activate: true });
}

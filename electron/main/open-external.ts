/**
 * Opening a server's URL (URL-mode elicitation) in the system browser: only
 * from main, only after the person clicked in the dialog, only https, never
 * in an app window. The core checked and recorded the click; this checks
 * the scheme again right before the shell call.
 *
 * SECURITY: SECURITY.md rule 7 and the Electron checklist
 * (`shell.openExternal` only from main, only for https URLs the user confirmed).
 */
import type { Shell } from 'electron';
import type { IpcHandlers } from '../../shared/ipc';
import { AirlockError } from '../core/errors';

/** Wraps the core's `requests.openUrl` so the URL it approves is handed to the system browser. */
export function openUrlHandler(core: IpcHandlers['requests.openUrl'], shell: Pick<Shell, 'openExternal'>): IpcHandlers['requests.openUrl'] {
  return async (request) => {
    const { url } = await core(request);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new AirlockError('invalid-request', 'That is not a web address Airlock can open.');
    }
    if (parsed.protocol !== 'https:') throw new AirlockError('forbidden-sender', 'Airlock opens only https addresses.');
    await shell.openExternal(parsed.href, { activate: true });
    return { url: parsed.href };
  };
}

/**
 * Checks on what servers hand over as data — resource contents, prompt
 * messages, listed names and descriptions — before it reaches a person or
 * another app: a size cap, binary that claims to be text, hidden characters
 * and text that gives orders to the model. Flags inform; the cap refuses.
 *
 * SECURITY: server text is data (SECURITY.md rule 1); it is never rendered
 * as HTML, and a resource larger than the cap is refused with a clear error
 * instead of being held in memory or passed on (TESTING.md, hostile 5).
 */
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogWarning } from '../../../shared/views';
import { addressesModel, hasHiddenCharacters } from '../tools/tool-warnings';
import { AirlockError } from '../errors';

/** Most characters of contents (text, plus base64 for binary) one read may return. */
export const MAX_RESOURCE_CHARS = 4 * 1024 * 1024;

/** Warnings for a piece of server text (a name, a description, a message). */
export function textWarnings(...texts: Array<string | undefined>): CatalogWarning[] {
  const present = texts.filter((text): text is string => typeof text === 'string' && text.length > 0);
  const warnings: CatalogWarning[] = [];
  if (present.some(hasHiddenCharacters)) warnings.push({ kind: 'hidden-characters', message: 'It contains hidden or direction-changing characters; they are shown as visible markers.' });
  if (present.some(addressesModel)) warnings.push({ kind: 'addresses-model', message: 'Its text gives instructions to the AI model.' });
  return warnings;
}

/** The size of a read's contents, as it counts against the cap. */
export function contentsSize(result: ReadResourceResult): number {
  let size = 0;
  for (const item of result.contents ?? []) {
    if (typeof (item as { text?: unknown }).text === 'string') size += (item as { text: string }).text.length;
    if (typeof (item as { blob?: unknown }).blob === 'string') size += (item as { blob: string }).blob.length;
  }
  return size;
}

/** Refuses a read whose contents pass the cap, saying how large it was. */
export function checkResourceSize(server: string, uri: string, result: ReadResourceResult, cap = MAX_RESOURCE_CHARS): void {
  const size = contentsSize(result);
  if (size > cap) {
    throw new AirlockError(
      'unavailable',
      `${server} sent ${formatSize(size)} for ${uri.length > 200 ? `${uri.slice(0, 200)}…` : uri}, more than the ${formatSize(cap)} Airlock passes on for one resource. Nothing was kept.`,
    );
  }
}

/** Warnings for one content item of a read. */
export function contentWarnings(item: { mimeType?: string; text?: unknown; blob?: unknown }): CatalogWarning[] {
  const warnings: CatalogWarning[] = [];
  const mime = (item.mimeType ?? '').toLowerCase();
  const claimsText = mime.startsWith('text/') || /[+/](json|xml|yaml|javascript)\b/.test(mime);
  if (typeof item.blob === 'string' && claimsText) {
    warnings.push({ kind: 'claimed-text-sent-binary', message: `The server says this is ${item.mimeType}, but sent binary data; Airlock treats it as binary.` });
  }
  if (typeof item.text === 'string') {
    // NUL and other C0 controls in "text" mean binary data passed off as text.
    if (/[\u0000-\u0008\u000e-\u001a]/.test(item.text.slice(0, 65536))) {
      warnings.push({ kind: 'binary-in-text', message: 'The server sent this as text, but it contains binary bytes; they are shown as visible markers.' });
    } else warnings.push(...textWarnings(item.text));
  }
  if (mime.includes('html')) warnings.push({ kind: 'html', message: 'This is HTML from the server; Airlock shows it as plain text, never as a page.' });
  return warnings;
}

export function formatSize(chars: number): string {
  if (chars >= 1024 * 1024) return `${(chars / (1024 * 1024)).toFixed(1)} MiB`;
  if (chars >= 1024) return `${Math.round(chars / 1024)} KiB`;
  return `${chars} bytes`;
}

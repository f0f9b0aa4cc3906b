/** Caps on one paged listing (`tools/list`, `prompts/list`, …). */
export interface PagingLimits {
  maxPages: number;
  maxItems: number;
  /** Longest cursor Airlock will send back to a server. */
  maxCursorChars: number;
  /** Most characters of JSON held across all pages of one listing. */
  maxTotalChars: number;
}

/** Defaults: 50 pages, 2000 items, 4 KB cursors, 32 MiB of JSON in all. */
export const DEFAULT_PAGING_LIMITS: PagingLimits = { maxPages: 50, maxItems: 2000, maxCursorChars: 4096, maxTotalChars: 32 * 1024 * 1024 };

/** Why a listing stopped before the server said it was complete. */
export type TruncationReason = 'max-pages' | 'max-items' | 'max-size' | 'repeated-cursor' | 'oversize-cursor';

/** The items a server listed, and whether Airlock stopped reading early. */
export interface Listing<T> {
  items: T[];
  pages: number;
  truncated: boolean;
  reason?: TruncationReason;
}

/** One page as the server returned it. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
  /** Size of the page's items as JSON, when the fetcher measured it. */
  chars?: number;
}

/**
 * Reads a paged listing with caps: it stops at `maxPages`, `maxItems` or
 * `maxTotalChars`, on a cursor it has already seen, or on an oversized
 * cursor, and says so. A page that would pass `maxTotalChars` is not kept.
 * SECURITY: an endless `nextCursor` cannot keep Airlock busy or growing (TESTING.md 5).
 */
export async function collectPages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, limits: PagingLimits): Promise<Listing<T>> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  let chars = 0;
  for (;;) {
    const page = await fetchPage(cursor);
    pages++;
    chars += page.chars ?? 0;
    if (chars > limits.maxTotalChars) return { items, pages, truncated: true, reason: 'max-size' };
    for (const item of page.items) {
      if (items.length >= limits.maxItems) return { items, pages, truncated: true, reason: 'max-items' };
      items.push(item);
    }
    const next = page.nextCursor;
    if (next === undefined) return { items, pages, truncated: false };
    if (pages >= limits.maxPages) return { items, pages, truncated: true, reason: 'max-pages' };
    if (next.length > limits.maxCursorChars) return { items, pages, truncated: true, reason: 'oversize-cursor' };
    if (seen.has(next)) return { items, pages, truncated: true, reason: 'repeated-cursor' };
    seen.add(next);
    cursor = next;
  }
}

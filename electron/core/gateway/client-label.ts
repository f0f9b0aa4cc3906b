/**
 * The name a gateway client goes by, apart from the gateway's server (the
 * owner of a data folder names its clients with it without loading the MCP
 * server).
 */
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';

const FALLBACK_CLIENT_NAME = 'An MCP client';
const MAX_CLIENT_NAME = 100;

/**
 * The name a gateway client goes by: the label given when the gateway was
 * started, else the client's title or name from `initialize`. Control, bidi
 * and zero-width characters are removed and the length capped, since the
 * name is shown in confirmations ("<name> wants to run…").
 */
export function clientLabel(configured: string | undefined, clientInfo: Implementation | undefined): string {
  for (const candidate of [configured, clientInfo?.title, clientInfo?.name]) {
    if (typeof candidate !== 'string') continue;
    const clean = candidate
      .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (clean) return clean.length > MAX_CLIENT_NAME ? `${clean.slice(0, MAX_CLIENT_NAME - 1)}…` : clean;
  }
  return FALLBACK_CLIENT_NAME;
}


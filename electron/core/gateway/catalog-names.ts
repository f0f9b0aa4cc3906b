/**
 * How the gateway names what several servers offer at once: prompts as
 * `server__prompt` (like tools), resources as `airlock://server/<original
 * URI>` (screens as `ui://airlock/server/<rest of the original>`). Both are reversible by construction: a server name has no `_`, no
 * `/` and no `:`, so the first `__` of a prompt name and the first `/` after
 * `airlock://` are always the separators, and the original text follows
 * byte for byte (a resource template keeps its `{variables}`, and what a
 * client expands from it maps back by the same prefix). Two servers can
 * never produce the same name; one server's names map one to one.
 */
import { TOOL_NAME_SEPARATOR } from './tool-names';

/** The scheme of gateway resource URIs. */
export const GATEWAY_URI_PREFIX = 'airlock://';

/**
 * Screens (MCP Apps) keep the `ui://` scheme a host looks for — a host
 * refuses a screen address that is not `ui://` — so a server's
 * `ui://rest` is `ui://airlock/<server>/rest` through the gateway.
 */
export const GATEWAY_SCREEN_PREFIX = 'ui://airlock/';
const SCREEN_SCHEME = 'ui://';

const SERVER_NAME = /^[A-Za-z0-9.-]+$/;

/** The gateway URI of a server's resource (or URI template). */
export function gatewayResourceUri(server: string, uri: string): string | undefined {
  if (!SERVER_NAME.test(server)) return undefined;
  if (typeof uri === 'string' && uri.startsWith(SCREEN_SCHEME)) return `${GATEWAY_SCREEN_PREFIX}${server}/${uri.slice(SCREEN_SCHEME.length)}`;
  return `${GATEWAY_URI_PREFIX}${server}/${uri}`;
}

/** The server and original URI a gateway URI stands for; undefined when it is not one. */
export function parseGatewayResourceUri(uri: string): { server: string; uri: string } | undefined {
  if (typeof uri !== 'string') return undefined;
  if (uri.startsWith(GATEWAY_SCREEN_PREFIX)) {
    const parts = serverAndRest(uri.slice(GATEWAY_SCREEN_PREFIX.length));
    return parts && { server: parts.server, uri: `${SCREEN_SCHEME}${parts.rest}` };
  }
  if (!uri.startsWith(GATEWAY_URI_PREFIX)) return undefined;
  const parts = serverAndRest(uri.slice(GATEWAY_URI_PREFIX.length));
  return parts && { server: parts.server, uri: parts.rest };
}

/** `server/rest` after a gateway prefix: the first `/` is the separator (a server name has none); neither part may be empty. */
function serverAndRest(text: string): { server: string; rest: string } | undefined {
  const slash = text.indexOf('/');
  if (slash <= 0) return undefined;
  const server = text.slice(0, slash);
  const rest = text.slice(slash + 1);
  if (!SERVER_NAME.test(server) || rest === '') return undefined;
  return { server, rest };
}

/** The gateway name of a server's prompt (`server__prompt`). */
export function gatewayPromptName(server: string, prompt: string): string | undefined {
  if (!SERVER_NAME.test(server) || typeof prompt !== 'string' || prompt === '') return undefined;
  return `${server}${TOOL_NAME_SEPARATOR}${prompt}`;
}

/** The server and prompt a gateway prompt name stands for. */
export function parseGatewayPromptName(name: string): { server: string; prompt: string } | undefined {
  if (typeof name !== 'string') return undefined;
  const at = name.indexOf(TOOL_NAME_SEPARATOR);
  if (at <= 0) return undefined;
  const server = name.slice(0, at);
  const prompt = name.slice(at + TOOL_NAME_SEPARATOR.length);
  if (!SERVER_NAME.test(server) || prompt === '') return undefined;
  return { server, prompt };
}

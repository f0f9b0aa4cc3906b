/**
 * Why a tool call did not produce a result.
 * - `timeout`: no answer in time (or the hard maximum passed) — outcome unknown, the server may have acted;
 * - `disconnected`: the server went away while the call was open — outcome unknown;
 * - `aborted`: the caller cancelled — outcome unknown once the request was sent;
 * - `not-running`: the server was not ready; nothing was sent;
 * - `refused`: the call did not reach the server, or the server refused it before acting (a remote
 *   server's 401/403, an expired session, an unreachable host) — it did not run;
 * - `server-error`: the server answered with a JSON-RPC error;
 * - `invalid-result`: the server answered with something that is not a tool result — outcome unknown.
 */
export type ToolCallFailure = 'timeout' | 'disconnected' | 'aborted' | 'not-running' | 'refused' | 'server-error' | 'invalid-result';

/**
 * A failed tool call. The supervisor never retries: whether to (invariant 4)
 * is for the policy layer, which knows the tool and the server's trust.
 */
export class ToolCallError extends Error {
  /** True when the server may have carried the call out. */
  readonly outcomeUnknown: boolean;

  constructor(
    readonly kind: ToolCallFailure,
    readonly server: string,
    readonly tool: string,
    message: string,
    readonly details: {
      /** The request reached the transport. */
      sent: boolean;
      /** For `timeout`: the hard maximum (not the inactivity timeout) ran out. */
      hardMaximum?: boolean;
      /** For `server-error`: the JSON-RPC error code. */
      code?: number;
      cause?: unknown;
    },
  ) {
    super(message);
    this.name = 'ToolCallError';
    this.outcomeUnknown = details.sent && (kind === 'timeout' || kind === 'disconnected' || kind === 'aborted' || kind === 'invalid-result');
  }
}

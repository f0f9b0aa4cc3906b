/**
 * The renderer's typed client over `window.airlock`. React code uses this,
 * never `window.airlock` directly. It holds no policy: it shows what the core
 * decided.
 */
import { useCallback, useEffect, useState } from 'react';
import type { AirlockBridge, ChannelName, EventName, IpcResult, PayloadOf, RequestOf, ResponseOf } from '../shared/ipc';

declare global {
  interface Window {
    airlock?: AirlockBridge;
  }
}

function bridge(): AirlockBridge {
  const found = window.airlock;
  if (!found) throw new Error('Airlock’s bridge is missing: this page must be opened by the Airlock app.');
  return found;
}

/** Calls a channel; resolves to the result (never throws for a refused call). */
export function invoke<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<IpcResult<ResponseOf<C>>> {
  return bridge().invoke(channel, request);
}

/** Subscribes to an event; returns the unsubscribe function. */
export function on<E extends EventName>(event: E, listener: (payload: PayloadOf<E>) => void): () => void {
  return bridge().on(event, listener);
}

/** The state of one query: loading, a value, or an error message for a person. */
export type Query<T> = { status: 'loading' } | { status: 'ok'; value: T } | { status: 'error'; message: string };

/**
 * Calls a channel when the component mounts (and on `reload`), optionally
 * replacing the value whenever `event` fires.
 */
export function useQuery<C extends ChannelName>(
  channel: C,
  request: RequestOf<C>,
  event?: EventName,
): [Query<ResponseOf<C>>, () => void, (value: ResponseOf<C>) => void] {
  const [state, setState] = useState<Query<ResponseOf<C>>>({ status: 'loading' });
  const key = JSON.stringify(request);
  const reload = useCallback(() => {
    invoke(channel, JSON.parse(key) as RequestOf<C>).then(
      (result) => setState(result.ok ? { status: 'ok', value: result.value } : { status: 'error', message: result.message }),
      (error: unknown) => setState({ status: 'error', message: String(error) }),
    );
  }, [channel, key]);
  useEffect(reload, [reload]);
  useEffect(() => {
    if (!event) return undefined;
    return on(event, () => reload());
  }, [event, reload]);
  const set = useCallback((value: ResponseOf<C>) => setState({ status: 'ok', value }), []);
  return [state, reload, set];
}

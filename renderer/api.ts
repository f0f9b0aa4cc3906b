/**
 * The renderer's typed client over `window.airlock`. React code uses this,
 * never `window.airlock` directly. It holds no policy: it shows what the core
 * decided.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AirlockBridge, AppInfo, ChannelName, EventName, IpcResult, PayloadOf, RequestOf, ResponseOf } from '../shared/ipc';

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

/**
 * Like `useQuery`, but an event that carries the whole new value (e.g.
 * `servers.didChange`, `approvals.didChange`) replaces it without a round trip.
 */
export function useLiveQuery<C extends ChannelName, E extends EventName>(
  channel: C,
  request: RequestOf<C>,
  event: E,
  fromEvent: (payload: PayloadOf<E>) => ResponseOf<C>,
): [Query<ResponseOf<C>>, () => void] {
  const [state, reload, set] = useQuery(channel, request);
  const map = useRef(fromEvent);
  map.current = fromEvent;
  useEffect(() => on(event, (payload) => set(map.current(payload))), [event, set]);
  return [state, reload];
}

let appInfoCache: AppInfo | undefined;
let appInfoPromise: Promise<AppInfo | undefined> | undefined;

/** The app's info (cached: it does not change while the window is open). */
export function useAppInfo(): AppInfo | undefined {
  const [info, setInfo] = useState<AppInfo | undefined>(appInfoCache);
  useEffect(() => {
    if (appInfoCache) return;
    appInfoPromise ??= invoke('app.info', {}).then((result) => (result.ok ? (appInfoCache = result.value) : undefined));
    let live = true;
    void appInfoPromise.then((value) => live && setInfo(value));
    return () => {
      live = false;
    };
  }, []);
  return info;
}

/** Runs one action at a time and keeps its error for a person to read. */
export function useAction(): {
  busy: boolean;
  error: string | undefined;
  setError: (message: string | undefined) => void;
  run: <T>(action: () => Promise<IpcResult<T>>) => Promise<T | undefined>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = useCallback(async <T,>(action: () => Promise<IpcResult<T>>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      const result = await action();
      if (!result.ok) {
        setError(result.message);
        return undefined;
      }
      return result.value;
    } catch (error) {
      setError(String(error));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}

/**
 * Calls `action` after any of `events` fires, at most once per `delayMs`
 * (a flood of audit appends or server changes must not flood the core back).
 */
export function useRefreshOn(events: EventName[], action: () => void, delayMs = 250): void {
  const latest = useRef(action);
  latest.current = action;
  const key = events.join(',');
  useEffect(() => {
    let timer: number | undefined;
    const fire = () => {
      if (timer !== undefined) return;
      timer = window.setTimeout(() => {
        timer = undefined;
        latest.current();
      }, delayMs);
    };
    const offs = key.split(',').map((event) => on(event as EventName, fire));
    return () => {
      offs.forEach((off) => off());
      window.clearTimeout(timer);
    };
  }, [key, delayMs]);
}

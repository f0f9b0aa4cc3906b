/**
 * A screen page (MCP Apps) for the browser tests that notes everything the
 * host tells it, in order — a bare JSON-RPC page (no SDK), so what it saw is
 * exactly what Airlock sent: the `ui/initialize` answer (the host context),
 * then each notification with its params. Served by the screen fixture
 * server (`test/fixtures/screens/screen-fixture.mjs --html FILE`).
 *
 * From the test, in the screen's own frame: `seen(frame)` reads what it was
 * told; `ask(frame, method, params)` makes a request of the host and waits
 * for its answer — an answer also proves that everything the host sent
 * before it has arrived (messages keep their order), so it is the barrier a
 * "nothing was sent" check waits on.
 */
import type { Frame } from 'playwright-core';

export const RECORDER_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>recorder</title></head>
<body><p id="mark">recorder screen</p><pre id="log"></pre>
<script>
  let next = 1;
  const waiting = new Map();
  window.seen = [];
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (!data || data.jsonrpc !== '2.0') return;
    if (data.method === undefined && data.id !== undefined && waiting.has(data.id)) { waiting.get(data.id)(data); waiting.delete(data.id); return; }
    if (typeof data.method !== 'string') return;
    window.seen.push({ method: data.method, params: data.params ?? {} });
    document.getElementById('log').textContent += data.method + '\\n';
    // Requests of the host (a teardown) are answered, so it is never kept waiting.
    if (data.id !== undefined) parent.postMessage({ jsonrpc: '2.0', id: data.id, result: {} }, '*');
  });
  window.rpc = (method, params) => new Promise((resolve) => { const id = next++; waiting.set(id, resolve); parent.postMessage({ jsonrpc: '2.0', id, method, params }, '*'); });
  window.notify = (method, params) => parent.postMessage({ jsonrpc: '2.0', method, params }, '*');
  rpc('ui/initialize', { appInfo: { name: 'recorder', version: '1' }, appCapabilities: { availableDisplayModes: ['inline', 'fullscreen'] }, protocolVersion: '2026-01-26' }).then((answer) => {
    window.initial = answer.result;
    notify('ui/notifications/initialized', {});
    document.body.dataset.ready = '1';
  });
</script></body></html>`;

/** One thing the host told the screen. */
export interface Told {
  method: string;
  params: Record<string, unknown>;
}

/** What the recorder page was told so far, in order. */
export function seen(frame: Frame): Promise<Told[]> {
  return frame.evaluate(() => (window as unknown as { seen: Told[] }).seen);
}

/** The host context the screen got in answer to `ui/initialize`. */
export function initialContext(frame: Frame): Promise<Record<string, unknown>> {
  return frame.evaluate(() => ((window as unknown as { initial: { hostContext: Record<string, unknown> } }).initial.hostContext));
}

/** A request from the screen to the host, and its answer (JSON-RPC: `result` or `error`). */
export function ask(frame: Frame, method: string, params: unknown = {}): Promise<{ result?: Record<string, unknown>; error?: { message: string } }> {
  return frame.evaluate(([m, p]) => (window as unknown as { rpc: (m: string, p: unknown) => Promise<{ result?: Record<string, unknown>; error?: { message: string } }> }).rpc(m, p), [method, params] as const);
}

/** A notification from the screen to the host. */
export function tell(frame: Frame, method: string, params: unknown = {}): Promise<void> {
  return frame.evaluate(([m, p]) => (window as unknown as { notify: (m: string, p: unknown) => void }).notify(m, p), [method, params] as const);
}

/** Whether the recorder page has finished its handshake. */
export function ready(frame: Frame): Promise<boolean> {
  return frame.evaluate(() => document.body?.dataset.ready === '1').catch(() => false);
}

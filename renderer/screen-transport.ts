/**
 * The postMessage transport between Airlock's window and one screen frame,
 * for the official `AppBridge`. Unlike the SDK's `PostMessageTransport`
 * (which posts to `*` and checks only the source window), it is bound to the
 * frame's origin both ways: a message is taken only from that frame's window
 * *and* its origin (Airlock's relay page on the server's screen origin), and
 * sent only to that origin — if the frame were ever somewhere else, nothing
 * of the conversation would reach it.
 */
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

export class FrameTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #listener = (event: MessageEvent) => {
    if (event.source !== this.frame.contentWindow || event.origin !== this.origin) return;
    const parsed = JSONRPCMessageSchema.safeParse(event.data);
    if (parsed.success) this.onmessage?.(parsed.data);
    else this.onerror?.(new Error('The screen sent a message that is not JSON-RPC.'));
  };

  constructor(
    private readonly frame: HTMLIFrameElement,
    private readonly origin: string,
  ) {}

  async start(): Promise<void> {
    window.addEventListener('message', this.#listener);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.frame.contentWindow?.postMessage(message, this.origin);
  }

  async close(): Promise<void> {
    window.removeEventListener('message', this.#listener);
    this.onclose?.();
  }
}

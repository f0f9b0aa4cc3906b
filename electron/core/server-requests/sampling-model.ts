import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Airlock's own model, for a server's sampling request when no gateway client
 * that can sample is waiting on that server. The built-in agent implements it
 * and the shell passes it to the host (`HostOptions.samplingModel`); without
 * one, such a request is refused with a message that says so.
 *
 * It is called only after the policy and, when needed, a person approved the
 * exact params it gets (Invariant 1 in reverse); `signal` aborts when the
 * server withdraws its request or the person cancels.
 */
export interface SamplingModel {
  createMessage(params: CreateMessageRequest['params'], options: { signal?: AbortSignal }): Promise<CreateMessageResult>;
  /** False while it cannot answer (no model chosen): the request is then refused at once, saying so. Absent: always. */
  available?(): boolean;
}

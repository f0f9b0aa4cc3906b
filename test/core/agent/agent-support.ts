/**
 * A real host (real servers in the real sandbox) with a provider pointing at
 * the scripted model server, and helpers to run a turn and watch it.
 */
import type { ChatUpdate, ConversationView, ProviderKind, TurnStatus } from '../../../shared/chat';
import type { ConfirmationView } from '../../../shared/views';
import { ModelServer } from '../../fixtures/model-server/model-server';
import { createTestHost, type TestHost } from '../host/host-support';

export const TEST_KEY = 'sk-test-scripted-key';

export interface AgentHarness extends TestHost {
  model: ModelServer;
  /** Adds (or replaces) the scripted provider of a wire format and makes its model the default. */
  useProvider(kind: ProviderKind, model?: string): string;
  /** Sends a message in a new (or given) conversation and waits for the turn to end. */
  turn(text: string, id?: string): Promise<{ id: string; outcome: string | undefined; view: ConversationView }>;
  updates(id: string): ChatUpdate['event'][];
  statuses(id: string): TurnStatus[];
  /** Confirmations opened while the test ran. */
  opened: ConfirmationView[];
}

export async function createAgentHarness(options: Parameters<typeof createTestHost>[0] = {}): Promise<AgentHarness> {
  const t = await createTestHost(options);
  const model = await ModelServer.start({ apiKey: TEST_KEY, models: ['claude-sonnet-4-5', 'scripted-model'] });
  const opened: ConfirmationView[] = [];
  t.host.confirmations.onDidOpen(() => {
    for (const view of t.host.approvals.pending()) if (!opened.some((seen) => seen.id === view.id)) opened.push(view);
  });
  const updates = (id: string) =>
    t.events.filter((entry) => entry.event === 'chat.didUpdate' && (entry.payload as ChatUpdate).conversationId === id).map((entry) => (entry.payload as ChatUpdate).event);
  return {
    ...t,
    model,
    opened,
    useProvider(kind, name = 'claude-sonnet-4-5') {
      for (const provider of t.host.agent.models.providers()) t.host.agent.removeProvider(provider.id);
      const provider = t.host.agent.addProvider({ kind, label: `Scripted ${kind}`, baseUrl: model.baseUrl, apiKey: TEST_KEY });
      t.host.agent.setDefaultModel({ provider: provider.id, model: name });
      return provider.id;
    },
    async turn(text, given) {
      const id = given ?? t.host.agent.create().id;
      await t.host.agent.send(id, { text });
      const outcome = await t.host.agent.whenIdle(id);
      return { id, outcome, view: t.host.agent.get(id) };
    },
    updates,
    statuses: (id) => updates(id).flatMap((event) => (event.type === 'status' ? [event.status] : [])),
    async close() {
      await model.close();
      await t.close();
    },
  };
}

/** Waits until the host holds a confirmation, and returns it. */
export async function nextConfirmation(t: TestHost): Promise<ConfirmationView> {
  for (let i = 0; i < 400; i += 1) {
    const pending = t.host.approvals.pending();
    if (pending.length) return pending[0]!;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no confirmation opened');
}

/** Polls until `check` is true (for things that happen on another process's schedule). */
export async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

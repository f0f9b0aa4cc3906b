import { Supervisor, type SupervisedServer, type SupervisorOptions } from '../../../../electron/core/servers/supervisor';
import type { ServerState } from '../../../../shared/domain';
import { PassThroughLauncher } from './pass-through-launcher';

/** A supervisor over a fixed set of servers with the pass-through launcher, recording state changes. */
export function makeSupervisor(servers: Record<string, SupervisedServer>, options: Partial<SupervisorOptions> = {}) {
  const launcher = new PassThroughLauncher();
  const supervisor = new Supervisor({
    launcher,
    catalog: { lookup: (name) => servers[name] },
    connection: { shutdown: { graceMs: 300, termMs: 300, killMs: 1000 }, initializeTimeoutMs: 10_000 },
    ...options,
  });
  const states: Record<string, ServerState[]> = {};
  supervisor.onDidChangeState((change) => (states[change.server] ??= []).push(change.state));
  return { supervisor, launcher, states };
}

/** Resolves when `server` reaches `state`. */
export function waitForState(supervisor: Supervisor, server: string, state: ServerState, timeoutMs = 10_000): Promise<void> {
  if (supervisor.state(server) === state) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`${server} did not reach ${state} (is ${supervisor.state(server)})`));
    }, timeoutMs);
    const subscription = supervisor.onDidChangeState((change) => {
      if (change.server === server && change.state === state) {
        clearTimeout(timer);
        subscription.dispose();
        resolve();
      }
    });
  });
}

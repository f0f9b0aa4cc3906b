/**
 * The real core behind the gateway, for the tests that must count what
 * reaches a server: a real AirlockHost — its pipeline, policy,
 * confirmations and audit log — with the log-witness fixture in the real
 * sandbox, which records every call that reaches it in a file read from
 * outside. Its `wipe` tool has a deny rule; `read` and `write` ask (the
 * server is untrusted and not contained: it writes its records).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatewayCore } from '../../../../electron/core/gateway/gateway-core';
import { createTestHost, fixture, type TestHost } from '../../host/host-support';
import type { Arrival } from '../../calls/support/witnessed-host';

export interface WitnessCore {
  t: TestHost;
  core: GatewayCore;
  /** What reached the server, in order. */
  arrivals(): Arrival[];
  /** Answers the next confirmation as a person in the window would (polls until one opens). */
  answerNext(choice: 'allow-once' | 'deny'): Promise<void>;
  close(): Promise<void>;
}

export async function createWitnessCore(): Promise<WitnessCore> {
  const t = await createTestHost({ confirmationTimeoutMs: 10_000 });
  const records = t.folder('witness-records');
  await t.add('witness', [process.execPath, fixture('calls/log-witness.mjs'), records], {
    profile: { filesystem: { read: [], write: [records], persistentData: false } },
  });
  const wipe = t.host.supervisor.tools.lookup('witness', 'wipe')!;
  t.host.policy.saveRule({ server: 'witness', tool: 'wipe', fingerprint: wipe.fingerprint, effect: 'deny', createdAt: new Date().toISOString() });
  const file = join(records, 'arrivals');
  return {
    t,
    core: t.host.gateway.core(),
    arrivals: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Arrival) : []),
    async answerNext(choice) {
      for (let i = 0; i < 400; i += 1) {
        const open = t.host.approvals.pending()[0];
        if (open) {
          const answered = t.host.approvals.answer(open.id, { choice }, { shell: 'test' });
          if (!answered.accepted) throw new Error(`answer refused: ${answered.reason}`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('no confirmation opened');
    },
    close: () => t.close(),
  };
}

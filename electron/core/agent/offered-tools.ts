/**
 * The tools the agent may be offered: the enabled servers' current tools
 * (starting those not running), each with Airlock's reading of its claims.
 * What the model is offered decides nothing: every call it makes still goes
 * through the call pipeline.
 */
import type { ServerRecord } from '../../../shared/domain';
import { readTool } from '../policy/annotations';
import { usableAnnotations } from '../claims/claim-state';
import type { Supervisor } from '../servers/supervisor';
import type { AgentTool } from './model-tools';

export async function offeredTools(records: readonly ServerRecord[], supervisor: Pick<Supervisor, 'state' | 'start' | 'tools'>, servers: readonly string[] | null): Promise<AgentTool[]> {
  const chosen = records.filter((record) => record.enabled && (servers === null || servers.includes(record.name)));
  await Promise.allSettled(chosen.filter((record) => supervisor.state(record.name) !== 'ready').map((record) => supervisor.start(record.name)));
  return chosen.flatMap((record) =>
    (supervisor.tools.get(record.name)?.tools ?? []).map((tool) => {
      // A tool whose claims are withdrawn (it did what they say it does not) is offered as claiming nothing.
      const reading = readTool(usableAnnotations(record, tool.definition.name, tool.definition.annotations));
      return { server: record.name, definition: tool.definition, serverTrusted: record.trusted, openWorld: reading.openWorld, readOnly: reading.toolClass === 'read-only' };
    }),
  );
}

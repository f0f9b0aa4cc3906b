/**
 * How the host wires the call pipeline: what each call is decided on (the
 * store as the organisation's policy reads it, the live tool listing, the
 * code pins, the sandbox), how it reaches the server (the supervisor), where
 * "always" answers are saved (the rules room), and who can be asked. The
 * rooms it reads are bound late (`rooms()`), like the host's parts.
 */
import type { ServerRecord } from '../../../shared/domain';
import type { AppRoom } from '../app/app-room';
import type { ConfirmationRegistry, SessionGrants } from '../approvals';
import type { AuditLog } from '../audit';
import type { AuditRoom } from '../audit/audit-room';
import { actorOfShell } from '../audit/change-record';
import type { CodePins } from '../code-pins';
import { WINDOW_SHELL } from '../ipc/shell-identity';
import type { ManagedPolicyRoom } from '../managed-policy/managed-policy-room';
import { serverSecretValues, type ServerSecretsDeps } from '../redaction/server-secrets';
import type { PolicyRoom } from '../rules/policy-room';
import type { ServerControlRoom } from '../server-control/server-control-room';
import type { Supervisor } from '../servers/supervisor';
import type { CallPipelineDeps } from './call-pipeline';
import { CallsRoom } from './calls-room';

/** What the pipeline is wired to. */
export interface CallsWiring {
  state: CallPipelineDeps['state'];
  lookupTool: CallPipelineDeps['lookupTool'];
  ensureReady: CallPipelineDeps['ensureReady'];
  record(name: string): ServerRecord;
  sessionGrants: SessionGrants;
  audit: AuditLog;
  secretsOf: ServerSecretsDeps;
  /** True when a shell of this process can ask now (the shell's hook). */
  canAsk?: ((origin?: string) => boolean) | undefined;
}

/** The rooms the pipeline reads. */
export interface CallsRooms {
  readonly confirmations: ConfirmationRegistry;
  readonly organisation: Pick<ManagedPolicyRoom, 'callFacts' | 'revision'>;
  readonly supervisor: Pick<Supervisor, 'toolsSettled' | 'callTool' | 'state' | 'tools'>;
  readonly policy: Pick<PolicyRoom, 'saveRule'>;
  readonly app: Pick<AppRoom, 'sandbox'>;
  readonly codePins: Pick<CodePins, 'check'>;
  readonly activity: Pick<AuditRoom, 'appendNotices' | 'outcomeNotRecorded'>;
  readonly servers: Pick<ServerControlRoom, 'unavailable'>;
  /** Told which calls run, so what a server does meanwhile is set against their claims. */
  readonly claims: { observer: NonNullable<CallPipelineDeps['observer']> };
}

export function composeCalls(wiring: CallsWiring, rooms: () => CallsRooms): CallsRoom {
  const { secretsOf } = wiring;
  return new CallsRoom({
    record: wiring.record,
    pipeline: {
      state: wiring.state,
      lookupTool: wiring.lookupTool,
      ensureReady: wiring.ensureReady,
      sessionGrants: wiring.sessionGrants,
      audit: wiring.audit,
      organisation: { facts: (record) => rooms().organisation.callFacts(record), revision: () => rooms().organisation.revision },
      toolsSettled: (server) => rooms().supervisor.toolsSettled(server),
      secretValues: (server, known) => serverSecretValues(secretsOf, server, known),
      callServer: (server, tool, args, callOptions) => rooms().supervisor.callTool(server, tool, args, callOptions),
      saveRule: (rule, answeredIn) => rooms().policy.saveRule(rule, actorOfShell(answeredIn), 'confirmation'),
      confirmations: rooms().confirmations,
      sandboxAvailable: () => rooms().app.sandbox.supported,
      codeChange: (server, known) => rooms().codePins.check(server, known.provenance, 'call'),
      // A call that came through no shell of its own (the agent, the app's own HTTP gateway) can only be asked in the window.
      canAsk: (origin) => wiring.canAsk?.(origin ?? WINDOW_SHELL.origin) ?? false,
      now: () => Date.now(),
      onDidAppend: rooms().activity.appendNotices,
      onAuditError: (message) => rooms().activity.outcomeNotRecorded(message),
      whyUnavailable: (server) => rooms().servers.unavailable(server)?.message,
      observer: rooms().claims.observer,
      // The tools a running server offers now, for a "did you mean …?" when a name is mistyped.
      toolNames: (server) => (rooms().supervisor.state(server) === 'ready' ? rooms().supervisor.tools.get(server)?.tools.map((tool) => tool.name) : undefined),
    },
  });
}

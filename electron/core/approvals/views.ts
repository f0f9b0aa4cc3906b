import { callerLabel } from '../../../shared/domain';
import type { ConfirmationView } from '../../../shared/views';
import { toDiffView, toReadingView } from '../policy/views';
import { renderCall } from './call-rendering';
import type { ConfirmationRequest } from './confirmation-registry';

export { callerLabel };

/**
 * Verb, object, consequence — built by Airlock from its reading, the
 * declared arguments and the caller, never from the server's description
 * (UX.md 1): "Claude Desktop wants to run files › write_file on path
 * /home/me/notes.md — it may delete or overwrite things." See `renderCall`.
 */
export function confirmationHeadline(request: ConfirmationRequest): string {
  return renderCall(request).headline;
}

/** The renderer's view of a pending confirmation (`ConfirmationViewSchema`), from the one rendering of the call. */
export function toConfirmationView(request: ConfirmationRequest): ConfirmationView {
  const rendering = renderCall(request);
  return {
    id: request.id,
    headline: rendering.headline,
    consequence: rendering.consequence,
    targets: rendering.targets.map((target) => ({ key: target.key, values: [...target.values] })),
    argumentList: rendering.arguments.map((argument) => ({
      key: argument.key,
      value: structuredClone(argument.value),
      declared: argument.declared,
      target: argument.target,
    })),
    restatement: rendering.restatement,
    caller: { ...request.caller },
    callerLabel: callerLabel(request.caller),
    server: request.server,
    serverTrusted: request.serverTrusted,
    serverSandboxed: !request.sandbox.unsandboxed && request.sandbox.remote === undefined,
    ...(request.sandbox.remote ? { serverRemote: { ...request.sandbox.remote } } : {}),
    sandboxSummary: request.sandbox.line,
    tool: request.tool,
    ...(request.title !== undefined ? { toolTitle: request.title } : {}),
    ...(request.description !== undefined ? { toolDescription: request.description } : {}),
    inputSchema: structuredClone(request.inputSchema),
    arguments: structuredClone(request.arguments),
    ...(request.claimedAnnotations ? { claimed: { ...request.claimedAnnotations } } : {}),
    reading: toReadingView(request.reading, request.claimedAnnotations),
    reasons: [...request.reasons],
    destructive: request.confirmationKind === 'destructive',
    ...(request.alwaysForbidden ? { alwaysForbidden: request.alwaysForbidden } : {}),
    ...(request.changes ? { changes: toDiffView(request.changes) } : {}),
    deadline: request.deadline,
    createdAt: request.openedAt,
  };
}

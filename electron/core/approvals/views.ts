import { callerLabel } from '../../../shared/domain';
import type { ConfirmationView } from '../../../shared/views';
import { toDiffView, toReadingView } from '../policy/views';
import type { ConfirmationRequest } from './confirmation-registry';

export { callerLabel };

const TARGET_KEYS = ['path', 'file', 'filename', 'filePath', 'file_path', 'target', 'destination', 'url', 'uri', 'name'];

/**
 * Verb, object, consequence — built by Airlock from its reading, the
 * arguments and the caller, never from the server's description (UX.md 1):
 * "Claude Desktop wants to run files › write_file on /home/me/notes.md — it
 * may delete or overwrite things."
 */
export function confirmationHeadline(request: ConfirmationRequest): string {
  const who = request.caller.kind === 'user' || request.caller.kind === 'cli' ? 'You are about' : `${callerLabel(request.caller)} wants`;
  let target = '';
  for (const key of TARGET_KEYS) {
    const v = request.arguments[key];
    if (typeof v === 'string' && v.length > 0) {
      target = ` on ${v.length > 120 ? `${v.slice(0, 119)}…` : v}`;
      break;
    }
  }
  const consequence =
    request.reading.toolClass === 'destructive'
      ? 'it may delete or overwrite things'
      : request.reading.toolClass === 'changes-things'
        ? 'it may change things'
        : request.serverTrusted
          ? 'it only reads'
          : 'it says it only reads';
  return `${who} to run ${request.server} › ${request.tool}${target} — ${consequence}.`;
}

/** The renderer's view of a pending confirmation (`ConfirmationViewSchema`). */
export function toConfirmationView(request: ConfirmationRequest): ConfirmationView {
  return {
    id: request.id,
    headline: confirmationHeadline(request),
    caller: { ...request.caller },
    callerLabel: callerLabel(request.caller),
    server: request.server,
    serverTrusted: request.serverTrusted,
    serverSandboxed: !request.sandbox.unsandboxed,
    sandboxSummary: request.sandbox.line,
    tool: request.tool,
    ...(request.title !== undefined ? { toolTitle: request.title } : {}),
    ...(request.description !== undefined ? { toolDescription: request.description } : {}),
    inputSchema: structuredClone(request.inputSchema) as Record<string, unknown>,
    arguments: structuredClone(request.arguments) as Record<string, unknown>,
    ...(request.claimedAnnotations ? { claimed: { ...request.claimedAnnotations } } : {}),
    reading: toReadingView(request.reading, request.claimedAnnotations),
    reasons: [...request.reasons],
    destructive: request.confirmationKind === 'destructive',
    ...(request.changes ? { changes: toDiffView(request.changes) } : {}),
    deadline: request.deadline,
    createdAt: request.openedAt,
  };
}

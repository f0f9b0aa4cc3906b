/**
 * One audit entry as one OpenTelemetry log record: a short body, the
 * MCP/GenAI semantic conventions where they fit (`mcp.method.name`,
 * `gen_ai.tool.name`, `gen_ai.operation.name`, `mcp.session.id`,
 * `error.type`) and `airlock.*` for the rest — among them the entry's
 * sequence number, its hash and the previous entry's hash, so a collector
 * can check each machine's chain for gaps and edits.
 *
 * The entry is the one read back from the log after it was written, so its
 * arguments are redacted exactly as the log holds them; nothing here sees a
 * value the log does not.
 */
import type { LogAttributes, SeverityNumber } from '@opentelemetry/api-logs';

// OpenTelemetry's severity numbers (api-logs' SeverityNumber), written out so that reading the audit
// log's records does not load the OpenTelemetry libraries (they are loaded only to send them).
const SEVERITY = { INFO: 9, INFO2: 10, WARN: 13 } as const satisfies Record<string, SeverityNumber>;
const SEVERITY_TEXT: Record<number, string> = { 9: 'INFO', 10: 'INFO2', 13: 'WARN' };

/** What the exporter emits for one entry. */
export interface AuditLogRecord {
  timestamp: Date;
  severityNumber: SeverityNumber;
  severityText: string;
  body: string;
  eventName: string;
  attributes: LogAttributes;
}

type Entry = Record<string, unknown> & { seq: number; type: string; hash: string; prevHash: string; time: string };

const text = (value: unknown, max = 4096): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null) ?? '').slice(0, max);

/** The log record for an audit entry (any type; unknown types keep the chain fields). */
export function toLogRecord(entry: Entry): AuditLogRecord {
  const attributes: LogAttributes = {
    'airlock.seq': entry.seq,
    'airlock.hash': entry.hash,
    'airlock.prev_hash': entry.prevHash,
    'airlock.entry.type': entry.type,
    ...(typeof entry.v === 'number' ? { 'airlock.entry.version': entry.v } : {}),
    ...(typeof entry.server === 'string' && entry.server ? { 'airlock.server': entry.server } : {}),
    ...(typeof entry.callId === 'string' && entry.callId ? { 'airlock.call.id': entry.callId } : {}),
    ...(typeof entry.session === 'string' ? { 'airlock.session': entry.session, 'mcp.session.id': entry.session } : {}),
  };
  let severity: SeverityNumber = SEVERITY.INFO;
  let body = `${entry.type} #${entry.seq}`;
  switch (entry.type) {
    case 'decision': {
      const caller = (entry.caller ?? {}) as Record<string, unknown>;
      const answer = (entry.answer ?? undefined) as Record<string, unknown> | undefined;
      Object.assign(attributes, {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': text(entry.tool, 512),
        'airlock.caller.kind': text(caller.kind, 32),
        ...(typeof caller.name === 'string' ? { 'airlock.caller.name': caller.name.slice(0, 200) } : {}),
        ...(typeof caller.model === 'string' ? { 'airlock.caller.model': caller.model.slice(0, 200), 'gen_ai.request.model': caller.model.slice(0, 200) } : {}),
        ...(typeof caller.provider === 'string' ? { 'airlock.caller.provider': caller.provider.slice(0, 100) } : {}),
        'airlock.decision': text(entry.verdict, 16),
        'airlock.final': text(entry.final, 16),
        ...(typeof entry.decidedBy === 'string' ? { 'airlock.decided_by': entry.decidedBy } : {}),
        ...(answer && typeof answer.how === 'string' ? { 'airlock.answer.how': answer.how } : {}),
        ...(answer && typeof answer.by === 'string' ? { 'airlock.answer.by': answer.by } : {}),
        ...(answer && answer.edited === true ? { 'airlock.answer.edited': true } : {}),
        'airlock.reasons': Array.isArray(entry.reasons) ? entry.reasons.map((reason) => text(reason, 1000)) : [],
        'airlock.arguments': text(entry.arguments, 16_384),
        ...(typeof entry.argumentsDigest === 'string' ? { 'airlock.arguments.sha256': entry.argumentsDigest } : {}),
        ...(Array.isArray(entry.redacted) && entry.redacted.length > 0 ? { 'airlock.arguments.redacted': entry.redacted.map((path) => text(path, 500)) } : {}),
        ...(typeof entry.fingerprint === 'string' ? { 'airlock.tool.fingerprint': entry.fingerprint } : {}),
        ...(entry.rule ? { 'airlock.rule': text(entry.rule, 1000) } : {}),
        ...(typeof entry.remote === 'string' ? { 'airlock.remote.url': entry.remote } : {}),
      });
      if (entry.final === 'deny') severity = SEVERITY.WARN;
      body = `${text(entry.server, 100)} › ${text(entry.tool, 200)}: ${entry.final === 'allow' ? 'allowed' : 'denied'} (${text(entry.verdict, 16)}${typeof entry.decidedBy === 'string' ? `, ${entry.decidedBy}` : ''})`;
      break;
    }
    case 'outcome': {
      Object.assign(attributes, {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': text(entry.tool, 512),
        'airlock.outcome': text(entry.outcome, 32),
        ...(typeof entry.durationMs === 'number' ? { 'airlock.duration_ms': entry.durationMs } : {}),
        ...(typeof entry.detail === 'string' ? { 'airlock.detail': entry.detail.slice(0, 1000) } : {}),
        ...(entry.recovered === true ? { 'airlock.recovered': true } : {}),
        ...(entry.outcome !== 'ok' ? { 'error.type': text(entry.outcome, 32) } : {}),
      });
      if (entry.outcome !== 'ok') severity = entry.outcome === 'unknown' ? SEVERITY.WARN : SEVERITY.INFO2;
      body = `${text(entry.server, 100)} › ${text(entry.tool, 200)}: ${text(entry.outcome, 32)}`;
      break;
    }
    case 'network': {
      Object.assign(attributes, {
        'airlock.network.host': text(entry.host, 300),
        'airlock.network.port': typeof entry.port === 'number' ? entry.port : 0,
        'airlock.decision': text(entry.decision, 16),
        'airlock.decided_by': text(entry.decidedBy, 32),
        'airlock.network.reason': text(entry.reason, 200),
        ...(typeof entry.answeredBy === 'string' ? { 'airlock.answer.by': entry.answeredBy } : {}),
        ...(typeof entry.repeats === 'number' ? { 'airlock.network.repeats': entry.repeats } : {}),
      });
      if (entry.decision === 'deny') severity = SEVERITY.WARN;
      body = `${text(entry.server, 100)} → ${text(entry.host, 300)}:${String(entry.port)}: ${entry.decision === 'allow' ? 'allowed' : 'denied'}`;
      break;
    }
    case 'change': {
      Object.assign(attributes, {
        'airlock.change.kind': text(entry.change, 64),
        'airlock.change.by': text(entry.by, 32),
        ...(typeof entry.via === 'string' ? { 'airlock.change.via': entry.via } : {}),
        ...(typeof entry.tool === 'string' && entry.tool ? { 'gen_ai.tool.name': entry.tool } : {}),
        'airlock.change.lines': Array.isArray(entry.changes) ? entry.changes.map((line) => text(line, 500)) : [],
      });
      body = `change by ${text(entry.by, 32)}: ${text(entry.change, 64)}${typeof entry.server === 'string' && entry.server ? ` (${entry.server})` : ''}`;
      break;
    }
    case 'server-request': {
      const methods: Record<string, string> = { sampling: 'sampling/createMessage', elicitation: 'elicitation/create', roots: 'roots/list' };
      Object.assign(attributes, {
        ...(typeof entry.kind === 'string' && methods[entry.kind] ? { 'mcp.method.name': methods[entry.kind] } : {}),
        'airlock.request.kind': text(entry.kind, 32),
        'airlock.request.stage': text(entry.stage, 16),
        ...(typeof entry.verdict === 'string' ? { 'airlock.decision': entry.verdict } : {}),
        ...(typeof entry.final === 'string' ? { 'airlock.final': entry.final } : {}),
        ...(typeof entry.decidedBy === 'string' ? { 'airlock.decided_by': entry.decidedBy } : {}),
        ...(typeof entry.outcome === 'string' ? { 'airlock.outcome': entry.outcome } : {}),
        ...(Array.isArray(entry.reasons) ? { 'airlock.reasons': entry.reasons.map((reason) => text(reason, 1000)) } : {}),
      });
      if (entry.final === 'deny') severity = SEVERITY.WARN;
      body = `${text(entry.server, 100)} asks ${text(entry.kind, 32)}: ${text(entry.stage, 16)} ${text(entry.final ?? entry.outcome ?? '', 32)}`.trim();
      break;
    }
    case 'claims-contradicted': {
      const evidence = Array.isArray(entry.evidence) ? entry.evidence : [];
      Object.assign(attributes, {
        'gen_ai.tool.name': text(entry.tool, 512),
        'airlock.claims': Array.isArray(entry.claims) ? entry.claims.map((claim) => text(claim, 32)) : [],
        'airlock.claims.effect': text(entry.effect, 32),
        'airlock.claims.evidence': evidence.map((item) => `${text(item.did, 16)} ${text(item.target, 500)} (${text(item.claim, 32)})`),
      });
      severity = SEVERITY.WARN;
      body = `${text(entry.server, 100)} › ${text(entry.tool, 200)}: did what its claims say it does not (${text(entry.effect, 32)})`;
      break;
    }
    case 'repair':
    case 'anchor': {
      Object.assign(attributes, {
        ...(typeof entry.finding === 'string' ? { 'airlock.anchor.finding': entry.finding } : {}),
        ...(typeof entry.detail === 'string' ? { 'airlock.detail': entry.detail.slice(0, 1000) } : {}),
        ...(typeof entry.damagedLine === 'number' ? { 'airlock.repair.line': entry.damagedLine } : {}),
      });
      severity = SEVERITY.WARN;
      body = entry.type === 'anchor' ? `audit log anchor: ${text(entry.finding, 64)}` : 'audit log repaired a damaged line';
      break;
    }
    default:
      break;
  }
  const parsedTime = Date.parse(entry.time);
  return {
    timestamp: Number.isNaN(parsedTime) ? new Date(0) : new Date(parsedTime),
    severityNumber: severity,
    severityText: SEVERITY_TEXT[severity] ?? 'INFO',
    body,
    eventName: `airlock.audit.${entry.type}`,
    attributes,
  };
}

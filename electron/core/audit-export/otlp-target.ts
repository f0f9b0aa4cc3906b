/**
 * Where the audit log is streamed, and who said so. Precedence, highest
 * first: the organisation's managed policy (`audit.otlp`, locked), the
 * person's setting (Settings, `airlock settings audit-export`), then the
 * standard OpenTelemetry environment variables:
 * `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT` (used as it is) or
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/logs` added),
 * `OTEL_EXPORTER_OTLP_[LOGS_]HEADERS` (`key=value,…`, URL-encoded) and
 * `OTEL_EXPORTER_OTLP_[LOGS_]PROTOCOL` (`http/protobuf` or `http/json`).
 */
import type { OtlpProtocol, OtlpTarget } from '../managed-policy/policy-schema';

/** A resolved export target. */
export interface ExportTarget {
  from: 'policy' | 'settings' | 'environment';
  /** The full logs URL. */
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
}

/** The person's setting, as the store keeps it (header values live in the secret store). */
export interface ExportSetting {
  enabled: boolean;
  endpoint?: string;
  protocol?: OtlpProtocol;
  headerNames?: string[];
}

/** Why there is no target now: a problem with the environment's values, or (`paused`) an organisation policy that cannot be read. */
export interface NoTarget {
  problem: string;
  /** True when nothing may be sent anywhere until the policy is fixed (see ManagedPolicyRoom.exportPaused). */
  paused?: true;
}

/** The target in force, or a reason there is none, or undefined when nothing is configured. */
export function resolveTarget(input: {
  /** Set while the organisation's policy cannot be read: nothing is sent, whoever configured a collector. */
  paused?: string | undefined;
  policy: OtlpTarget | undefined;
  setting: ExportSetting | undefined;
  settingHeaders: () => Record<string, string>;
  env: Readonly<Record<string, string | undefined>>;
}): ExportTarget | NoTarget | undefined {
  // SECURITY: fails closed — an unreadable policy may name a collector; sending to another one meanwhile could leak the log.
  if (input.paused !== undefined) return { problem: input.paused, paused: true };
  if (input.policy) {
    return { from: 'policy', url: logsUrl(input.policy.endpoint), protocol: input.policy.protocol ?? 'http/protobuf', headers: { ...(input.policy.headers ?? {}) } };
  }
  if (input.setting) {
    if (!input.setting.enabled || !input.setting.endpoint) return undefined;
    return { from: 'settings', url: logsUrl(input.setting.endpoint), protocol: input.setting.protocol ?? 'http/protobuf', headers: input.settingHeaders() };
  }
  const env = input.env;
  const specific = env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT?.trim();
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!specific && !general) return undefined;
  const protocol = (env.OTEL_EXPORTER_OTLP_LOGS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    return { problem: `OTEL_EXPORTER_OTLP_PROTOCOL is ${protocol}; Airlock sends OTLP over HTTP: set http/protobuf or http/json` };
  }
  let url: string;
  try {
    url = specific ? new URL(specific).href : new URL(`${general!.replace(/\/+$/, '')}/v1/logs`).href;
  } catch {
    return { problem: `the OpenTelemetry endpoint ${specific ?? general} is not a URL` };
  }
  return { from: 'environment', url, protocol, headers: { ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseHeaders(env.OTEL_EXPORTER_OTLP_LOGS_HEADERS) } };
}

/** A collector's base URL with `/v1/logs` added, unless it already names the logs path. */
export function logsUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!/\/v1\/logs\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/logs`;
  return url.href;
}

/** `key=value,key2=value2` (URL-encoded), as the OpenTelemetry specification writes headers in the environment. */
export function parseHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      const name = decodeURIComponent(pair.slice(0, at).trim());
      if (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) out[name] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // A pair that is not URL-encoded properly is left out (the specification says to ignore it).
    }
  }
  return out;
}

/**
 * An OTLP/HTTP logs receiver on loopback for the tests: it decodes each
 * request with OpenTelemetry's own protocol definitions (the .proto files of
 * open-telemetry/opentelemetry-proto, in test/fixtures/otlp-proto, loaded
 * with protobufjs) — protobuf bodies as the binary encoding, JSON bodies
 * through the same message type — never by matching strings. It can be
 * stopped and started again on the same port (an outage).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import protobuf from 'protobufjs';

const PROTO_ROOT = resolve(import.meta.dirname, '../fixtures/otlp-proto');

/** One log record as received: its resource's and its own attributes, flattened to plain values. */
export interface ReceivedRecord {
  resource: Record<string, unknown>;
  scope: { name: string; version?: string };
  attributes: Record<string, unknown>;
  body: unknown;
  severityText?: string;
  severityNumber?: string;
  eventName?: string;
  timeUnixNano: number;
}

export interface ReceivedRequest {
  contentType: string;
  headers: IncomingMessage['headers'];
  records: ReceivedRecord[];
}

let requestType: protobuf.Type | undefined;
async function exportRequestType(): Promise<protobuf.Type> {
  if (requestType) return requestType;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith('opentelemetry/') ? join(PROTO_ROOT, target) : target);
  await root.load('opentelemetry/proto/collector/logs/v1/logs_service.proto', { keepCase: false });
  requestType = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
  return requestType;
}

/** An AnyValue as a plain value. */
function anyValue(value: Record<string, unknown> | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value) return ((value.arrayValue as { values?: Array<Record<string, unknown>> }).values ?? []).map(anyValue);
  if ('kvlistValue' in value) return attributes((value.kvlistValue as { values?: unknown[] }).values as never);
  return undefined;
}

function attributes(list: Array<{ key: string; value: Record<string, unknown> }> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of list ?? []) out[item.key] = anyValue(item.value);
  return out;
}

/** Decodes an ExportLogsServiceRequest (protobuf or JSON) into records. */
export async function decodeExportRequest(body: Buffer, contentType: string): Promise<ReceivedRecord[]> {
  const type = await exportRequestType();
  const message = contentType.includes('json') ? type.fromObject(JSON.parse(body.toString('utf8')) as Record<string, unknown>) : type.decode(body);
  const object = type.toObject(message, { longs: String, enums: String, defaults: false, oneofs: false }) as {
    resourceLogs?: Array<{ resource?: { attributes?: never }; scopeLogs?: Array<{ scope?: { name: string; version?: string }; logRecords?: Array<Record<string, unknown>> }> }>;
  };
  const out: ReceivedRecord[] = [];
  for (const resourceLogs of object.resourceLogs ?? []) {
    const resource = attributes(resourceLogs.resource?.attributes);
    for (const scopeLogs of resourceLogs.scopeLogs ?? []) {
      for (const record of scopeLogs.logRecords ?? []) {
        out.push({
          resource,
          scope: scopeLogs.scope ?? { name: '' },
          attributes: attributes(record.attributes as never),
          body: anyValue(record.body as never),
          ...(typeof record.severityText === 'string' ? { severityText: record.severityText } : {}),
          ...(typeof record.severityNumber === 'string' ? { severityNumber: record.severityNumber } : {}),
          ...(typeof record.eventName === 'string' ? { eventName: record.eventName } : {}),
          timeUnixNano: Number(record.timeUnixNano ?? 0),
        });
      }
    }
  }
  return out;
}

export class OtlpReceiver {
  readonly requests: ReceivedRequest[] = [];
  #server: Server | undefined;
  #port = 0;
  /** Answer with this status instead of 200 (e.g. 503), while set. */
  failWith: number | undefined;

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  get records(): ReceivedRecord[] {
    return this.requests.flatMap((request) => request.records);
  }

  /** The sequence numbers received, sorted, without repeats. */
  seqs(): number[] {
    return [...new Set(this.records.map((record) => Number(record.attributes['airlock.seq'])))].sort((a, b) => a - b);
  }

  async start(port = this.#port): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url !== '/v1/logs' || request.method !== 'POST') {
          response.writeHead(404).end();
          return;
        }
        if (this.failWith) {
          response.writeHead(this.failWith).end();
          return;
        }
        const contentType = String(request.headers['content-type'] ?? '');
        decodeExportRequest(Buffer.concat(chunks), contentType).then(
          (records) => {
            this.requests.push({ contentType, headers: request.headers, records });
            if (contentType.includes('json')) response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
            else response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(Buffer.alloc(0));
          },
          (error: unknown) => response.writeHead(400).end(String(error)),
        );
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stops listening and drops open connections (the collector is down). */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

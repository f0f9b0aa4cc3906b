/**
 * A remote server as an install source: the URL and headers a person gave
 * (`airlock add NAME --url … --header …`, an imported `url` entry) read into
 * an {@link InstallCandidate}. One job: read and check, send nothing — the
 * disclosure comes before any request reaches the server.
 *
 * Invariant guarded (SECURITY.md rules 9–10): a URL Airlock will not use
 * (http off this computer, a link-local or reserved address, credentials in
 * it) is refused here with its reason; a header's literal value is moved
 * into the secret store (the spec keeps `${secret.NAME}`), so the settings
 * file never holds it.
 */
import { isIP } from 'node:net';
import type { RemoteHeader, RemoteTransport } from '../../../shared/domain';
import { HeaderNameSchema } from '../../../shared/domain';
import { readRemoteUrl, zoneWords, type AddressZone } from '../remote/address';
import { secretsInHeaders } from '../remote/remote-connector';
import { zoneOfHost, type Resolve } from '../remote/safe-fetch';
import type { InstallCandidate, SecretRequest } from './candidate';

/** What a person (or an imported entry) gave for a remote server. */
export interface RemoteSourceInput {
  url: string;
  /** As given: `Name: value` pairs; a value may be a literal (sealed as a secret) or hold `${secret.NAME}`. */
  headers?: ReadonlyArray<{ name: string; value: string }>;
  transport?: RemoteTransport;
  /**
   * The OAuth client the person registered at the server's sign-in service, for a service that does
   * not let apps register themselves: its id, and its secret when it has one (sealed like a header value).
   */
  oauthClient?: { id: string; secret?: string };
  /** A name to suggest (an imported entry's). */
  name?: string;
}

/** The secret a pre-registered OAuth client's secret is sealed as (the connector reads it under this name). */
export const OAUTH_CLIENT_SECRET = 'OAUTH_CLIENT_SECRET';

/** A candidate for a remote server, the secrets its headers carried (to be sealed), and its zone. */
export interface RemoteCandidate {
  candidate: InstallCandidate;
  secretValues: Record<string, string>;
  zone: AddressZone;
}

/** The secret a literal header value is sealed as: HEADER_ plus the header's name (X-Api-Key → HEADER_X_API_KEY). */
export function headerSecretName(header: string): string {
  return `HEADER_${header.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '')}`.slice(0, 64);
}

/** A server name from a host: mcp.example.com → mcp-example-com. */
function nameFromHost(host: string): string {
  const base = host
    .toLowerCase()
    .replace(/^www\./, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return /^[a-z]/.test(base) ? base : `remote-${base || 'server'}`.slice(0, 40);
}

/** Reads a remote source; throws an Error saying what is wrong (nothing sent, nothing saved). */
export async function prepareRemote(input: RemoteSourceInput, options: { resolve?: Resolve } = {}): Promise<RemoteCandidate> {
  const reading = readRemoteUrl(input.url);
  if (reading.problem) throw new Error(reading.problem);
  const warnings = [...reading.warnings];

  // Where the name points now (a DNS question, nothing sent to the server): a server is never
  // reached in a zone more private than this, whatever it later names.
  let zone: AddressZone;
  const bare = reading.asciiHost.replace(/^\[|\]$/g, '');
  if (reading.loopback) zone = 'loopback';
  else if (isIP(bare) !== 0 && (reading.literalZone === 'private' || reading.literalZone === 'public')) zone = reading.literalZone;
  else {
    let found;
    try {
      found = await zoneOfHost(reading.asciiHost, options.resolve);
    } catch (error) {
      // Not found now (offline, a name only a VPN knows): read as the internet, the strictest zone —
      // nothing the server names may then be private or this computer. Inspection says if it stays unreachable.
      warnings.push(`${reading.asciiHost} cannot be found right now (DNS: ${(error as { code?: string }).code ?? (error as Error).message}); Airlock treats it as a server on the internet.`);
    }
    if (found && (found.zone === 'link-local' || found.zone === 'reserved')) throw new Error(`${reading.asciiHost} resolves to ${found.addresses.join(', ')}, ${zoneWords(found.zone)}; Airlock does not connect there.`);
    zone = found ? (found.zone as AddressZone) : 'public';
    if (found && zone !== 'public') warnings.push(`${reading.asciiHost} resolves to ${found.addresses.join(', ')}, ${zoneWords(zone)}.`);
  }

  const headers: RemoteHeader[] = [];
  const secretValues: Record<string, string> = {};
  const seen = new Set<string>();
  for (const given of input.headers ?? []) {
    const name = given.name.trim();
    const parsed = HeaderNameSchema.safeParse(name);
    if (!parsed.success) throw new Error(`“${name.slice(0, 80)}” is not a header name (letters, digits and -, e.g. X-Api-Key).`);
    if (seen.has(name.toLowerCase())) throw new Error(`The header ${name} is given twice.`);
    seen.add(name.toLowerCase());
    if (/^(host|content-length|content-type|mcp-session-id|mcp-protocol-version|connection|transfer-encoding)$/i.test(name)) throw new Error(`Airlock sets ${name} itself; it cannot be given as a header.`);
    if (/[\r\n\0]/.test(given.value)) throw new Error(`The value of ${name} contains a line break.`);
    if (/\$\{secret\.[A-Za-z_][A-Za-z0-9_]*\}/.test(given.value)) {
      headers.push({ name, value: given.value });
    } else {
      // SECURITY: rule 10 — a literal value may be a key: sealed in the secret store, never in settings.
      const secret = headerSecretName(name);
      secretValues[secret] = given.value;
      headers.push({ name, value: `\${secret.${secret}}` });
    }
  }
  const client = readOAuthClient(input.oauthClient, headers);
  if (client?.secret !== undefined) secretValues[OAUTH_CLIENT_SECRET] = client.secret;
  const secrets: SecretRequest[] = secretsInHeaders(headers).map((secret) => ({
    name: secret,
    description: `sent in the header ${headers.filter((header) => header.value.includes(`\${secret.${secret}}`)).map((header) => header.name).join(', ')}, to ${reading.asciiHost} only`,
    required: true,
    from: 'remote-header',
  }));

  if (client?.secret !== undefined) {
    secrets.push({ name: OAUTH_CLIENT_SECRET, description: `the secret of the OAuth client ${client.id}, sent only to the sign-in service ${reading.asciiHost} names (never to the server itself)`, required: true, from: 'oauth-client' });
  }
  const transport = input.transport ?? 'auto';
  warnings.unshift(`Runs on ${reading.host}${reading.port ? `:${reading.port}` : ''}, not on your computer: no sandbox is around it; Airlock decides which calls reach it, and reads every tool of it as reaching outside your machine.`);
  if (headers.length) warnings.push(`Sends with every request to ${reading.asciiHost}: ${headers.map((header) => header.name).join(', ')} (values sealed in Airlock’s secret store).`);
  if (client) warnings.push(`Signs in (OAuth) as the client you registered at its sign-in service, ${client.id}${client.secret !== undefined ? ' (its secret sealed in Airlock’s secret store)' : ''}: Airlock opens the sign-in page in your browser at inspection, on a port of 127.0.0.1 that changes each time (the service must accept any, as RFC 8252 asks); tokens are sealed in Airlock’s secret store.`);
  else if (!headers.some((header) => header.name.toLowerCase() === 'authorization')) warnings.push('If the server asks you to sign in (OAuth), Airlock opens its sign-in page in your browser at inspection; tokens are sealed in Airlock’s secret store.');
  return {
    zone,
    secretValues,
    candidate: {
      suggestedName: input.name ?? nameFromHost(reading.asciiHost),
      spec: { command: reading.href, args: [], env: {}, remote: { url: reading.href, transport, headers, ...(client ? { oauth: { clientId: client.id } } : {}) } },
      provenance: { kind: 'remote', url: reading.href, host: reading.asciiHost, transport: transport === 'sse' ? 'sse' : 'streamable-http', zone },
      requested: { env: [], secrets, userConfig: [] },
      profileHints: [],
      risks: [],
      warnings,
    },
  };
}

/** A pre-registered OAuth client as given, checked; throws saying what is wrong. */
function readOAuthClient(given: RemoteSourceInput['oauthClient'], headers: readonly RemoteHeader[]): { id: string; secret?: string } | undefined {
  if (!given) return undefined;
  const id = given.id.trim();
  if (id === '') throw new Error('The OAuth client id is empty: give the id the sign-in service showed when you registered the client, or leave it out.');
  if (id.length > 512 || /[\s\u0000-\u001f\u007f]/.test(id)) throw new Error('The OAuth client id has spaces or control characters in it; copy it again from the sign-in service.');
  if (headers.some((header) => header.name.toLowerCase() === 'authorization')) {
    throw new Error('An Authorization header and an OAuth client cannot both be given: the header replaces the sign-in. Keep one.');
  }
  const secret = given.secret;
  if (secret !== undefined && /[\r\n\0]/.test(secret)) throw new Error('The OAuth client secret contains a line break.');
  return { id, ...(secret !== undefined && secret !== '' ? { secret } : {}) };
}

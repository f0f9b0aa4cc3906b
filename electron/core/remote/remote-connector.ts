/**
 * How the supervisor reaches one remote server: the checked fetch bound to
 * the server's zone, its headers (secret parts filled from the secret store
 * at each request), its OAuth sign-in over a sealed vault, and the transport
 * opener. One job: compose those for a {@link RemoteConnector}; the parts
 * each guard their own invariant.
 *
 * Invariant guarded (SECURITY.md rules 9–10): a header's secret is filled in
 * only from the secrets granted to this server, only into requests to the
 * server's own origin; a header naming a secret that is not set stops the
 * connection before anything is sent.
 */
import type { RemoteSpec } from '../../../shared/domain';
import { ChannelError } from '../servers/connection-channel';
import type { ConnectionOptions, ServerConnection } from '../servers/server-connection';
import type { RemoteConnector } from '../servers/supervisor';
import { readRemoteUrl, type AddressZone } from './address';
import { authorizedFetch } from './authorized-fetch';
import { RemoteOAuth, type SignInBroker } from './oauth';
import type { OAuthVault } from './oauth-vault';
import { openRemoteConnection } from './remote-channel';
import { createSafeFetch, type Resolve } from './safe-fetch';

/** The `${secret.NAME}` parts of a header value. */
const SECRET_REF = /\$\{secret\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The secret names a header template uses. */
export function secretsInHeaders(headers: RemoteSpec['headers']): string[] {
  const names = new Set<string>();
  for (const header of headers) for (const match of header.value.matchAll(SECRET_REF)) names.add(match[1]!);
  return [...names].sort();
}

/**
 * The headers with their secret parts filled in. Throws a ChannelError
 * (nothing sent) when a named secret is not set or not granted.
 */
export function fillHeaders(label: string, headers: RemoteSpec['headers'], secrets: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const header of headers) {
    out[header.name] = header.value.replace(SECRET_REF, (_whole, name: string) => {
      const value = Object.prototype.hasOwnProperty.call(secrets, name) ? secrets[name] : undefined;
      if (value === undefined) throw new ChannelError(`${label}’s header ${header.name} needs the secret ${name}, which is not set: set it on the server’s page (or \`airlock secret set ${label} ${name}\`). Nothing was sent.`, 'sign-in', false);
      return value;
    });
    // A value with a line break would split into a second header: refused, never sent.
    if (/[\r\n\0]/.test(out[header.name]!)) throw new ChannelError(`${label}’s header ${header.name} contains a line break; Airlock does not send it.`, 'protocol', false);
  }
  return out;
}

/** The zone a URL is in without asking DNS: loopback names and IP literals are known; other names are read as the internet. */
export function zoneOfUrl(url: string): AddressZone {
  const reading = readRemoteUrl(url);
  if (reading.loopback) return 'loopback';
  if (reading.literalZone === 'private') return 'private';
  return 'public';
}

/** What one remote server's connector is built from. */
export interface RemoteConnectorOptions {
  /** The server's name (messages, the sign-in page's label). */
  label: string;
  spec: RemoteSpec;
  /** The zone recorded at inspection (else read from the URL). */
  zone?: AddressZone;
  /** The server's granted secrets, read at each request. */
  secrets: () => Readonly<Record<string, string>>;
  vault: OAuthVault;
  /** A person's sign-in, when one is at hand (adding the server, "Sign in"); absent for a background start. */
  broker?: SignInBroker;
  /** Tests: a resolver table, extra CAs. */
  resolve?: Resolve;
  ca?: string | string[];
  now?: () => number;
  signInTimeoutMs?: number;
}

/** A remote server's connector, and its sign-in (for its page: status, sign in, sign out). */
export interface RemoteLink extends RemoteConnector {
  readonly oauth: RemoteOAuth | undefined;
  /** Closes the checked fetch kept for the sign-in's own requests (revocation). */
  close(): Promise<void>;
}

/** Builds the connector the supervisor uses for one remote server. */
export function createRemoteConnector(options: RemoteConnectorOptions): RemoteLink {
  const url = new URL(options.spec.url);
  const zone = options.zone ?? zoneOfUrl(options.spec.url);
  const safeOptions = { zone, ...(options.resolve ? { resolve: options.resolve } : {}), ...(options.ca ? { ca: options.ca } : {}) };
  // The sign-in's own requests (discovery, registration, tokens, revocation) go through a fetch
  // without the server's headers: its API key never reaches an authorization server.
  const authFetch = createSafeFetch(safeOptions);
  const ownAuthorization = options.spec.headers.some((header) => header.name.toLowerCase() === 'authorization');
  const oauth = ownAuthorization
    ? undefined
    : new RemoteOAuth({
        label: options.label,
        serverUrl: url,
        zone,
        fetch: authFetch.fetch,
        vault: options.vault,
        ...(options.spec.oauth?.clientMetadataUrl ? { clientMetadataUrl: options.spec.oauth.clientMetadataUrl } : {}),
        ...(options.spec.oauth?.clientId ? { preRegistered: { clientId: options.spec.oauth.clientId, ...preRegisteredSecret(options.secrets()) } } : {}),
        ...(options.now ? { now: options.now } : {}),
        ...(options.signInTimeoutMs ? { signInTimeoutMs: options.signInTimeoutMs } : {}),
      });
  return {
    oauth,
    close: () => authFetch.close(),
    async open(connection: ConnectionOptions, signal: AbortSignal): Promise<ServerConnection> {
      // Fails before anything is sent when a header's secret is missing.
      fillHeaders(options.label, options.spec.headers, options.secrets());
      const transportFetch = createSafeFetch(safeOptions);
      const fetch = authorizedFetch({
        base: transportFetch.fetch,
        serverUrl: url,
        headers: () => fillHeaders(options.label, options.spec.headers, options.secrets()),
        ...(oauth ? { oauth } : {}),
        ...(options.broker ? { broker: options.broker } : {}),
        signal,
        note: (text) => connection.log?.push('airlock', text),
      });
      const { connection: opened } = await openRemoteConnection({
        url,
        wire: options.spec.transport,
        fetch,
        connection,
        signal,
        release: () => transportFetch.close(),
      });
      return opened;
    },
  };
}

/** A pre-registered client's secret, when the person set one (the secret named OAUTH_CLIENT_SECRET). */
function preRegisteredSecret(secrets: Readonly<Record<string, string>>): { clientSecret?: string } {
  const value = Object.prototype.hasOwnProperty.call(secrets, 'OAUTH_CLIENT_SECRET') ? secrets.OAUTH_CLIENT_SECRET : undefined;
  return value ? { clientSecret: value } : {};
}

/**
 * Signing in to one remote server with OAuth 2.1, as the MCP authorization
 * spec (2025-11-25) describes — through the SDK's client auth (`auth()`:
 * protected resource metadata, authorization server metadata in its OAuth
 * and OpenID variants, client ID metadata documents, dynamic registration,
 * PKCE, the `resource` parameter, refresh) rather than a flow of our own.
 * One job: give `auth()` a provider over Airlock's sealed vault, check what
 * the server and its authorization server say before anything is sent to
 * them, and run the browser step only when a person started it.
 *
 * Invariants guarded:
 * - SECURITY.md rule 9: every URL the server or its metadata names is
 *   checked (https, its zone, the authorization server's own origin) before
 *   `auth()` posts anything there; PKCE S256 is required.
 * - SECURITY.md rule 10: tokens and client secrets live only in the vault.
 * - The browser step happens only inside a sign-in a person started (the
 *   add flow, "Sign in"); a running server that needs one stops and says so.
 *
 * Kept as one file: the provider, its checks of every URL and the browser step
 * share one sign-in's state, and each check sits beside the step it guards.
 */
import { randomBytes } from 'node:crypto';
import type { auth as sdkAuth, OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ChannelError } from '../servers/connection-channel';
import { AddressRefused, checkSuppliedUrl, type AddressZone } from './address';
import type { OAuthBundle, OAuthVault } from './oauth-vault';
import { openRedirectListener, type RedirectListener } from './redirect-listener';
import type { SignOutOutcome } from '../../../shared/ipc';
import { messageOf } from '../errors';

/** Where a person signs in: the system browser, a URL printed on a terminal, a test's user agent. */
export interface SignInBroker {
  /**
   * Shows the sign-in page (`url`, the authorization server's) to the
   * person for the server named `label`, and records it as pending;
   * `cancel` ends the wait. Returns what to call when it is over.
   */
  begin(url: URL, label: string, cancel: (reason: string) => void): { end(): void };
}

/** A challenge the server sent: where its metadata is and the scopes it wants (RFC 6750, RFC 9728). */
export interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
  /** 403 insufficient_scope: a new authorization with more scopes, never a refresh. */
  stepUp?: boolean;
}

/** What the server's page shows about a sign-in. Never a token. */
export interface OAuthStatus {
  signedIn: boolean;
  /** The scopes granted (the token's), or asked for when the server did not say. */
  scopes?: string;
  /** Epoch ms; absent when the server did not say how long the token lasts. */
  expiresAt?: number;
  /** Whether Airlock can renew the token without the person (it holds a refresh token). */
  renewable: boolean;
  authorizationServer?: string;
  clientId?: string;
  /** The account, as the token itself says (a readable JWT's email, user name or subject), when it says. */
  account?: string;
  /** The server asked for more access than was granted (a 403 insufficient_scope): these scopes. */
  stepUpScope?: string;
}

/** What a {@link RemoteOAuth} is built from. */
export interface RemoteOAuthOptions {
  /** The server's name, for messages. */
  label: string;
  serverUrl: URL;
  /** The zone of the server's own address: nothing the server names may be more private. */
  zone: AddressZone;
  /** The checked fetch, without the server's headers (its API key never goes to an authorization server). */
  fetch: FetchLike;
  vault: OAuthVault;
  /** A client ID metadata document URL (https) Airlock identifies itself with where the authorization server supports it. */
  clientMetadataUrl?: string;
  /** A client registered beforehand by the person: its id, and its secret (sealed) if it has one. */
  preRegistered?: { clientId: string; clientSecret?: string };
  now?: () => number;
  /** How long a person has to finish signing in (default 5 min). */
  signInTimeoutMs?: number;
}

/** The sign-in in progress: the listener, the state Airlock sent, the PKCE verifier. */
interface Attempt {
  listener: RedirectListener;
  broker: SignInBroker;
  state?: string;
  verifier?: string;
  pending?: { end(): void };
  /**
   * The registered port was taken, so this attempt registers afresh: the new client is kept here and
   * saved only with the tokens it obtains — a sign-in cut short leaves the working one as it was.
   */
  fresh?: { client?: Record<string, unknown>; saved: boolean };
}

/** Scopes as a set, in order. */
function scopeUnion(...lists: Array<string | undefined>): string | undefined {
  const all = new Set<string>();
  for (const list of lists) for (const scope of (list ?? '').split(/\s+/)) if (scope) all.add(scope);
  return all.size ? [...all].join(' ') : undefined;
}

/** Two issuer URLs name the same authorization server (a trailing `/` apart). */
function sameIssuer(a: string, b: string): boolean {
  const norm = (value: string) => {
    try {
      return new URL(value).href.replace(/\/$/, '');
    } catch {
      return value.replace(/\/$/, '');
    }
  };
  return norm(a) === norm(b);
}

/** The account a token names about itself, if it is a readable JWT (shown as the token's claim, not verified). */
function accountOf(tokens: OAuthBundle['tokens']): string | undefined {
  for (const token of [tokens?.id_token, tokens?.access_token]) {
    const parts = token?.split('.');
    if (!parts || parts.length !== 3) continue;
    try {
      const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      for (const key of ['email', 'preferred_username', 'name', 'sub']) {
        const value = claims[key];
        if (typeof value === 'string' && value.length > 0) return value.slice(0, 200);
      }
    } catch {
      // not a JWT after all: no account to show
    }
  }
  return undefined;
}

/**
 * One remote server's sign-in. `auth()` does the protocol; this class is
 * the provider it asks, the checks before it sends, and the browser step.
 */
export class RemoteOAuth {
  private attempt: Attempt | undefined;
  private inflight: Promise<void> | undefined;
  /** What this run's discovery found (the issuer, where it revokes): recorded with the tokens it issues. */
  private discovered: { issuer: string; revocationEndpoint?: string; revocationAuthMethods?: string[] } | undefined;
  /** The last challenge the server sent (a later "Sign in" asks for the same): kept with the sign-in, so a restart keeps it. */
  private get lastChallenge(): Challenge | undefined {
    const kept = this.options.vault.load()?.challenge;
    if (!kept) return undefined;
    return { ...(kept.scope ? { scope: kept.scope } : {}), ...(kept.resourceMetadataUrl ? { resourceMetadataUrl: new URL(kept.resourceMetadataUrl) } : {}) };
  }
  private set lastChallenge(challenge: Challenge | undefined) {
    const { challenge: _old, ...rest } = this.options.vault.load() ?? { version: 1 as const };
    const kept = challenge ? { ...(challenge.scope ? { scope: challenge.scope } : {}), ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl.href } : {}) } : undefined;
    this.options.vault.save(kept && Object.keys(kept).length > 0 ? { ...rest, challenge: kept } : rest);
  }
  /** A 403 insufficient_scope not yet granted: the scopes it wants (kept with the sign-in, so the page can offer it after a restart). */
  private get stepUpScope(): string | undefined {
    return this.options.vault.load()?.stepUpScope;
  }
  private set stepUpScope(scope: string | undefined) {
    const { stepUpScope: _old, ...rest } = this.options.vault.load() ?? { version: 1 as const };
    this.options.vault.save(scope ? { ...rest, stepUpScope: scope } : rest);
  }
  /** While a step-up runs, refresh is not tried: it cannot add scopes. */
  private hideRefresh = false;
  private readonly now: () => number;
  readonly provider: OAuthClientProvider;

  /**
   * The fetch one `auth()` run gets. Every address it asks for — the
   * server's metadata, the sign-in service it names, registration, tokens —
   * passes `checkSuppliedUrl` before anything is sent; and the sign-in
   * services a protected resource metadata document names are checked as it
   * arrives, before `auth()` reads them (the SDK asks for their metadata at
   * the service's origin, dropping a `user:password@` part, so the address
   * as named is checked here).
   * SECURITY: rule 9 — `auth()` fetches the named service's metadata before
   * it hands Airlock what it discovered (`saveDiscoveryState`): the check
   * there comes too late for the first request, this one comes first. A
   * refusal is final for the run (the SDK swallows a failed resource
   * metadata fetch and would try the server's own origin instead), and is an
   * AddressRefused, which the SDK passes on (a TypeError it takes for CORS).
   */
  private checkedFetch(): FetchLike {
    let refused: AddressRefused | undefined;
    const metadataUrl = this.lastChallenge?.resourceMetadataUrl?.href;
    return async (input, init) => {
      if (refused) throw refused;
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : String((input as { url?: unknown }).url ?? input);
      try {
        checkSuppliedUrl(url, this.options.zone, 'An address the sign-in named');
      } catch (error) {
        if (error instanceof AddressRefused) refused = error;
        throw error;
      }
      const answer = await this.options.fetch(input, init);
      const path = new URL(url).pathname;
      if (answer.ok && (path.startsWith('/.well-known/oauth-protected-resource') || url === metadataUrl)) {
        let named: unknown;
        try {
          named = ((await answer.clone().json()) as { authorization_servers?: unknown } | null)?.authorization_servers;
        } catch {
          // Not JSON: the SDK reports it (its schema check); nothing here is named.
        }
        for (const service of Array.isArray(named) ? named : []) {
          try {
            checkSuppliedUrl(String(service), this.options.zone, 'The sign-in service the server named');
          } catch (error) {
            await answer.body?.cancel();
            if (error instanceof AddressRefused) refused = error;
            throw error;
          }
        }
      }
      return answer;
    };
  }

  constructor(private readonly options: RemoteOAuthOptions) {
    this.now = options.now ?? Date.now;
    this.provider = this.makeProvider();
  }

  /** The bearer token to send now, if signed in. */
  accessToken(): string | undefined {
    return this.options.vault.load()?.tokens?.access_token;
  }

  status(): OAuthStatus {
    const bundle = this.options.vault.load();
    const tokens = bundle?.tokens;
    const clientId = typeof bundle?.client?.client_id === 'string' ? bundle.client.client_id : this.options.preRegistered?.clientId;
    const account = accountOf(tokens);
    const scopes = tokens?.scope ?? bundle?.requestedScope;
    return {
      signedIn: tokens !== undefined,
      ...(scopes ? { scopes } : {}),
      ...(tokens?.expires_in !== undefined && bundle?.obtainedAt !== undefined ? { expiresAt: bundle.obtainedAt + tokens.expires_in * 1000 } : {}),
      renewable: tokens?.refresh_token !== undefined,
      ...(bundle?.authorizationServer ? { authorizationServer: bundle.authorizationServer } : {}),
      ...(clientId ? { clientId } : {}),
      ...(account ? { account } : {}),
      ...(this.stepUpScope ? { stepUpScope: this.stepUpScope } : {}),
    };
  }

  /**
   * Answers the server's challenge (a 401, or a 403 insufficient_scope):
   * refresh when Airlock can, else — only with a `broker`, a person's
   * sign-in — the browser step. Without one, a sign-in that needs the
   * person throws ChannelError `sign-in` (or `step-up`) saying so. Runs
   * one at a time; a caller that arrives meanwhile waits for it.
   */
  async authorize(challenge: Challenge, broker: SignInBroker | undefined, signal?: AbortSignal): Promise<void> {
    if (this.inflight) {
      await this.inflight.catch(() => undefined); // A refresh that failed is reported to its own caller; this only waits for it to end.
      if (!challenge.stepUp && this.accessToken()) return;
    }
    const run = this.authorizeNow(challenge, broker, signal);
    this.inflight = run;
    try {
      await run;
    } finally {
      if (this.inflight === run) this.inflight = undefined;
    }
  }

  /** A sign-in the person started ("Sign in", "Grant more access"): asks for the last challenge's scopes and any step-up. */
  async signIn(broker: SignInBroker, signal?: AbortSignal): Promise<void> {
    const scope = scopeUnion(this.lastChallenge?.scope, this.stepUpScope ? scopeUnion(this.grantedScope(), this.stepUpScope) : undefined);
    await this.authorize({ ...this.lastChallenge, ...(scope ? { scope } : {}), stepUp: true }, broker, signal);
  }

  /**
   * Signs out: asks the authorization server to revoke the refresh and
   * access tokens where it offers revocation (RFC 7009), then deletes them
   * here whatever it answered. The client registration is kept. `signal`
   * bounds the revocation requests (removal does not wait on a slow server).
   */
  async signOut(signal?: AbortSignal): Promise<SignOutOutcome> {
    const bundle = this.options.vault.load();
    const tokens = bundle?.tokens;
    let revoked: SignOutOutcome['revoked'] = 'not-offered';
    let detail: string | undefined;
    if (tokens && bundle?.revocationEndpoint) {
      try {
        const endpoint = checkSuppliedUrl(bundle.revocationEndpoint, this.options.zone, 'The revocation endpoint');
        // SECURITY: tokens go only to the sign-in service that issued them.
        const issuer = tokens.issuer ?? bundle.authorizationServer;
        if (!issuer || new URL(issuer).origin !== endpoint.origin) {
          throw new Error(`its revocation address (${endpoint.origin}) is not at the sign-in service that issued the tokens (${issuer ? new URL(issuer).origin : 'unknown'}); Airlock sent them nowhere`);
        }
        // The client the tokens were issued to, as the sign-in saved it (the SDK saves a client registered by hand too).
        const client = bundle.client as { client_id?: string; client_secret?: string } | undefined;
        // RFC 7009 §2.1: authenticated as at the token endpoint — in the body when that is all it takes, else Basic (the default).
        const inBody = bundle.revocationAuthMethods?.includes('client_secret_post') === true && !bundle.revocationAuthMethods.includes('client_secret_basic');
        for (const [token, hint] of [
          [tokens.refresh_token, 'refresh_token'],
          [tokens.access_token, 'access_token'],
        ] as const) {
          if (!token) continue;
          const body = new URLSearchParams({ token, token_type_hint: hint });
          const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
          if (client?.client_secret && client.client_id && !inBody) headers.set('authorization', `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`);
          else if (client?.client_id) {
            body.set('client_id', client.client_id);
            if (client.client_secret) body.set('client_secret', client.client_secret);
          }
          const answer = await this.options.fetch(endpoint, { method: 'POST', headers, body, ...(signal ? { signal } : {}) });
          await answer.body?.cancel();
          if (!answer.ok) throw new Error(`it answered ${answer.status}`);
        }
        revoked = 'yes';
      } catch (error) {
        revoked = 'failed';
        detail = messageOf(error);
      }
    }
    // SECURITY: rule 10 — the local tokens go whatever the server said.
    if (bundle) {
      const { tokens: _tokens, obtainedAt: _at, ...rest } = bundle;
      this.options.vault.save(rest);
    }
    this.stepUpScope = undefined;
    return { revoked, ...(detail ? { detail } : {}) };
  }

  private grantedScope(): string | undefined {
    const bundle = this.options.vault.load();
    return bundle?.tokens?.scope ?? bundle?.requestedScope;
  }

  private async authorizeNow(challenge: Challenge, broker: SignInBroker | undefined, signal: AbortSignal | undefined): Promise<void> {
    if (challenge.resourceMetadataUrl) checkSuppliedUrl(challenge.resourceMetadataUrl.href, this.options.zone, 'The metadata address the server named');
    this.lastChallenge = { ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}), ...(challenge.scope ? { scope: challenge.scope } : {}) };
    // Step-up keeps what was granted and adds what the server now asks for.
    const scope = challenge.stepUp ? scopeUnion(this.grantedScope(), challenge.scope) : challenge.scope;
    if (challenge.stepUp && challenge.scope) this.stepUpScope = challenge.scope;
    const bundle = this.options.vault.load();
    const canRefresh = !challenge.stepUp && bundle?.tokens?.refresh_token !== undefined;
    if (!broker && !canRefresh) {
      // Nothing Airlock can do alone: say so before registering or sending anything.
      throw this.needsPerson(challenge.stepUp === true, scope);
    }
    let listener: RedirectListener | undefined;
    if (broker) {
      const registered = registeredRedirects(bundle?.client);
      listener = await openRedirectListener({
        expectedState: () => this.attempt?.state,
        preferredPorts: registered.flatMap((address) => loopbackCallbackPort(address) ?? []),
        ...(this.options.signInTimeoutMs ? { timeoutMs: this.options.signInTimeoutMs } : {}),
      });
      // The registered port was taken: register again with this one (a server may match addresses exactly).
      const fresh = bundle?.client && registered.length > 0 && !registered.includes(listener.redirectUrl) ? { saved: false } : undefined;
      this.attempt = { listener, broker, ...(fresh ? { fresh } : {}) };
    }
    const onAbort = () => listener?.close('The sign-in was cancelled; nothing was saved.');
    signal?.addEventListener('abort', onAbort, { once: true });
    this.hideRefresh = challenge.stepUp === true;
    try {
      const params = { serverUrl: this.options.serverUrl, ...(this.lastChallenge?.resourceMetadataUrl ? { resourceMetadataUrl: this.lastChallenge.resourceMetadataUrl } : {}), ...(scope ? { scope } : {}), fetchFn: this.checkedFetch() };
      let result = await this.runAuth(params);
      if (result === 'REDIRECT') {
        if (!listener) throw this.needsPerson(challenge.stepUp === true, scope);
        const code = await listener.code;
        this.hideRefresh = false;
        result = await this.runAuth({ ...params, authorizationCode: code });
      }
      if (result !== 'AUTHORIZED') throw new ChannelError(`Signing in to ${this.options.label} did not complete.`, 'sign-in', false);
      const saved = this.options.vault.load();
      if (saved) this.options.vault.save({ ...saved, ...(scope ? { requestedScope: scope } : {}) });
      if (challenge.stepUp) this.stepUpScope = undefined;
    } finally {
      this.hideRefresh = false;
      signal?.removeEventListener('abort', onAbort);
      this.attempt?.pending?.end();
      listener?.close();
      this.attempt = undefined;
    }
  }

  /** Runs the SDK's `auth()`, its errors told in Airlock's words. */
  private async runAuth(params: Parameters<typeof sdkAuth>[1]): Promise<'AUTHORIZED' | 'REDIRECT'> {
    try {
      // Loaded at the first sign-in, not when Airlock starts.
      const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
      return await auth(this.provider, params);
    } catch (error) {
      throw this.authError(error);
    }
  }

  private needsPerson(stepUp: boolean, scope: string | undefined): ChannelError {
    return stepUp
      ? new ChannelError(`${this.options.label} needs more access than you granted${scope ? ` (${scope})` : ''}: sign in again to grant it (Grant more access on its page, or \`airlock signin ${this.options.label}\`).`, 'step-up', false)
      : new ChannelError(`${this.options.label} needs you to sign in${this.accessToken() ? ' again (its sign-in expired and could not be renewed)' : ''}: use Sign in on its page, or \`airlock signin ${this.options.label}\`.`, 'sign-in', false);
  }

  /** What went wrong in `auth()`, in words; ChannelErrors and refusals pass through. */
  private authError(error: unknown): Error {
    if (error instanceof ChannelError) return error;
    if (error instanceof AddressRefused) return new ChannelError(error.message, 'address-refused', false, { cause: error });
    const name = (error as { name?: string } | null)?.name ?? '';
    const message = messageOf(error);
    if (name === 'ZodError' || /invalid_type|Invalid input|expected/i.test(message)) {
      return new ChannelError(`The sign-in server answered with something that is not what OAuth expects (${summariseZod(message)}); nothing was saved.`, 'protocol', false, { cause: error });
    }
    const before = this.options.vault.load()?.authorizationServer;
    const now = this.discovered?.issuer;
    if (before && now && !sameIssuer(before, now)) {
      // The server names another sign-in service than the one that issued Airlock's sign-in: said, not followed silently.
      return new ChannelError(
        `${this.options.label} now sends you to another sign-in service (${originOf(now)}) than the one you signed in at (${originOf(before)}). Airlock sent it nothing of your sign-in; if you trust the change, remove the server and add it again.`,
        'sign-in',
        false,
        { cause: error },
      );
    }
    if (/does not support dynamic client registration/i.test(message)) {
      return new ChannelError(
        `${this.options.label}'s sign-in service does not let apps register themselves. To sign in, register an OAuth client there yourself (its redirect address: http://127.0.0.1/callback; the service must accept any port there, as RFC 8252 asks — Airlock's changes each time), then add the server again with that client's id (and secret, if it has one): Sign-in client on Add a server, or --client-id with \`airlock add\`. Nothing was saved.`,
        'sign-in',
        false,
        { cause: error },
      );
    }
    if ((name === 'InvalidClientError' || name === 'UnauthorizedClientError' || /invalid_client|unauthorized_client|Invalid client/i.test(message)) && this.options.preRegistered) {
      return new ChannelError(`${this.options.label}'s sign-in service refused the client ${this.options.preRegistered.clientId} (${message.slice(0, 200)}): check the client id and secret you registered there. Nothing was saved.`, 'sign-in', false, { cause: error });
    }
    if (/JSON/.test(message) && /Unexpected token|not valid JSON/i.test(message)) {
      return new ChannelError(`The sign-in server answered with something that is not JSON (a web page?); nothing was saved.`, 'protocol', false, { cause: error });
    }
    if (/does not match expected/.test(message)) {
      return new ChannelError(`The server’s metadata names another resource than the address you gave (${message}); Airlock does not send a sign-in meant for it.`, 'address-refused', false, { cause: error });
    }
    if (/Redirect .*not followed/.test(message)) return new ChannelError(`The sign-in server redirected elsewhere: ${message}.`, 'address-refused', false, { cause: error });
    return new ChannelError(`Signing in to ${this.options.label} failed: ${message.slice(0, 500)}`, 'sign-in', false, { cause: error });
  }

  /**
   * Checks what discovery found before `auth()` uses it: the authorization
   * server's address, that its metadata is its own (issuer) and that its
   * endpoints are on its own origin, that it supports PKCE with S256.
   * SECURITY: rule 9 — a throw here stops `auth()` before it registers or
   * sends a code, a secret or a token anywhere.
   */
  private checkDiscovery(state: OAuthDiscoveryState): void {
    const zone = this.options.zone;
    const issuerUrl = checkSuppliedUrl(state.authorizationServerUrl, zone, 'The authorization server the server named');
    const metadata = state.authorizationServerMetadata as Record<string, unknown> | undefined;
    if (!metadata) {
      throw new ChannelError(`${issuerUrl.host} publishes no authorization server metadata, so Airlock cannot check that it supports PKCE (S256); it does not sign in there.`, 'protocol', false);
    }
    const issuer = typeof metadata.issuer === 'string' ? metadata.issuer : '';
    if (!sameIssuer(issuer, state.authorizationServerUrl)) {
      throw new ChannelError(`The authorization server metadata fetched from ${issuerUrl.href} says it is ${issuer || 'nobody'}: a metadata document must describe its own server (RFC 8414); Airlock does not use it.`, 'address-refused', false);
    }
    for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint']) {
      const value = metadata[key];
      if (value === undefined) continue;
      const endpoint = checkSuppliedUrl(String(value), zone, `Its ${key.replace(/_/g, ' ')}`);
      if (endpoint.origin !== issuerUrl.origin) {
        throw new ChannelError(`The authorization server ${issuerUrl.origin} names its ${key.replace(/_/g, ' ')} at another origin (${endpoint.origin}); Airlock sends codes and tokens only to the authorization server itself.`, 'address-refused', false);
      }
    }
    const methods = metadata.code_challenge_methods_supported;
    if (!Array.isArray(methods) || !methods.includes('S256')) {
      throw new ChannelError(`${issuerUrl.host} does not say it supports PKCE with S256 (code_challenge_methods_supported), which the MCP spec requires; Airlock does not sign in there.`, 'protocol', false);
    }
    // Kept for the tokens this run may save: where they are revoked is recorded with them, never before
    // (SECURITY: a server that later names another authorization server cannot redirect revocation there).
    this.discovered = {
      issuer,
      ...(typeof metadata.revocation_endpoint === 'string' ? { revocationEndpoint: metadata.revocation_endpoint } : {}),
      ...authMethods(metadata.revocation_endpoint_auth_methods_supported ?? metadata.token_endpoint_auth_methods_supported),
    };
  }

  /** The authorization server and revocation details to record with tokens it issued (from this run's discovery). */
  private issuedBy(tokens: OAuthTokens): Pick<OAuthBundle, 'authorizationServer' | 'revocationEndpoint' | 'revocationAuthMethods'> {
    const found = this.discovered;
    const issuer = tokens.issuer ?? found?.issuer;
    if (!found || (issuer && !sameIssuer(found.issuer, issuer))) return issuer ? { authorizationServer: issuer } : {};
    return {
      authorizationServer: found.issuer,
      ...(found.revocationEndpoint ? { revocationEndpoint: found.revocationEndpoint } : {}),
      ...(found.revocationAuthMethods ? { revocationAuthMethods: found.revocationAuthMethods } : {}),
    };
  }

  private makeProvider(): OAuthClientProvider {
    const oauth = this;
    const options = this.options;
    const vault = options.vault;
    const update = (change: (bundle: OAuthBundle) => OAuthBundle) => vault.save(change(vault.load() ?? { version: 1 }));
    return {
      get redirectUrl() {
        return oauth.attempt?.listener.redirectUrl ?? 'http://127.0.0.1/callback';
      },
      get clientMetadata(): OAuthClientMetadata {
        return {
          client_name: 'Airlock',
          redirect_uris: [oauth.attempt?.listener.redirectUrl ?? 'http://127.0.0.1/callback'],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          // RFC 8252: a native app on a loopback redirect (any port).
          application_type: 'native',
        } as OAuthClientMetadata;
      },
      ...(options.clientMetadataUrl ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
      state: () => {
        const state = randomBytes(24).toString('base64url');
        if (oauth.attempt) oauth.attempt.state = state;
        return state;
      },
      clientInformation: (): OAuthClientInformationMixed | undefined => {
        const fresh = oauth.attempt?.fresh;
        if (fresh && !fresh.saved) return fresh.client as OAuthClientInformationMixed | undefined;
        const bundle = vault.load();
        const stored = bundle?.client as OAuthClientInformationMixed | undefined;
        if (stored) return stored;
        const pre = options.preRegistered;
        // SECURITY: once used, a client registered by hand (and its secret) stays bound to that sign-in service: the SDK
        // discards a client stamped for another, so a server naming a new one cannot have the secret sent there.
        return pre ? ({ client_id: pre.clientId, ...(pre.clientSecret ? { client_secret: pre.clientSecret } : {}), ...(bundle?.clientIssuer ? { issuer: bundle.clientIssuer } : {}) }) : undefined;
      },
      saveClientInformation: (information) => {
        const fresh = oauth.attempt?.fresh;
        if (fresh && !fresh.saved) fresh.client = { ...information };
        else {
          const pre = options.preRegistered;
          const issuer = (information as { issuer?: unknown }).issuer;
          const bound = pre && information.client_id === pre.clientId && typeof issuer === 'string' ? { clientIssuer: issuer } : {};
          update((bundle) => ({ ...bundle, client: { ...information }, ...bound }));
        }
      },
      tokens: (): OAuthTokens | undefined => {
        const tokens = vault.load()?.tokens;
        if (!tokens) return undefined;
        if (oauth.hideRefresh) {
          const { refresh_token: _r, ...rest } = tokens;
          return rest;
        }
        return tokens;
      },
      saveTokens: (tokens) => {
        // Tokens from a client registered afresh in this attempt: that client is saved with them, replacing the old one.
        const fresh = oauth.attempt?.fresh;
        const client = fresh && !fresh.saved && fresh.client ? { client: fresh.client } : {};
        if (fresh) fresh.saved = true;
        update(({ authorizationServer: _as, revocationEndpoint: _re, revocationAuthMethods: _rm, ...bundle }) => ({ ...bundle, ...client, tokens: { ...tokens }, obtainedAt: oauth.now(), ...oauth.issuedBy(tokens) }));
      },
      redirectToAuthorization: async (authorizationUrl) => {
        const attempt = oauth.attempt;
        if (!attempt) throw oauth.needsPerson(oauth.hideRefresh, undefined);
        // The page the person is sent to is the authorization server's own endpoint, checked at discovery; checked again here.
        checkSuppliedUrl(authorizationUrl.href, options.zone, 'The sign-in page');
        attempt.pending = attempt.broker.begin(authorizationUrl, options.label, (reason) => attempt.listener.close(reason));
      },
      saveCodeVerifier: (verifier) => {
        if (oauth.attempt) oauth.attempt.verifier = verifier;
      },
      codeVerifier: () => {
        const verifier = oauth.attempt?.verifier;
        if (!verifier) throw new Error('No sign-in is in progress');
        return verifier;
      },
      invalidateCredentials: (scope) => {
        if (scope === 'all') update(({ client: _c, tokens: _t, obtainedAt: _o, ...rest }) => rest);
        else if (scope === 'client') update(({ client: _c, ...rest }) => rest);
        else if (scope === 'tokens') update(({ tokens: _t, obtainedAt: _o, ...rest }) => rest);
        else if (scope === 'verifier' && oauth.attempt) oauth.attempt.verifier = undefined;
      },
      saveDiscoveryState: (state) => oauth.checkDiscovery(state),
      discoveryState: () => undefined,
    };
  }
}

/** The first few problems of a zod error message, shortened. */
function summariseZod(message: string): string {
  try {
    const issues = JSON.parse(message) as Array<{ path?: unknown[]; message?: string }>;
    if (Array.isArray(issues)) return issues.slice(0, 3).map((issue) => `${(issue.path ?? []).join('.') || 'the answer'}: ${issue.message ?? 'invalid'}`).join('; ');
  } catch {
    // not a JSON list of issues
  }
  return message.slice(0, 200);
}

/** The redirect addresses a stored client registration carries (none for a pre-registered or metadata-document client). */
function registeredRedirects(client: Record<string, unknown> | undefined): string[] {
  const uris = client?.redirect_uris;
  return Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === 'string') : [];
}

/** The port of Airlock's own loopback callback address (`http://127.0.0.1:PORT/callback`), else undefined. */
function loopbackCallbackPort(address: string): number | undefined {
  const match = /^http:\/\/127\.0\.0\.1:(\d{1,5})\/callback$/.exec(address);
  const port = match ? Number(match[1]) : NaN;
  return port > 0 && port < 65536 ? port : undefined;
}

/** The client authentication methods an authorization server lists, when it lists them. */
function authMethods(value: unknown): { revocationAuthMethods?: string[] } {
  if (!Array.isArray(value)) return {};
  const methods = value.filter((method): method is string => typeof method === 'string' && method.length <= 64).slice(0, 16);
  return { revocationAuthMethods: methods };
}

/** A URL's origin, or the text itself when it is not one. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

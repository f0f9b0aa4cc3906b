/**
 * Where one remote server's OAuth state is kept: the client registration,
 * the tokens and when they were obtained, the authorization server they
 * came from. One job: keep it sealed in Airlock's secret store (never the
 * settings file), or — for a server still being added — only in memory, so
 * a cancelled or failed add saves nothing.
 *
 * Invariant guarded (SECURITY.md rule 10): tokens and client secrets are
 * written only through the secret store, per server, and never leave the
 * core (views get the expiry, scopes and account, never a token).
 */
import { z } from 'zod';
import type { SecretStore } from '../secrets/secret-store';

/** Everything Airlock holds for one server's sign-in. */
export const OAuthBundleSchema = z.object({
  version: z.literal(1),
  /** As registered (or pre-registered, or a metadata-document URL as the id), stamped with its authorization server. */
  client: z.record(z.string(), z.unknown()).optional(),
  /** The sign-in service a client registered by hand was first used with: it stays bound there, even when `client` is dropped. */
  clientIssuer: z.string().max(2048).optional(),
  tokens: z
    .object({
      access_token: z.string(),
      token_type: z.string(),
      expires_in: z.number().optional(),
      scope: z.string().optional(),
      refresh_token: z.string().optional(),
      id_token: z.string().optional(),
      issuer: z.string().optional(),
    })
    .optional(),
  /** When the tokens were obtained (epoch ms): with `expires_in`, when they expire. */
  obtainedAt: z.number().optional(),
  /** The authorization server the tokens came from (its issuer URL). */
  authorizationServer: z.string().optional(),
  /** Where tokens are revoked, when the authorization server says (RFC 7009). */
  revocationEndpoint: z.string().optional(),
  /** How a client authenticates there (`revocation_endpoint_auth_methods_supported`, else the token endpoint's); absent: not said. */
  revocationAuthMethods: z.array(z.string().max(64)).max(16).optional(),
  /** The scopes asked for at the last sign-in (the server may grant fewer; `tokens.scope` says). */
  requestedScope: z.string().optional(),
  /** The server's last challenge (its scope and metadata address): a later sign-in asks for the same. */
  challenge: z.object({ scope: z.string().optional(), resourceMetadataUrl: z.string().optional() }).optional(),
  /** More access the server asked for (403 insufficient_scope) and not yet granted. */
  stepUpScope: z.string().optional(),
});
export type OAuthBundle = z.infer<typeof OAuthBundleSchema>;

/** Reads and writes one server's bundle. */
export interface OAuthVault {
  load(): OAuthBundle | undefined;
  save(bundle: OAuthBundle): void;
  clear(): void;
}

/** A bundle held in memory only: a server being added (moved to the secret store when it is saved). */
export class MemoryVault implements OAuthVault {
  private bundle: OAuthBundle | undefined;
  load(): OAuthBundle | undefined {
    return this.bundle ? structuredClone(this.bundle) : undefined;
  }
  save(bundle: OAuthBundle): void {
    this.bundle = structuredClone(bundle);
  }
  clear(): void {
    this.bundle = undefined;
  }
}

/** The secret store's slot for a server's sign-in: a name no server can have (server names have no colon). */
export function oauthSlot(server: string): string {
  return `oauth:${server}`;
}

/** A server's bundle, sealed in the secret store. */
export class SecretVault implements OAuthVault {
  constructor(
    private readonly secrets: SecretStore,
    private readonly server: string,
  ) {}

  load(): OAuthBundle | undefined {
    const raw = this.secrets.values(oauthSlot(this.server), ['bundle']).bundle;
    if (raw === undefined) return undefined;
    try {
      const parsed = OAuthBundleSchema.safeParse(JSON.parse(raw));
      // An unreadable bundle is no sign-in (the person signs in again); it is never half-used.
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  save(bundle: OAuthBundle): void {
    this.secrets.set(oauthSlot(this.server), 'bundle', JSON.stringify(OAuthBundleSchema.parse(bundle)));
  }

  clear(): void {
    this.secrets.deleteAll(oauthSlot(this.server));
  }
}

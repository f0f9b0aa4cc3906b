/**
 * Every value the person gave one server, in one place, for the one
 * redaction: its granted secrets (API keys, a bundle's sensitive fields,
 * the secrets its headers are filled from) and, for a remote server, its
 * sign-in's tokens and client secret. The audit log hides them in every
 * entry about that server (audit-log.ts), and they are taken out of what a
 * model is sent (a tool's result, a server's sampling request).
 *
 * One job: read them, and fail loudly when they cannot be read — never
 * "no secrets", which would turn redaction off in silence. What this
 * process already handed a server (given-secrets.ts) is always among them:
 * a store that lost a value (deleted, cleared while the server runs) does
 * not turn its redaction off either.
 *
 * SECURITY: invariant 5 and SECURITY.md rule 10 — a credential the person
 * gave a server is never written or sent in clear by Airlock, whatever the
 * server put it in.
 */
import { ownEntry, type ServerRecord } from '../../../shared/domain';
import { AirlockError, messageOf } from '../errors';
import { OAuthBundleSchema, oauthSlot } from '../remote/oauth-vault';
import { secretsInHeaders } from '../remote/remote-connector';
import type { SecretStore } from '../secrets/secret-store';
import { GivenSecrets } from './given-secrets';

/** What the values are read from. */
export interface ServerSecretsDeps {
  /** The server's record as stored now (undefined: no such server). */
  record(server: string): ServerRecord | undefined;
  secrets: Pick<SecretStore, 'values'>;
  /** What this process handed each server, still hidden once the store no longer has it (given-secrets.ts). */
  given?: Pick<GivenSecrets, 'of'>;
}

/**
 * The values to hide for `server` (empty for a server given none). Throws
 * AirlockError('unavailable') when the secret store cannot be read: the
 * caller withholds (the log) or refuses (what goes to a model).
 */
export function serverSecretValues(deps: ServerSecretsDeps, server: string, known?: ServerRecord): string[] {
  // What this process handed the server is hidden whatever the store says now (deleted, cleared, replaced).
  const given = [...(deps.given?.of(server) ?? []), ...(deps.given?.of(oauthSlot(server)) ?? []).flatMap(signInValues)];
  const record = known ?? deps.record(server);
  if (!record) return given;
  const names = [...new Set([...record.profile.secrets, ...(record.spec.remote ? secretsInHeaders(record.spec.remote.headers) : [])])];
  if (names.length === 0 && !record.spec.remote) return given;
  try {
    const values = Object.values(deps.secrets.values(server, names));
    if (record.spec.remote) values.push(...signInValues(deps.secrets.values(oauthSlot(server), ['bundle']).bundle));
    return [...new Set([...values, ...given])].filter((value) => value.length > 0);
  } catch (error) {
    throw new AirlockError('unavailable', `Airlock could not read the secrets of ${server} (${messageOf(error)}), so it cannot hide them.`);
  }
}

/** The tokens and client secret of a stored sign-in (none when there is no sign-in). */
function signInValues(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // An unreadable sign-in is never used (oauth-vault.ts): it has no token to hide.
    return [];
  }
  const bundle = OAuthBundleSchema.safeParse(parsed);
  if (!bundle.success) return [];
  const tokens = bundle.data.tokens;
  const client = bundle.data.client as { client_secret?: unknown } | undefined;
  return [tokens?.access_token, tokens?.refresh_token, tokens?.id_token, typeof client?.client_secret === 'string' ? client.client_secret : undefined].filter(
    (value): value is string => typeof value === 'string',
  );
}

/** `serverSecretValues` for a server looked up in a store's servers (the host's shape). */
export function recordLookup(servers: () => Readonly<Record<string, ServerRecord>>): ServerSecretsDeps['record'] {
  return (server) => ownEntry(servers(), server);
}

/**
 * What the host's redaction reads: the stored records, the secret store, and
 * every value the store handed out in this process (so a running server's
 * values stay hidden even if the secrets file changes under it). `dispose`
 * stops listening to the store.
 */
export function hostSecrets(servers: () => Readonly<Record<string, ServerRecord>>, secrets: Pick<SecretStore, 'values' | 'onDidRead'>): { deps: ServerSecretsDeps; dispose(): void } {
  const given = new GivenSecrets();
  const dispose = secrets.onDidRead((owner, values) => given.note(owner, values));
  return { deps: { record: recordLookup(servers), secrets, given }, dispose };
}

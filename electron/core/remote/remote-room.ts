/**
 * The remote room: remote servers' live connectors and their sign-ins, for
 * the host to compose. One connector per name, renewed at each start (the
 * supervisor's), replaced by a sign-in the person starts, closed with the
 * server. Tokens live only in the secret store (`SecretVault`).
 *
 * SECURITY (SECURITY.md rule 10): a background start has no person at hand,
 * so a sign-in it needs is refused plainly; only `signIn` — the person's own
 * request — gets a broker that opens a page.
 */
import type { IpcHandlers, SignOutOutcome } from '../../../shared/ipc';
import type { ServerRecord } from '../../../shared/domain';
import { AirlockError, messageOf } from '../errors';
import type { SecretStore } from '../secrets/secret-store';
import type { OAuthStatus, SignInBroker } from './oauth';
import { SecretVault } from './oauth-vault';
import { createRemoteConnector, type RemoteLink } from './remote-connector';
import type { ShellIdentity } from '../ipc/shell-identity';

export interface RemoteRoomDeps {
  secrets: SecretStore;
  /** The server's record (throws when there is none). */
  record(name: string): ServerRecord;
  restartServer(name: string): Promise<unknown>;
  stopServer(name: string): Promise<void>;
  /** Tells the shells the servers changed (a sign-in's state shows on the server's page). */
  emitServers(): void;
  /** Throws when the server is being removed (a sign-in now would mint tokens nobody revokes). */
  refuseIfRemoving?: (name: string) => void;
  /** How long removing a server waits for its authorization server to revoke its sign-in (ms); default `REVOKE_WITHIN_MS`. */
  revokeWithinMs?: number;
  /** Shows a sign-in page to the person; absent: signing in is refused plainly. */
  showSignInPage?: (url: string, server: string) => void;
}

/** How long removing a server waits for its authorization server to revoke its sign-in (ms). */
export const REVOKE_WITHIN_MS = 10_000;

export class RemoteRoom {
  readonly #links = new Map<string, RemoteLink>();

  constructor(private readonly deps: RemoteRoomDeps) {}

  /** A remote server's connector, read afresh from its record, replacing (and closing) the one before. */
  async link(name: string, record: ServerRecord, broker?: SignInBroker): Promise<RemoteLink> {
    const link = this.#connector(name, record, () => this.deps.secrets.values(name, record.profile.secrets), broker);
    const previous = this.#links.get(name);
    this.#links.set(name, link);
    await previous?.close();
    return link;
  }

  /** Where a person signs in now, or undefined when no page can be shown here. */
  broker(): SignInBroker | undefined {
    const show = this.deps.showSignInPage;
    if (!show) return undefined;
    return {
      begin: (url, label) => {
        show(url.href, label);
        return { end() {} };
      },
    };
  }

  /** A remote server's sign-in as its page shows it (never a token). */
  status(name: string): OAuthStatus | undefined {
    const link = this.#connector(name, this.#remoteRecord(name), () => ({}));
    void link.close();
    return link.oauth?.status();
  }

  /** Signs in now (the person asked), then restarts the server with the new tokens. */
  async signIn(name: string): Promise<OAuthStatus | undefined> {
    this.deps.refuseIfRemoving?.(name);
    const record = this.#remoteRecord(name);
    const broker = this.broker();
    if (!broker) throw new AirlockError('unavailable', 'Signing in needs a browser: use the Airlock app, or `airlock signin` on a terminal.');
    const link = await this.link(name, record, broker);
    if (!link.oauth) throw new AirlockError('invalid-request', `${name} sends an Authorization header of its own; it does not sign in with OAuth.`);
    try {
      await link.oauth.signIn(broker);
    } catch (error) {
      throw new AirlockError('unavailable', messageOf(error));
    }
    if (record.enabled) await this.deps.restartServer(name).catch(() => undefined); // A server that fails to restart shows it on its page.
    this.deps.emitServers();
    return link.oauth.status();
  }

  /** Signs out: revokes where the server offers it, deletes the tokens here whatever it said. */
  async signOut(name: string): Promise<SignOutOutcome> {
    const record = this.#remoteRecord(name);
    await this.deps.stopServer(name);
    const link = this.#connector(name, record, () => ({}));
    try {
      return (await link.oauth?.signOut()) ?? { revoked: 'not-offered' };
    } finally {
      await link.close();
      this.deps.emitServers();
    }
  }

  /**
   * Before a remote server is removed: a sign-in it holds is revoked at its
   * authorization server where that server offers revocation (RFC 7009),
   * within `revokeWithinMs`, and its tokens deleted here whatever it said.
   * Undefined when there was no sign-in to end (no OAuth, or not signed in).
   */
  async revokeForRemoval(name: string, record: ServerRecord): Promise<SignOutOutcome | undefined> {
    if (!record.spec.remote) return undefined;
    const link = this.#connector(name, record, () => ({}));
    try {
      if (!link.oauth?.status().signedIn) return undefined;
      const within = this.deps.revokeWithinMs ?? REVOKE_WITHIN_MS;
      const bound = AbortSignal.timeout(within);
      const outcome = await link.oauth.signOut(bound);
      return outcome.revoked === 'failed' && bound.aborted ? { revoked: 'failed', detail: `it did not answer within ${within / 1000} s` } : outcome;
    } finally {
      await link.close();
    }
  }

  /** A removed server's sign-in goes with it: its tokens deleted, its connector closed. */
  async forget(name: string): Promise<void> {
    new SecretVault(this.deps.secrets, name).clear();
    await this.#links.get(name)?.close();
    this.#links.delete(name);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#links.values()].map((link) => link.close()));
    this.#links.clear();
  }

  ipcHandlers(_shell: ShellIdentity): Pick<IpcHandlers, 'servers.signInStatus' | 'servers.signIn' | 'servers.signOut'> {
    return {
      'servers.signInStatus': ({ name }) => this.status(name) ?? null,
      'servers.signIn': async ({ name }) => (await this.signIn(name)) ?? null,
      'servers.signOut': ({ name }) => this.signOut(name),
    };
  }

  #connector(name: string, record: ServerRecord, secrets: () => Readonly<Record<string, string>>, broker?: SignInBroker): RemoteLink {
    return createRemoteConnector({
      label: name,
      spec: record.spec.remote!,
      ...(record.provenance.kind === 'remote' && record.provenance.zone ? { zone: record.provenance.zone } : {}),
      secrets,
      vault: new SecretVault(this.deps.secrets, name),
      ...(broker ? { broker } : {}),
    });
  }

  #remoteRecord(name: string): ServerRecord {
    const record = this.deps.record(name);
    if (!record.spec.remote) throw new AirlockError('invalid-request', `${name} is not a remote server; only remote servers sign in.`);
    return record;
  }
}

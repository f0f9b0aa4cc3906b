/**
 * What a server's network proxy decides about one request — shared by the
 * HTTP proxy (network-proxy.ts) and its SOCKS5 side (socks5.ts), so neither
 * imports the other for it.
 */

/** One decision the proxy took, for the audit log. */
export interface NetworkDecision {
  serverName: string;
  host: string;
  port: number;
  allowed: boolean;
  reason:
    | 'granted'
    | 'user-allowed'
    | 'user-denied'
    | 'not-granted'
    | 'ask-failed'
    | 'too-many-questions'
    | 'malformed-host'
    | 'non-public-address'
    | 'unresolvable'
    /** The connection came without this server's credential (its proxy is on a loopback port other programs can reach). */
    | 'no-credential';
}

/** What `decide` answered for one request (the address to dial when allowed). */
export type Verdict = { allowed: true; address: string; reason: NetworkDecision['reason'] } | { allowed: false; reason: NetworkDecision['reason'] };

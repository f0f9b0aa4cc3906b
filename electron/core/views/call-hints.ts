/**
 * A hint beside a failed call when the likely cause is the sandbox, not the
 * server: the call failed the way a program fails without network, and the
 * server has no grant for the host it probably needed. Airlock's words,
 * added after the server's own (which are always shown, inert).
 */
import type { ServerRecord } from '../../../shared/domain';
import { knownApiDomains } from '../install/proposals';

// How Node, Python and curl say "I could not reach the network" (and what Airlock's proxy answers).
const NETWORK_FAILURE = /ENOTFOUND|EAI_AGAIN|getaddrinfo|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ETIMEDOUT|fetch failed|network (?:error|is unreachable)|Temporary failure in name resolution|Name or service not known|Could not resolve host|socket hang up|proxy|not allowed by Airlock/i;

/** The hint for a failed call of `record`'s tool whose text is `said`, or undefined. */
export function networkHint(record: ServerRecord, said: string): string | undefined {
  if (!NETWORK_FAILURE.test(said)) return undefined;
  const granted = record.profile.network.allowedDomains;
  const known = knownApiDomains(record.provenance.kind === 'npm' ? record.provenance.name : undefined, `${record.name} ${record.importedFrom?.entry ?? ''}`).filter((domain) => !granted.includes(domain));
  const which = known.length ? known.join(' ') : 'api.example.com';
  const now = granted.length ? `${record.name} may reach only ${granted.join(', ')}` : `${record.name} has no network access`;
  return `This looks like a network failure: ${now}. If the call needs the internet, grant the domain it needs — \`airlock grant ${record.name} ${(known.length ? known : [which]).map((d) => `--domain ${d}`).join(' ')}\`, or Permissions on its page.`;
}

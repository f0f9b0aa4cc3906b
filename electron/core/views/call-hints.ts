/**
 * A hint beside a failed call when the likely cause is the sandbox, not the
 * server: the call failed the way a program fails without network, and the
 * server has no grant for the host it probably needed. Airlock's words,
 * added after the server's own (which are always shown, inert).
 */
import type { ServerRecord } from '../../../shared/domain';
import { knownApiDomains, urlHosts } from '../install/proposals';

// How Node, Python and curl say "I could not reach the network" (and what Airlock's proxy answers).
const NETWORK_FAILURE = /ENOTFOUND|EAI_AGAIN|getaddrinfo|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ETIMEDOUT|fetch failed|network (?:error|is unreachable)|Temporary failure in name resolution|Name or service not known|Could not resolve host|socket hang up|proxy|not allowed by Airlock/i;

/**
 * The hint for a failed call of `record`'s tool whose text is `said`, or
 * undefined. `refused` are the hosts Airlock's proxy refused this server
 * during the call: the surest sign, named exactly.
 */
export function networkHint(record: ServerRecord, said: string, refused: readonly string[] = []): string | undefined {
  const granted = record.profile.network.allowedDomains;
  const grant = (domains: readonly string[]) => `\`airlock grant ${record.name} ${domains.map((d) => `--domain ${d}`).join(' ')}\``;
  if (refused.length) {
    return `Airlock's sandbox stopped ${record.name} from reaching ${refused.join(', ')}: it has no grant for ${refused.length === 1 ? 'it' : 'them'}. If the call needs ${refused.length === 1 ? 'it' : 'them'}, grant ${refused.length === 1 ? 'it' : 'them'} — ${grant(refused)}, or Permissions on its page.`;
  }
  if (!NETWORK_FAILURE.test(said)) return undefined;
  const known = [
    ...knownApiDomains(record.provenance.kind === 'npm' ? record.provenance.name : undefined, `${record.name} ${record.importedFrom?.entry ?? ''}`),
    ...urlHosts([...record.spec.args, ...Object.values(record.spec.env)]),
  ].filter((domain, index, all) => !granted.includes(domain) && all.indexOf(domain) === index);
  const now = granted.length ? `${record.name} may reach only ${granted.join(', ')}` : `${record.name} has no network access`;
  return `This looks like a network failure: ${now}. If the call needs the internet, grant the domain it needs — ${grant(known.length ? known : ['api.example.com'])}, or Permissions on its page.`;
}

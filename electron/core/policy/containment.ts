import type { SandboxProfile } from '../../../shared/domain';

/**
 * Why a profile is not contained, one plain sentence each (empty when it is).
 * Anything malformed counts against containment: the check fails closed.
 */
export function containmentGaps(profile: SandboxProfile | undefined | null): string[] {
  const gaps: string[] = [];
  if (profile === null || typeof profile !== 'object') return ['Its sandbox profile is missing.'];
  const domains = profile.network?.allowedDomains;
  if (!Array.isArray(domains)) gaps.push('Its network grant could not be read.');
  else if (domains.length > 0) gaps.push('It may use the network.');
  const secrets = profile.secrets;
  if (!Array.isArray(secrets)) gaps.push('Its secrets could not be read.');
  else if (secrets.length > 0) gaps.push('It is given secrets.');
  const write = profile.filesystem?.write;
  if (!Array.isArray(write)) gaps.push('Its write grants could not be read.');
  else if (write.length > 0) gaps.push('It may write to folders that outlive it.');
  if (profile.filesystem?.persistentData !== false) gaps.push('It keeps a data folder of its own.');
  if (profile.unsandboxed !== undefined) gaps.push('It runs without a sandbox.');
  return gaps;
}

/**
 * True when the server's profile grants no network, no secrets, no write
 * outside the temporary folder discarded when it stops (no write grants, no
 * persistent data folder), and it is not run unsandboxed: whatever it does
 * cannot outlive it or leave the machine.
 *
 * SECURITY: invariant 2 — this is the only thing that lets an untrusted
 * server's read-only tool run unasked, so it is exact and fails closed
 * (a malformed profile is not contained). Whether the sandbox can actually
 * run on this machine is a separate fact `decide()` also requires.
 */
export function isContained(profile: SandboxProfile | undefined | null): boolean {
  return containmentGaps(profile).length === 0;
}

/** What a server's sandbox lets it do, in short plain phrases (UX.md 10). */
export interface SandboxSummary {
  /** e.g. "Can read ~/Projects · writes nowhere that lasts · no internet · no secrets". */
  line: string;
  contained: boolean;
  unsandboxed: boolean;
  network: 'none' | 'domains';
  networkDomains: string[];
  writes: string[];
  persistentData: boolean;
  reads: string[];
  secretNames: string[];
  /** Set for a server reached by URL: it runs on `host`, outside any sandbox of Airlock's. */
  remote?: { url: string; host: string };
}

/** The host of a remote server's URL as DNS is asked for it (Punycode stays Punycode: it cannot pass for another name). */
export function remoteHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * Summarises a profile for a confirmation or a disclosure. Never throws. For
 * a remote server (`remote` given) the line says where it runs instead: its
 * profile's filesystem and network grants mean nothing there.
 */
export function summariseSandbox(profile: SandboxProfile | undefined | null, remote?: { url: string } | null): SandboxSummary {
  const p = profile && typeof profile === 'object' ? profile : undefined;
  if (remote) {
    const host = remoteHost(remote.url);
    const secretNames = arrayOfStrings(p?.secrets);
    return {
      line: [`Runs on ${host}, not on your computer — no sandbox; Airlock decides what reaches it`, secretNames.length === 0 ? 'no secrets' : `secrets sent: ${secretNames.join(', ')}`].join(' · '),
      contained: false,
      unsandboxed: false,
      network: 'domains',
      networkDomains: [host],
      writes: [],
      persistentData: false,
      reads: [],
      secretNames,
      remote: { url: remote.url, host },
    };
  }
  const reads = arrayOfStrings(p?.filesystem?.read);
  const writes = arrayOfStrings(p?.filesystem?.write);
  const networkDomains = arrayOfStrings(p?.network?.allowedDomains);
  const secretNames = arrayOfStrings(p?.secrets);
  const persistentData = p?.filesystem?.persistentData === true;
  const unsandboxed = p?.unsandboxed !== undefined && p !== undefined;
  const parts: string[] = [];
  if (unsandboxed || p === undefined) parts.push('NOT SANDBOXED — can do anything you can');
  if (reads.length > 0) parts.push(`Can read ${reads.join(', ')}`);
  if (writes.length === 0 && !persistentData) parts.push('writes nowhere that lasts');
  else {
    const where = [...writes, ...(persistentData ? ['its own data folder'] : [])];
    parts.push(`writes to ${where.join(', ')}`);
    const trusted = arrayOfStrings(p?.filesystem?.writeTrusted);
    // Said right after the writes: what git or a shell may run is the one write that reaches outside the sandbox.
    if (trusted.length > 0) parts.push(`may change what git or your shell runs, in ${trusted.join(', ')}`);
  }
  parts.push(networkDomains.length === 0 ? 'no internet' : `internet: ${networkDomains.join(', ')}`);
  parts.push(secretNames.length === 0 ? 'no secrets' : `secrets: ${secretNames.join(', ')}`);
  return {
    line: parts.join(' · '),
    contained: isContained(profile),
    unsandboxed: unsandboxed || p === undefined,
    network: networkDomains.length === 0 ? 'none' : 'domains',
    networkDomains,
    writes,
    persistentData,
    reads,
    secretNames,
  };
}

function arrayOfStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Where a remote server's URL points, and which other addresses a server
 * there may send Airlock to. One job: read a URL the person gave, and check
 * every URL a server supplies (redirects, metadata documents, authorization
 * endpoints) against the zone of the person's own URL.
 *
 * Invariant guarded (SECURITY.md rule 9, SSRF): a server cannot point
 * Airlock at a network more private than its own — a public server never
 * reaches your private network, this computer or a link-local address (cloud
 * metadata endpoints); plain http is used only between loopback addresses.
 */
import { isIP } from 'node:net';
import { domainToUnicode } from 'node:url';
import { readHostName, readIpAddress } from '../net/address-ranges';

/**
 * How private an address is, from most to least: this computer, the local
 * network (RFC 1918, ULA, CGNAT), and the internet. Link-local and reserved
 * ranges are never a zone a server may be reached in.
 */
export type AddressZone = 'loopback' | 'private' | 'public';

/** An address Airlock never connects to: link-local (169.254/16, fe80::/10), unspecified, multicast, reserved. */
export type ForbiddenRange = 'link-local' | 'reserved';

/**
 * The zone of an IP address, or the forbidden range it is in — read by the
 * one address reading (`net/address-ranges.ts`), so an IPv4 address inside
 * an IPv6 one is in the IPv4 address's zone whatever its form.
 */
export function classifyAddress(address: string): AddressZone | ForbiddenRange {
  const reading = readIpAddress(address);
  switch (reading?.range) {
    case 'public':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
    case 'shared':
    case 'benchmarking':
      return 'private';
    case 'link-local':
      return 'link-local';
    default:
      return 'reserved';
  }
}

const ORDER: Record<AddressZone, number> = { loopback: 0, private: 1, public: 2 };

/** May a server whose own URL is in `base` send Airlock to an address in `target`? Only as private or more public. */
export function zoneAllowed(base: AddressZone, target: AddressZone | ForbiddenRange): target is AddressZone {
  if (target === 'link-local' || target === 'reserved') return false;
  return ORDER[target] >= ORDER[base];
}

/** The zone words a person reads. */
export function zoneWords(zone: AddressZone | ForbiddenRange): string {
  switch (zone) {
    case 'loopback':
      return 'this computer (loopback)';
    case 'private':
      return 'a private network address';
    case 'public':
      return 'the internet';
    case 'link-local':
      return 'a link-local address (where cloud machines keep their credentials)';
    default:
      return 'a reserved address';
  }
}

/** Host names that always mean this computer (`localhost`, `x.localhost.`, a loopback address), as the one name reading says. */
export function isLoopbackName(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0) return classifyAddress(bare) === 'loopback';
  return readHostName(bare)?.range === 'loopback';
}

/** The zone of a host name that is never the internet (this computer, the local network, a metadata service), or undefined for an ordinary name (its addresses decide). */
export function nameZone(host: string): AddressZone | ForbiddenRange | undefined {
  const reading = readHostName(host);
  switch (reading?.range) {
    case undefined:
      return undefined;
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'link-local':
      return 'link-local';
    default:
      return 'reserved';
  }
}

/** What Airlock read from a URL the person gave for a remote server. */
export interface RemoteUrlReading {
  /** The URL, normalised (what is sent). */
  href: string;
  /** The host as shown, highlighted (Unicode when the name is Punycode). */
  host: string;
  /** The host as DNS is asked for it. */
  asciiHost: string;
  /** The port, when not the scheme's default. */
  port?: string;
  scheme: 'https' | 'http';
  /** The name is internationalised (an `xn--` label): it can look like another site's. */
  punycode: boolean;
  /** The host is this computer (localhost, 127.0.0.0/8, ::1). */
  loopback: boolean;
  /** The host is an IP address; its zone is known without DNS. */
  literalZone?: AddressZone | ForbiddenRange;
  /** Why it cannot be used, in one sentence; absent when it can. */
  problem?: string;
  /** What a person should know before anything is sent. */
  warnings: string[];
}

/**
 * Reads the URL of a remote server as the person typed it: https, or http
 * only to this computer; no user name or password in it; no link-local or
 * reserved address; Punycode names warned. Sends nothing.
 */
export function readRemoteUrl(raw: string): RemoteUrlReading {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { href: text, host: '', asciiHost: '', scheme: 'https', punycode: false, loopback: false, problem: `“${text.slice(0, 200)}” is not a web address (it should look like https://example.com/mcp).`, warnings: [] };
  }
  const asciiHost = url.hostname;
  const punycode = asciiHost.split('.').some((label) => label.startsWith('xn--'));
  const host = punycode ? domainToUnicode(asciiHost) || asciiHost : asciiHost;
  const bare = asciiHost.replace(/^\[|\]$/g, '');
  const literal = isIP(bare) !== 0 ? classifyAddress(bare) : undefined;
  // A name that is never the internet (`printer.local`, `metadata.google.internal`) is read like an address in its zone.
  const zone = literal ?? nameZone(bare);
  const isLoopback = isLoopbackName(asciiHost);
  url.hash = '';
  const reading: RemoteUrlReading = {
    href: url.href,
    host,
    asciiHost,
    ...(url.port ? { port: url.port } : {}),
    scheme: url.protocol === 'http:' ? 'http' : 'https',
    punycode,
    loopback: isLoopback,
    ...(literal ? { literalZone: literal } : {}),
    warnings: [],
  };
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ...reading, problem: `Airlock connects to remote servers over https only (this address starts with ${url.protocol.replace(':', '')}://).` };
  if (url.protocol === 'http:' && !isLoopback) {
    return { ...reading, problem: `http:// sends everything unencrypted: Airlock connects over http only to this computer (localhost). Use https://${url.host}${url.pathname}${url.search} if the server offers it.` };
  }
  if (url.username || url.password) return { ...reading, problem: 'The address carries a user name or password; give credentials as a header or sign in instead.' };
  if (!asciiHost) return { ...reading, problem: 'The address has no host.' };
  if (zone === 'link-local' || zone === 'reserved') return { ...reading, problem: `The address points at ${zoneWords(zone)}; Airlock does not connect there.` };
  if (punycode) reading.warnings.push(`The name ${asciiHost} is internationalised (Punycode): shown as “${host}”, it can look like another site’s name. Check it letter by letter.`);
  if (url.protocol === 'http:') reading.warnings.push('Plain http: allowed only because the server is on this computer.');
  if (zone === 'private') reading.warnings.push('The address is on a private network.');
  return reading;
}

/** A URL or address a server supplied that Airlock will not use, with the reason in one sentence. */
export class AddressRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressRefused';
  }
}

/**
 * Checks a URL a server supplied (a redirect, an authorization server, an
 * endpoint in a metadata document) before anything is sent to it: https
 * (http only from a loopback server to a loopback address), no user name or
 * password, and an IP literal no more private than `base`. Names are checked
 * again when they resolve (see safe-fetch). Throws {@link AddressRefused}.
 */
export function checkSuppliedUrl(raw: string, base: AddressZone, what: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AddressRefused(`${what} is not a web address (“${String(raw).slice(0, 200)}”).`);
  }
  const shown = `${url.protocol}//${url.host}${url.pathname}`;
  if (url.username || url.password) throw new AddressRefused(`${what} (${shown}) carries a user name or password; Airlock does not use it.`);
  const loopbackTarget = isLoopbackName(url.hostname);
  if (url.protocol === 'http:') {
    if (!(base === 'loopback' && loopbackTarget)) throw new AddressRefused(`${what} (${shown}) is plain http; Airlock uses http only between addresses on this computer.`);
  } else if (url.protocol !== 'https:') {
    throw new AddressRefused(`${what} (${shown}) is not an https address.`);
  }
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  const zone = isIP(bare) !== 0 ? classifyAddress(bare) : nameZone(bare);
  if (zone !== undefined && !zoneAllowed(base, zone)) {
    throw new AddressRefused(`${what} (${shown}) points at ${zoneWords(zone)}, but the server is on ${zoneWords(base)}; Airlock does not let a server send it somewhere more private.`);
  }
  return url;
}

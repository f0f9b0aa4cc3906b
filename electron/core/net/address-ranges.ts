/**
 * What an IP address is: the one reading of "public or not" every place in
 * Airlock uses — the sandbox's network proxy (where a granted name may
 * resolve), remote servers (where a server may send Airlock) and URL
 * elicitation (which web pages may be offered to the person).
 *
 * SECURITY: SECURITY.md rule 9 (SSRF). An address is public only when it is
 * global unicast and in none of the special-purpose ranges (IANA's IPv4 and
 * IPv6 special-purpose registries). An IPv4 address carried inside an IPv6
 * one is read out, whatever the text looks like (`::ffff:127.0.0.1`,
 * `::ffff:7f00:1`, `0:0:0:0:0:ffff:7f00:1`, NAT64 `64:ff9b::7f00:1`, 6to4
 * `2002:7f00:1::`): the IPv6 address is public only when the IPv4 one is,
 * and a tunnel (NAT64, 6to4) to a non-public IPv4 address is never usable.
 * IPv6 outside 2000::/3 and the well-known NAT64 prefix is not public
 * (an allowlist: unassigned space is not the internet). Host names get the
 * same one reading (`readHostName`): `localhost` and everything under it,
 * `.local`, `home.arpa`, `.internal` and the other local-network suffixes,
 * cloud metadata names and names without a domain are never the internet,
 * whatever capitals or trailing dots they are written with. Pure functions.
 */
import { isIP } from 'node:net';

/** Which kind of range an address is in. Only `public` is the internet. */
export type AddressRange =
  | 'public'
  | 'loopback'
  /** RFC 1918, IPv6 unique-local (fc00::/7), local-use NAT64 (64:ff9b:1::/48). */
  | 'private'
  /** Carrier-grade NAT, 100.64.0.0/10: shared by a provider's customers. */
  | 'shared'
  | 'link-local'
  /** 0.0.0.0/8, `::`: "this host" — often reaches this computer. */
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  /** 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32, 3fff::/20. */
  | 'documentation'
  /** 198.18.0.0/15, 2001:2::/48. */
  | 'benchmarking'
  /** Everything else that is not the internet: future use, protocol assignments, deprecated ranges, tunnels to non-public addresses. */
  | 'reserved';

/** How an IPv6 address carries an IPv4 one. */
export type EmbeddingKind = 'mapped' | 'compatible' | 'translated' | 'nat64' | '6to4' | 'teredo';

/** What Airlock read from an IP address. */
export interface AddressReading {
  family: 4 | 6;
  range: AddressRange;
  /** The IPv4 address inside an IPv6 one, and how it is carried. */
  embedded?: { address: string; kind: EmbeddingKind; range: AddressRange };
}

type Prefix = readonly [bytes: readonly number[], bits: number, range: AddressRange];

// IPv4 special-purpose ranges (RFC 6890 and the IANA registry). Order matters only for overlaps (broadcast in 240/4).
const V4: readonly Prefix[] = [
  [[0], 8, 'unspecified'],
  [[10], 8, 'private'],
  [[100, 64], 10, 'shared'],
  [[127], 8, 'loopback'],
  [[169, 254], 16, 'link-local'],
  [[172, 16], 12, 'private'],
  [[192, 0, 0], 24, 'reserved'],
  [[192, 0, 2], 24, 'documentation'],
  [[192, 88, 99], 24, 'reserved'],
  [[192, 168], 16, 'private'],
  [[198, 18], 15, 'benchmarking'],
  [[198, 51, 100], 24, 'documentation'],
  [[203, 0, 113], 24, 'documentation'],
  [[224], 4, 'multicast'],
  [[255, 255, 255, 255], 32, 'broadcast'],
  [[240], 4, 'reserved'],
];

// IPv6 special-purpose ranges, checked after the embedded-IPv4 forms. Anything not matched
// here is public only inside 2000::/3.
const V6: readonly Prefix[] = [
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, 'reserved'], // 100::/64 discard-only
  [[0x20, 0x01, 0x00, 0x02, 0, 0], 48, 'benchmarking'], // 2001:2::/48
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'documentation'], // 2001:db8::/32
  [[0x20, 0x01, 0x00], 23, 'reserved'], // 2001::/23 IETF protocol assignments (Teredo's 2001::/32 is read before)
  [[0x3f, 0xff], 20, 'documentation'], // 3fff::/20 (RFC 9637)
  [[0x5f, 0x00], 16, 'reserved'], // 5f00::/16 SRv6 SIDs (RFC 9602)
  [[0xfc], 7, 'private'], // unique local
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xfe, 0xc0], 10, 'reserved'], // site-local (deprecated)
  [[0xff], 8, 'multicast'],
];

function matches(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const left = Math.min(8, bits - bit);
    const mask = (0xff << (8 - left)) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function lookupRange(bytes: readonly number[], table: readonly Prefix[]): AddressRange | undefined {
  return table.find(([prefix, bits]) => matches(bytes, prefix, bits))?.[2];
}

function v4Range(bytes: readonly number[]): AddressRange {
  return lookupRange(bytes, V4) ?? 'public';
}

function v4Text(bytes: readonly number[]): string {
  return bytes.join('.');
}

/** The 4 bytes of a dotted-quad IPv4 address (already known valid). */
function v4Bytes(text: string): number[] {
  return text.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address in any textual form (zone id and brackets dropped); undefined when it is not one. */
export function ipv6Bytes(text: string): number[] | undefined {
  let bare = text.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(bare) !== 6) return undefined;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (dotted) {
    const [a, b, c, d] = v4Bytes(dotted[1]!) as [number, number, number, number];
    bare = `${bare.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = bare.split('::');
  const left = halves[0] ? halves[0].split(':') : [];
  const right = halves.length > 1 && halves[1] ? halves[1].split(':') : [];
  const groups = halves.length > 1 ? [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  if (groups.length !== 8) return undefined;
  return groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

function zeros(bytes: readonly number[], from: number, to: number): boolean {
  return bytes.slice(from, to).every((byte) => byte === 0);
}

/** Reads an IPv6 address (16 bytes): its range, with any IPv4 address it carries read out. */
function readV6(bytes: readonly number[]): AddressReading {
  const embedded = (kind: EmbeddingKind, v4: readonly number[], range: (inner: AddressRange) => AddressRange): AddressReading => {
    const inner = v4Range(v4);
    return { family: 6, range: range(inner), embedded: { address: v4Text(v4), kind, range: inner } };
  };
  // A tunnel or translator reaches the IPv4 address over the network: usable only when that address is public.
  const tunnel = (inner: AddressRange): AddressRange => (inner === 'public' ? 'public' : 'reserved');
  const last4 = bytes.slice(12, 16);
  if (zeros(bytes, 0, 16)) return { family: 6, range: 'unspecified' };
  if (zeros(bytes, 0, 15) && bytes[15] === 1) return { family: 6, range: 'loopback' };
  // ::ffff:a.b.c.d — the same socket as the IPv4 address: exactly its range.
  if (zeros(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return embedded('mapped', last4, (inner) => inner);
  // ::ffff:0:a.b.c.d (SIIT, RFC 2765) and ::a.b.c.d (deprecated IPv4-compatible): nothing legitimate is there.
  if (zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(bytes, 10, 12)) return embedded('translated', last4, () => 'reserved');
  if (zeros(bytes, 0, 12)) return embedded('compatible', last4, () => 'reserved');
  // 64:ff9b::/96, the well-known NAT64 prefix (RFC 6052): how IPv6-only networks reach the IPv4 internet.
  if (matches(bytes, [0x00, 0x64, 0xff, 0x9b], 32) && zeros(bytes, 4, 12)) return embedded('nat64', last4, tunnel);
  // 64:ff9b:1::/48, local-use NAT64 (RFC 8215): a network's own translator.
  if (matches(bytes, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48)) return { family: 6, range: 'private' };
  // 2002:AABB:CCDD::/48, 6to4 (RFC 3056): the IPv4 address is bytes 2–5.
  if (matches(bytes, [0x20, 0x02], 16)) return embedded('6to4', bytes.slice(2, 6), tunnel);
  // 2001:0::/32, Teredo (RFC 4380): the client's IPv4 address is the last 4 bytes, inverted. Never the internet here.
  if (matches(bytes, [0x20, 0x01, 0x00, 0x00], 32)) return embedded('teredo', last4.map((byte) => byte ^ 0xff), () => 'reserved');
  const special = lookupRange(bytes, V6);
  if (special) return { family: 6, range: special };
  // Global unicast is 2000::/3; the rest of the space is unassigned.
  return { family: 6, range: matches(bytes, [0x20], 3) ? 'public' : 'reserved' };
}

/**
 * Reads an IP address (IPv4 dotted quad, or IPv6 in any form, brackets and
 * zone id allowed); undefined when `text` is not an IP address.
 */
export function readIpAddress(text: string): AddressReading | undefined {
  const bare = text.trim().replace(/^\[|\]$/g, '');
  if (isIP(bare) === 4) return { family: 4, range: v4Range(v4Bytes(bare)) };
  const bytes = ipv6Bytes(bare);
  return bytes ? readV6(bytes) : undefined;
}

/** True only for an IP address on the internet; false for every special range, and for anything that is not an IP address. */
export function isPublicAddress(text: string): boolean {
  return readIpAddress(text)?.range === 'public';
}

/** The range in a person's words. */
export function rangeWords(reading: AddressReading): string {
  const words: Record<AddressRange, string> = {
    public: 'the internet',
    loopback: 'this computer (loopback)',
    private: 'a private network address',
    shared: "a provider's shared address (carrier-grade NAT)",
    'link-local': 'a link-local address (where cloud machines keep their credentials)',
    unspecified: 'the unspecified address (this computer)',
    multicast: 'a multicast address',
    broadcast: 'the broadcast address',
    documentation: 'an address reserved for documentation',
    benchmarking: 'an address reserved for benchmarking',
    reserved: 'a reserved address',
  };
  const own = words[reading.range];
  const inner = reading.embedded;
  if (!inner) return own;
  const how = { mapped: 'IPv4-mapped', compatible: 'IPv4-compatible', translated: 'IPv4-translated', nat64: 'NAT64', '6to4': '6to4', teredo: 'Teredo' }[inner.kind];
  return `${own} (the ${how} form of ${inner.address}, ${words[inner.range]})`;
}

/** What Airlock read from a host name that is never the internet. */
export interface NameReading {
  /** loopback (this computer), private (the local network), link-local (a cloud machine's metadata service), reserved (not a name DNS answers for the internet). */
  range: Exclude<AddressRange, 'public'>;
  /** The name has no domain (`intranet`): only the local network can resolve it. */
  singleLabel?: true;
}

// Names that mean this computer or the local network whatever DNS says (RFC 6761 `localhost`, RFC 6762
// `.local`, RFC 8375 `home.arpa`, ICANN's `.internal`, and the private suffixes routers and
// companies use), each with every name under it. Longer suffixes first: the first match decides.
const SPECIAL_NAMES: ReadonlyArray<readonly [suffix: string, range: NameReading['range']]> = [
  ['metadata.google.internal', 'link-local'],
  ['localhost.localdomain', 'loopback'],
  ['localhost', 'loopback'],
  ['ip6-localhost', 'loopback'],
  ['ip6-loopback', 'loopback'],
  ['in-addr.arpa', 'reserved'],
  ['ip6.arpa', 'reserved'],
  ['home.arpa', 'private'],
  ['local', 'private'],
  ['localdomain', 'private'],
  ['internal', 'private'],
  ['intranet', 'private'],
  ['lan', 'private'],
  ['home', 'private'],
  ['corp', 'private'],
  ['private', 'private'],
];

/**
 * Reads a host name (not an IP address): what it is when it is never the
 * internet — this computer, the local network, a metadata service, a name
 * without a domain, or something DNS would not take as a name — or
 * undefined for an ordinary name. Capitals and trailing dots do not change
 * the answer. An ordinary name can still resolve to a private address
 * (`127.0.0.1.nip.io`): only a caller that resolves it can tell.
 */
export function readHostName(text: string): NameReading | undefined {
  const name = text.trim().toLowerCase().replace(/\.+$/, '');
  if (readIpAddress(name)) return undefined;
  // Letters, digits, hyphens and underscores in dot-separated labels; anything else is not a name DNS resolves as written.
  if (!/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(name)) return { range: 'reserved' };
  // Numbers alone are an address in shorthand (`2130706433`, `127.1`, `0x7f.1`), as resolvers read them.
  if (/^[0-9.]+$/.test(name) || /^0x[0-9a-f]*(\.|$)/.test(name)) return { range: 'reserved' };
  const special = SPECIAL_NAMES.find(([suffix]) => name === suffix || name.endsWith(`.${suffix}`))?.[1];
  if (special === 'loopback') return { range: special };
  if (!name.includes('.')) return { range: 'private', singleLabel: true };
  return special ? { range: special } : undefined;
}

/** True for an IP address on the internet, or a name that is not one of the names that never are (see readHostName). */
export function isPublicHost(host: string): boolean {
  const bare = host.trim().replace(/^\[|\]$/g, '');
  if (readIpAddress(bare)) return isPublicAddress(bare);
  return readHostName(bare) === undefined;
}

/** A name's range in a person's words. */
export function nameWords(reading: NameReading): string {
  if (reading.singleLabel) return 'a name without a domain (only the local network knows it)';
  switch (reading.range) {
    case 'loopback':
      return 'this computer (loopback)';
    case 'private':
      return 'a name on the local network';
    case 'link-local':
      return 'a cloud machine’s metadata service';
    default:
      return 'a name the internet does not resolve';
  }
}

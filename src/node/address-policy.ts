/**
 * Which resolved addresses an `image_url` download may connect to (TOOLS.md §16.6). Anything that
 * is not plainly a public unicast address is refused, so an agent cannot make the bridge fetch
 * from the machine itself, the local network or reserved space.
 */
import ipaddr from "ipaddr.js";

/**
 * ipaddr.js names for the IPv4 ranges TOOLS.md §16.6 refuses. Between them they cover exactly
 * the listed blocks: 0/8 (unspecified), 10/8, 172.16/12, 192.168/16 (private), 100.64/10
 * (carrierGradeNat), 127/8 (loopback), 169.254/16 (linkLocal), 224/4 (multicast), and 192.0.0/24,
 * 192.0.2/24, 192.88.99/24, 198.18/15, 198.51.100/24, 203.0.113/24, 240/4 (reserved), with
 * 255.255.255.255 (broadcast). ipaddr's `as112` and `amt` blocks are public anycast services
 * TOOLS.md does not refuse, so they stay allowed.
 */
const REFUSED_IPV4_RANGES: ReadonlySet<string> = new Set([
  "unspecified",
  "private",
  "carrierGradeNat",
  "loopback",
  "linkLocal",
  "multicast",
  "reserved",
  "broadcast",
]);

/** Only global unicast is allowed for IPv6 (TOOLS.md §16.6). */
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");

/**
 * Blocks inside 2000::/3 that are still refused. Matched explicitly rather than through
 * `range()`: ipaddr splits 2001::/23 into several names, and calls some public blocks (AS112's
 * 2620:4f:8000::/48) special although TOOLS.md allows them.
 */
const REFUSED_IPV6_BLOCKS = ["2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20"].map((cidr) =>
  ipaddr.IPv6.parseCIDR(cidr),
);

/**
 * Whether `ip` (a textual address as a resolver returns it) is public under TOOLS.md §16.6.
 * Unparsable text, unusual IPv4 notations and IPv6 zone ids are never public.
 */
export function isPublicAddress(ip: string): boolean {
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return isPublicIPv4(ipaddr.IPv4.parse(ip));
  if (ip.includes("%") || !ipaddr.IPv6.isValid(ip)) return false;
  const v6 = ipaddr.IPv6.parse(ip);
  if (v6.isIPv4MappedAddress()) return isPublicIPv4(v6.toIPv4Address());
  if (!v6.match(IPV6_GLOBAL_UNICAST)) return false;
  return !REFUSED_IPV6_BLOCKS.some((block) => v6.match(block));
}

function isPublicIPv4(v4: ipaddr.IPv4): boolean {
  return !REFUSED_IPV4_RANGES.has(v4.range());
}

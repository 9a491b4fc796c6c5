/**
 * Which resolved addresses an `image_url` download may connect to (docs/tools.md §16.6). Anything that
 * is not plainly a public unicast address is refused, so an agent cannot make the bridge fetch
 * from the machine itself, the local network or reserved space. Node's own `net.BlockList`
 * matches the blocks (it judges an IPv4-mapped IPv6 address by the IPv4 rules).
 */
import { nodeApis } from "./node-apis";

type BlockList = import("node:net").BlockList;

/**
 * The IPv4 blocks docs/tools.md §16.6 refuses: unspecified, private, shared (carrier-grade NAT),
 * loopback, link-local, multicast, the reserved and documentation blocks, and 240/4 up to the
 * broadcast address. AS112 (192.31.196/24, 192.175.48/24) and AMT (192.52.193/24) are public
 * anycast services docs/tools.md does not refuse, so they stay allowed.
 */
const REFUSED_IPV4: ReadonlyArray<[string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

/** Blocks inside IPv6 global unicast (2000::/3, the only IPv6 space allowed) that are still refused. */
const REFUSED_IPV6: ReadonlyArray<[string, number]> = [
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["3fff::", 20],
];

/** The lists, built at first use from the host's Node modules (node/node-apis.ts). */
let lists: { refused: BlockList; globalUnicast: BlockList } | undefined;

function blockLists(): { refused: BlockList; globalUnicast: BlockList } {
  if (lists !== undefined) return lists;
  const { BlockList } = nodeApis().net;
  const refused = new BlockList();
  for (const [network, prefix] of REFUSED_IPV4) refused.addSubnet(network, prefix, "ipv4");
  for (const [network, prefix] of REFUSED_IPV6) refused.addSubnet(network, prefix, "ipv6");
  const globalUnicast = new BlockList();
  globalUnicast.addSubnet("2000::", 3, "ipv6");
  lists = { refused, globalUnicast };
  return lists;
}

/**
 * Whether `ip` (a textual address as a resolver returns it) is public under docs/tools.md §16.6.
 * Unparsable text, unusual IPv4 notations and IPv6 zone ids are never public.
 */
export function isPublicAddress(ip: string): boolean {
  const { isIPv4, isIPv6 } = nodeApis().net;
  const { refused, globalUnicast } = blockLists();
  // Node's isIPv4 takes only four decimal parts without leading zeros.
  if (isIPv4(ip)) return !refused.check(ip, "ipv4");
  if (ip.includes("%") || !isIPv6(ip)) return false;
  const mapped = ipv4Mapped(ip);
  if (mapped !== undefined) return !refused.check(mapped, "ipv4");
  return globalUnicast.check(ip, "ipv6") && !refused.check(ip, "ipv6");
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:0:0/96), if `ip` is one. */
function ipv4Mapped(ip: string): string | undefined {
  // The URL parser writes an IPv6 address in its one canonical form.
  const canonical = new URL(`http://[${ip}]/`).hostname;
  const match = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(canonical);
  if (match === null) return undefined;
  const high = Number.parseInt(match[1] ?? "", 16);
  const low = Number.parseInt(match[2] ?? "", 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

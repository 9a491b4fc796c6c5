import { isPublicAddress } from "../../src/node/address-policy";

/** Every IPv4 range docs/tools.md §16.6 refuses, with its first, a middle and its last address. */
const REFUSED_IPV4: Array<[range: string, addresses: string[]]> = [
  ["0.0.0.0/8", ["0.0.0.0", "0.1.2.3", "0.255.255.255"]],
  ["10.0.0.0/8", ["10.0.0.0", "10.0.0.1", "10.255.255.255"]],
  ["100.64.0.0/10", ["100.64.0.0", "100.100.100.100", "100.127.255.255"]],
  ["127.0.0.0/8", ["127.0.0.0", "127.0.0.1", "127.255.255.255"]],
  ["169.254.0.0/16", ["169.254.0.0", "169.254.169.254", "169.254.255.255"]],
  ["172.16.0.0/12", ["172.16.0.0", "172.20.1.1", "172.31.255.255"]],
  ["192.0.0.0/24", ["192.0.0.0", "192.0.0.8", "192.0.0.255"]],
  ["192.0.2.0/24", ["192.0.2.0", "192.0.2.1", "192.0.2.255"]],
  ["198.51.100.0/24", ["198.51.100.0", "198.51.100.7", "198.51.100.255"]],
  ["203.0.113.0/24", ["203.0.113.0", "203.0.113.9", "203.0.113.255"]],
  ["192.88.99.0/24", ["192.88.99.0", "192.88.99.1", "192.88.99.255"]],
  ["192.168.0.0/16", ["192.168.0.0", "192.168.1.1", "192.168.255.255"]],
  ["198.18.0.0/15", ["198.18.0.0", "198.19.0.1", "198.19.255.255"]],
  ["224.0.0.0/4", ["224.0.0.0", "230.1.2.3", "239.255.255.255"]],
  ["240.0.0.0/4 and above", ["240.0.0.0", "250.1.2.3", "255.255.255.254", "255.255.255.255"]],
];

/** Addresses just outside the refused ranges, and ordinary public ones. */
const PUBLIC_IPV4 = [
  "1.1.1.1",
  "8.8.8.8",
  "93.184.216.34",
  "9.255.255.255",
  "11.0.0.0",
  "100.63.255.255",
  "100.128.0.0",
  "126.255.255.255",
  "128.0.0.0",
  "169.253.255.255",
  "169.255.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "191.255.255.255",
  "192.0.1.0",
  "192.0.3.0",
  "192.88.98.255",
  "192.88.100.0",
  "192.167.255.255",
  "192.169.0.0",
  "198.17.255.255",
  "198.20.0.0",
  "198.51.99.255",
  "198.51.101.0",
  "203.0.112.255",
  "203.0.114.0",
  "223.255.255.255",
  // ipaddr.js names these as112 / amt; docs/tools.md does not refuse them.
  "192.175.48.1",
  "192.52.193.1",
];

describe("isPublicAddress: IPv4", () => {
  it.each(REFUSED_IPV4)("refuses %s", (_range, addresses) => {
    for (const address of addresses) expect([address, isPublicAddress(address)]).toEqual([address, false]);
  });

  it.each(PUBLIC_IPV4)("allows %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it("judges an IPv4-mapped IPv6 address as IPv4", () => {
    expect(isPublicAddress("::ffff:127.0.0.1")).toBe(false);
    expect(isPublicAddress("::ffff:10.1.2.3")).toBe(false);
    expect(isPublicAddress("::ffff:7f00:1")).toBe(false);
    expect(isPublicAddress("::ffff:169.254.169.254")).toBe(false);
    expect(isPublicAddress("::ffff:93.184.216.34")).toBe(true);
    expect(isPublicAddress("::ffff:5db8:d822")).toBe(true);
    // Any spelling of the same mapped address: uncompressed, upper case, the unspecified one.
    expect(isPublicAddress("0:0:0:0:0:ffff:7f00:1")).toBe(false);
    expect(isPublicAddress("::FFFF:127.0.0.1")).toBe(false);
    expect(isPublicAddress("::ffff:0.0.0.0")).toBe(false);
    expect(isPublicAddress("0:0:0:0:0:FFFF:5DB8:D822")).toBe(true);
    // The deprecated IPv4-compatible form is not mapped: outside 2000::/3, refused.
    expect(isPublicAddress("::93.184.216.34")).toBe(false);
  });

  it("refuses text that is not a plain four-part decimal or IPv6 address", () => {
    for (const text of [
      "",
      "localhost",
      "127.1",
      "0x7f.0.0.1",
      "2130706433",
      "017700000001",
      "1.2.3.4.5",
      "93.184.216.34 ",
    ]) {
      expect([text, isPublicAddress(text)]).toEqual([text, false]);
    }
  });
});

describe("isPublicAddress: IPv6", () => {
  it.each([
    "::1",
    "::",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "febf:ffff::1",
    "fec0::1",
    "64:ff9b::1",
    "64:ff9b::a00:1",
    "100::1",
    "ff02::1",
    // 2001::/23 (Teredo, benchmarking, ORCHID, …) from its first to its last address.
    "2001::",
    "2001:0:1234::1",
    "2001:2::1",
    "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
    "2001:db8::",
    "2001:db8::1",
    "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
    "2002::1",
    "2002:c000:201::1",
    "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "3fff::",
    "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
    // Outside 2000::/3.
    "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "4000::1",
    "5f00::1",
    // Deprecated IPv4-compatible and RFC 6145 forms are not mapped addresses.
    "::127.0.0.1",
    "::ffff:0:a00:1",
    // A zone id is never public.
    "fe80::1%eth0",
    "2606:4700::1111%eth0",
  ])("refuses %s", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    "2001:200::1",
    "2001:4860::8888",
    "2606:4700::1111",
    "3ffe:ffff::1",
    "3fff:1000::1",
    "2000::",
    "2001:200::",
    "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff",
    "2001:db9::",
    "2001:4860:4860::8888",
    "2003::1",
    "2620:4f:8000::1",
    "3ffe::1",
    "3fff:1000::",
  ])("allows %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

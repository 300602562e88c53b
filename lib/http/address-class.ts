import { BlockList, isIP } from 'node:net'
import { lookup } from 'node:dns/promises'

/**
 * What kind of network an IP address is on. Anything that is not `public` reaches this machine
 * (loopback, unspecified), the local network (private, link-local: cloud metadata services live at
 * 169.254.169.254) or nothing meant to be dialled (reserved: multicast, documentation, benchmarking).
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'reserved'

const RANGES: [AddressClass, string, number, 'ipv4' | 'ipv6'][] = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'], // shared address space (carrier NAT, tailnets)
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '192.0.2.0', 24, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['reserved', '198.51.100.0', 24, 'ipv4'],
  ['reserved', '203.0.113.0', 24, 'ipv4'],
  ['reserved', '224.0.0.0', 3, 'ipv4'], // multicast, the old class E and the broadcast address
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['reserved', '2001::', 23, 'ipv6'], // protocol assignments, Teredo
  ['reserved', '2001:db8::', 32, 'ipv6'],
  ['reserved', '2002::', 16, 'ipv6'], // 6to4 relays to any IPv4 address
]
const lists = new Map<AddressClass, BlockList>()
for (const [cls, net, prefix, family] of RANGES) {
  if (!lists.has(cls)) lists.set(cls, new BlockList())
  lists.get(cls)!.addSubnet(net, prefix, family)
}
const GLOBAL_UNICAST = new BlockList()
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6')

/** The IPv4 address an IPv6 one carries (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d), if any. */
function embeddedIPv4(ip: string): string | undefined {
  const canonical = new URL(`http://[${ip.replace(/%.*$/, '')}]/`).hostname.slice(1, -1)
  const m = /^(?:::ffff|64:ff9b:):([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical)
  if (!m) return undefined
  const [hi, lo] = [parseInt(m[1], 16), parseInt(m[2], 16)]
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.')
}

/** The class of one IP address (v4 or v6, with or without a zone). Throws on anything else. */
export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip.replace(/%.*$/, ''))
  if (family === 0) throw new Error(`not an IP address: ${ip}`)
  if (family === 6) {
    const v4 = embeddedIPv4(ip)
    if (v4) return classifyAddress(v4)
  }
  const type = family === 4 ? 'ipv4' : 'ipv6'
  for (const [cls, list] of lists) if (list.check(ip, type)) return cls
  // IPv6 outside global unicast (2000::/3) is nothing a public service answers on
  return family === 4 || GLOBAL_UNICAST.check(ip, 'ipv6') ? 'public' : 'reserved'
}

export interface ResolvedAddress { address: string; family: number }
/** How a host name becomes addresses: DNS (and /etc/hosts) by default; tests inject their own. */
export type Resolve = (host: string) => Promise<ResolvedAddress[]>
export const resolveHost: Resolve = (host) => lookup(host, { all: true, verbatim: true })

/** Every address a URL's host stands for: an IP literal itself, or what `resolve` says of a name. */
export async function addressesOf(url: URL, resolve: Resolve = resolveHost): Promise<ResolvedAddress[]> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  const family = isIP(host)
  return family ? [{ address: host, family }] : resolve(host)
}

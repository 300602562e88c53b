import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { classifyAddress, type ResolvedAddress } from '@/lib/http/address-class'
import { OAuthTargets } from '@/lib/upstream/oauth-targets'

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'], ['172.32.0.1', 'public'], ['2606:4700::1111', 'public'], ['::ffff:8.8.8.8', 'public'], ['64:ff9b::808:808', 'public'],
    ['127.0.0.1', 'loopback'], ['127.8.9.10', 'loopback'], ['::1', 'loopback'], ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'], ['100.64.0.1', 'private'],
    ['fc00::1', 'private'], ['fd12:3456::1', 'private'], ['::ffff:10.0.0.1', 'private'],
    ['169.254.169.254', 'link-local'], ['fe80::1', 'link-local'], ['fe80::1%eth0', 'link-local'], ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'], ['::', 'unspecified'],
    ['224.0.0.1', 'reserved'], ['255.255.255.255', 'reserved'], ['192.0.2.1', 'reserved'], ['ff02::1', 'reserved'], ['2001:db8::1', 'reserved'], ['2002:c0a8:101::1', 'reserved'], ['::1.2.3.4', 'reserved'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls)
  })

  it('refuses what is not an address', () => {
    expect(() => classifyAddress('example.com')).toThrow('not an IP address: example.com')
  })
})

/** A resolver from a table: the names tests use exist nowhere else (no DNS is asked). */
const resolver = (table: Record<string, string[]>) => {
  const asked: string[] = []
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    asked.push(host)
    const a = table[host]
    if (!a) throw new Error(`getaddrinfo ENOTFOUND ${host}`)
    return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
  return { resolve, asked }
}

describe('OAuth targets: the addresses a name resolves to, checked on the connection', () => {
  let local: http.Server
  let port: number
  const seen: { host?: string; path?: string }[] = []
  beforeAll(async () => {
    local = http.createServer((req, res) => {
      seen.push({ host: req.headers.host, path: req.url })
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
    await new Promise<void>((r) => local.listen(0, '127.0.0.1', r))
    port = (local.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((r) => local.close(() => r())))

  const PUBLIC = '93.184.215.14'

  it('a public MCP server\'s issuer may not resolve to loopback, private, link-local or unspecified addresses', async () => {
    for (const [address, cls] of [['127.0.0.1', 'loopback'], ['10.0.0.7', 'private'], ['fd00::1', 'private'], ['169.254.169.254', 'link-local'], ['0.0.0.0', 'unspecified']]) {
      const { resolve } = resolver({ 'mcp.example': [PUBLIC], 'idp.example': [address] })
      const targets = await OAuthTargets.of('https://mcp.example/mcp', resolve)
      targets.trustIssuer(new URL(`http://idp.example:${port}`))
      await expect(targets.fetch(`http://idp.example:${port}/.well-known/oauth-authorization-server`))
        .rejects.toThrow(`http://idp.example:${port}/.well-known/oauth-authorization-server resolves to ${address}, a ${cls} address: OAuth requests for an MCP server at mcp.example go to public addresses only`)
    }
    expect(seen).toEqual([]) // nothing reached the loopback listener
  })

  it('one private address among public ones is enough to refuse', async () => {
    const { resolve } = resolver({ 'mcp.example': [PUBLIC], 'idp.example': [PUBLIC, '10.0.0.7'] })
    const targets = await OAuthTargets.of('https://mcp.example/mcp', resolve)
    targets.trustIssuer(new URL('https://idp.example'))
    await expect(targets.fetch('https://idp.example/token', { method: 'POST' })).rejects.toThrow('resolves to 10.0.0.7, a private address')
  })

  it('an IP literal is checked as it is, without asking DNS', async () => {
    const { resolve, asked } = resolver({ 'mcp.example': [PUBLIC] })
    const targets = await OAuthTargets.of('https://mcp.example/mcp', resolve)
    targets.trustIssuer(new URL('http://169.254.169.254'))
    await expect(targets.fetch('http://169.254.169.254/latest/meta-data/')).rejects.toThrow('resolves to 169.254.169.254, a link-local address')
    expect(asked).toEqual(['mcp.example'])
  })

  it('a loopback MCP server may use a loopback issuer, and the connection goes to the address that was checked', async () => {
    // idp.internal exists only in this resolver: reaching the listener proves the checked address was dialled
    const { resolve } = resolver({ 'mcp.internal': ['127.0.0.1'], 'idp.internal': ['127.0.0.1'] })
    const targets = await OAuthTargets.of(`http://mcp.internal:${port}/mcp`, resolve)
    targets.trustIssuer(new URL(`http://idp.internal:${port}`))
    const res = await targets.fetch(`http://idp.internal:${port}/.well-known/oauth-authorization-server`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true })
    expect(seen.at(-1)).toEqual({ host: `idp.internal:${port}`, path: '/.well-known/oauth-authorization-server' })
  })

  it('a loopback MCP server still reaches nothing private or link-local', async () => {
    const { resolve } = resolver({ 'mcp.internal': ['127.0.0.1'], 'idp.internal': ['169.254.169.254'] })
    const targets = await OAuthTargets.of(`http://mcp.internal:${port}/mcp`, resolve)
    targets.trustIssuer(new URL('http://idp.internal'))
    await expect(targets.fetch('http://idp.internal/')).rejects.toThrow('go to public or loopback addresses only')
  })

  it('an origin that is neither the server\'s nor the issuer\'s is refused before any lookup', async () => {
    const { resolve, asked } = resolver({ 'mcp.example': [PUBLIC] })
    const targets = await OAuthTargets.of('https://mcp.example/mcp', resolve)
    await expect(targets.fetch('https://other.example/x')).rejects.toThrow('https://other.example/x is on neither the MCP server\'s origin (https://mcp.example) nor its issuer\'s')
    await expect(targets.fetch('file:///etc/passwd')).rejects.toThrow('only http(s) URLs are fetched')
    expect(asked).toEqual(['mcp.example'])
  })
})

import { describe, expect, it, vi } from 'vitest'
import { boundaryFault, boundaryFromEnv, hostName, publicOrigin } from '@/lib/http/boundary'
import { returnPathSchema, sameSitePath, strictReturnPathSchema } from '@/lib/schemas/return-path'
import { logError, logLine, quote } from '@/lib/core/log'
import { isLoopback } from '@/lib/auth/caller'
import { idBoundsFault } from '@/lib/preflight/ids'
import { separateSecrets } from '@/lib/admin/upstreams'

describe('the boundary: Host and Origin (DNS rebinding)', () => {
  const b = boundaryFromEnv({})
  it('serves loopback names and IP literals, with or without a port', () => {
    for (const host of ['127.0.0.1:3000', 'localhost:3000', 'LOCALHOST', '[::1]:3000', '10.0.0.7:3000', '127.0.0.1']) {
      expect(boundaryFault(b, host, undefined), host).toBeNull()
    }
  })
  it('refuses other names, a missing Host and garbage', () => {
    for (const host of ['evil.example', 'evil.example:3000', 'localhost.evil.example', undefined, '', 'a b', 'x@127.0.0.1']) {
      expect(boundaryFault(b, host, undefined), String(host)).toMatch(/is not a name this toolgate serves/)
    }
  })
  it('TOOLGATE_ALLOWED_HOSTS adds names (a reverse proxy)', () => {
    const behindProxy = boundaryFromEnv({ TOOLGATE_ALLOWED_HOSTS: 'toolgate.corp.example, other.example' })
    expect(boundaryFault(behindProxy, 'toolgate.corp.example', undefined)).toBeNull()
    expect(boundaryFault(b, 'toolgate.corp.example', undefined)).not.toBeNull()
  })
  it('an Origin must be our own (the Host it was reached on) or allowed', () => {
    expect(boundaryFault(b, '127.0.0.1:3000', 'http://127.0.0.1:3000')).toBeNull()
    expect(boundaryFault(b, 'localhost:3000', 'http://localhost:3000/')).toBeNull()
    for (const origin of ['http://evil.example', 'http://127.0.0.1:3001', 'null', 'http://localhost:3000.evil.example']) {
      expect(boundaryFault(b, '127.0.0.1:3000', origin), origin).toMatch(/may not use this toolgate/)
    }
    const allowed = boundaryFromEnv({ TOOLGATE_ALLOWED_ORIGINS: 'https://console.example' })
    expect(boundaryFault(allowed, '127.0.0.1:3000', 'https://console.example')).toBeNull()
  })
  it('parses Host headers', () => {
    expect(hostName('[::1]:80')).toBe('::1')
    expect(hostName('Example.COM:443')).toBe('example.com')
    expect(hostName('a:b:c')).toBeNull()
  })
})

describe("toolgate's own origin, for the URLs it hands out", () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name]
  const forged = { host: '127.0.0.1:3000', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }
  it('is the Host it was reached on; X-Forwarded-* are not believed by default', () => {
    expect(publicOrigin(boundaryFromEnv({}), headers(forged))).toBe('http://127.0.0.1:3000')
    expect(publicOrigin(boundaryFromEnv({}), headers({}))).toBeNull()
  })
  it('behind a proxy it was told of (TOOLGATE_TRUST_PROXY), the forwarded proto, and a forwarded host the boundary serves', () => {
    const b = boundaryFromEnv({ TOOLGATE_TRUST_PROXY: '1', TOOLGATE_ALLOWED_HOSTS: 'toolgate.corp.example' })
    expect(publicOrigin(b, headers(forged))).toBe('https://127.0.0.1:3000')
    expect(publicOrigin(b, headers({ ...forged, 'x-forwarded-host': 'toolgate.corp.example, proxy.internal' }))).toBe('https://toolgate.corp.example')
    expect(publicOrigin(b, headers({ host: '127.0.0.1:3000', 'x-forwarded-proto': 'http' }))).toBe('http://127.0.0.1:3000')
  })
})

describe('redirect targets stay on the site', () => {
  it.each([
    '/%09/evil.example', '/\t/evil.example', '/%0a/evil.example', '/%0d/evil.example', '/\n/x', '//evil.example', '/\\evil.example',
    '/%5cevil.example', '/%2f/evil.example', 'https://evil.example', 'http:/evil.example', 'evil', '', ' /x', '/x y', '/%E0%A4%A',
    // dot segments a browser removes, leaving a protocol-relative "//host" (issue 22, Medium #5)
    '/.//evil.example/', '/%2e//evil.example', '/%2E//evil.example', '/a/..//evil.example', '/a/%2e%2e//evil.example', '/a/.%2e//evil.example',
    '/././/evil.example', '/..//evil.example', '/a/b/../..//evil.example', '/.//evil.example/?next=/', '/%2e%2e//evil.example#x',
  ])('refuses %j', (next) => {
    expect(sameSitePath(next)).toBeNull()
    expect(strictReturnPathSchema.safeParse(next).success).toBe(false)
    expect(returnPathSchema.parse(next)).toBe('/')
  })
  it.each([['/', '/'], ['/servers/notes', '/servers/notes'], ['/activity?request_id=req_1', '/activity?request_id=req_1'], ['/preflight?id=a%3Ab', '/preflight?id=a%3Ab'], ['/a/../servers', '/servers'], ['/./tokens', '/tokens']])('keeps %j as %j', (next, kept) => {
    expect(sameSitePath(next)).toBe(kept)
  })
  it('refuses non-strings', () => {
    expect(sameSitePath(undefined)).toBeNull()
    expect(sameSitePath(['/x'])).toBeNull()
  })
})

describe('log lines cannot be forged or flooded', () => {
  it('escapes control characters and truncates', () => {
    expect(logLine('tools/list\n2026-01-01 toolgate: FORGED\r\u001b[31m')).toBe('tools/list\\n2026-01-01 toolgate: FORGED\\r\\u001b[31m')
    const long = logLine('x'.repeat(1_000_000))
    expect(long.length).toBeLessThan(2_100)
    expect(long).toMatch(/more characters\)$/)
    expect(quote('y'.repeat(20_000))).toMatch(/^"y{100}… \(19900 more characters\)"$/)
  })

  it('logError writes every failure as one such line to stderr', () => {
    const written = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      logError('toolgate: request failed: no\n2026-01-01 toolgate: FORGED')
      logError('z'.repeat(10_000), 8_000)
      expect(written.mock.calls).toEqual([['toolgate: request failed: no\\n2026-01-01 toolgate: FORGED'], [logLine('z'.repeat(10_000), 8_000)]])
      expect(written.mock.calls[1][0]).toMatch(/^z{8000}… \(2000 more characters\)$/)
    } finally {
      written.mockRestore()
    }
  })
})

describe('bounded input', () => {
  it('an id over 256 characters, or naming a server over 64, is a request error quoting at most ~100 characters', () => {
    expect(idBoundsFault('a:' + 'b'.repeat(254))).toBeNull()
    const fault = idBoundsFault('a:' + 'b'.repeat(20_000))!
    expect(fault).toMatch(/is 20002 characters long \(max 256\)/)
    expect(fault.length).toBeLessThan(200)
    expect(idBoundsFault('s'.repeat(65) + ':t')).toMatch(/names a server of 65 characters \(max 64\)/)
    expect(idBoundsFault('no-colon-but-short')).toBeNull() // malformed ids are verdicts, not request errors
  })
})

describe('loopback callers', () => {
  it.each([['127.0.0.1', true], ['127.8.9.10', true], ['::1', true], ['::ffff:127.0.0.1', true], ['10.0.0.5', false], ['::ffff:10.0.0.5', false], ['fe80::1', false], [undefined, false]])('%s → %s', (a, loop) => {
    expect(isLoopback(a)).toBe(loop)
  })
})

describe('transport secrets', () => {
  it('every env and header value becomes a secret; placeholders name secrets to provide', () => {
    expect(separateSecrets({ command: 'npx', args: ['srv'], env: { GITHUB_TOKEN: 'ghp_secret', MODE: 'fast', KEY: '${KEY}', EMPTY: '' } })).toEqual({
      transport: { command: 'npx', args: ['srv'], secrets: ['GITHUB_TOKEN', 'MODE', 'KEY', 'EMPTY'] },
      values: { GITHUB_TOKEN: 'ghp_secret', MODE: 'fast' },
    })
    expect(separateSecrets({ url: 'https://x.example/mcp', headers: { Authorization: 'Bearer abc' } })).toEqual({
      transport: { url: 'https://x.example/mcp', secrets: ['Authorization'] }, values: { Authorization: 'Bearer abc' },
    })
  })
})

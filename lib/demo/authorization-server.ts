import 'server-only'
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ToolgateError } from '@/lib/core/errors'
import { parseJson, PayloadTooLarge, readBody, sendJson } from '@/lib/http/json'
import { formatIssues } from '@/lib/schemas/issues'
import { authorizeSchema, consentSchema, registrationSchema, tokenSchema } from '@/lib/schemas/demo'

const CONSENT_TTL_MS = 10 * 60_000
const CODE_TTL_MS = 5 * 60_000
const ACCESS_TTL_S = 3600

interface Client { id: string; name: string; redirectUris: string[] }
interface Grant { clientId: string; scope: string; resource: string }
interface Consent extends Grant { redirectUri: string; state?: string; challenge: string; expiresAt: number }
interface Code extends Grant { redirectUri: string; challenge: string; expiresAt: number; used: boolean; grantId: string }
/** Tokens of one grant (one approved code and every refresh after it) share its id, so they are revoked together. */
interface RefreshToken extends Grant { grantId: string }
interface AccessToken extends RefreshToken { expiresAt: number }

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
const secret = (prefix: string) => `${prefix}_${randomBytes(24).toString('base64url')}`
const scopesOf = (s: string) => s.split(/\s+/).filter(Boolean)

class OAuthError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

/**
 * The demo's OAuth 2.1 authorization server for one protected resource (the demo jira): RFC 8414
 * metadata, RFC 7591 dynamic registration of public clients, authorization code with PKCE S256
 * and the resource parameter, a consent page a person approves, rotating refresh tokens. Every
 * client, code and token lives in memory: a new run starts with none, like a new deployment.
 */
export class DemoAuthorizationServer {
  private clients = new Map<string, Client>()
  private consents = new Map<string, Consent>()
  private codes = new Map<string, Code>()
  private accessTokens = new Map<string, AccessToken>()
  private refreshTokens = new Map<string, RefreshToken>()

  constructor(readonly issuer: string, readonly resource: string, readonly scopes: readonly string[]) {}

  metadata() {
    return {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      registration_endpoint: `${this.issuer}/register`,
      scopes_supported: this.scopes,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    }
  }

  /** Whether a bearer token is live and was issued for this resource (the resource server's check). */
  verify(token: string): boolean {
    const t = this.accessTokens.get(token)
    return t !== undefined && t.expiresAt > Date.now() && t.resource === this.resource
  }

  handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', this.issuer)
    const route = `${req.method} ${url.pathname}`
    try {
      switch (route) {
        case 'GET /.well-known/oauth-authorization-server': return sendJson(res, 200, this.metadata())
        case 'POST /register': return sendJson(res, 201, this.register(parseJson(await readBody(req))))
        case 'GET /authorize': return this.authorize(url.searchParams, res)
        case 'POST /authorize': return this.decide(new URLSearchParams((await readBody(req)).toString('utf8')), res)
        case 'POST /token': return sendJson(res, 200, this.token(new URLSearchParams((await readBody(req)).toString('utf8'))))
        default: return sendJson(res, 404, { error: 'not_found', error_description: `no ${route} here` })
      }
    } catch (e) {
      if (e instanceof OAuthError) return sendJson(res, e.status, { error: e.code, error_description: e.message }, e.status === 401 ? { 'www-authenticate': 'Basic realm="demo"' } : {})
      if (e instanceof PayloadTooLarge) return sendJson(res, 413, { error: 'invalid_request', error_description: e.message })
      if (e instanceof ToolgateError) return sendJson(res, 400, { error: 'invalid_request', error_description: e.message }) // a body that is not JSON
      throw e
    }
  }

  private register(body: unknown) {
    const parsed = registrationSchema.safeParse(body)
    if (!parsed.success) {
      const code = parsed.error.issues.some((i) => i.path[0] === 'redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata'
      throw new OAuthError(400, code, formatIssues(parsed.error))
    }
    const m = parsed.data
    const client: Client = { id: secret('demo_client'), name: m.client_name ?? 'an unnamed client', redirectUris: m.redirect_uris }
    this.clients.set(client.id, client)
    return {
      client_id: client.id, client_id_issued_at: Math.floor(Date.now() / 1000), client_name: m.client_name,
      redirect_uris: m.redirect_uris, grant_types: m.grant_types, response_types: m.response_types, token_endpoint_auth_method: m.token_endpoint_auth_method,
    }
  }

  /**
   * Validate an authorization request and show the consent page. An unknown client or an
   * unregistered redirect URI is answered here (redirecting there would hand a code to whoever
   * asked); any other problem goes back to the client's redirect URI, as RFC 6749 §4.1.2.1 says.
   */
  private authorize(q: URLSearchParams, res: ServerResponse): void {
    this.prune()
    const client = this.clients.get(q.get('client_id') ?? '')
    if (!client) return notice(res, 400, 'Unknown client', 'This authorization server has no client with that client_id. Clients register anew each run: start the login again from toolgate.')
    const redirectUri = q.get('redirect_uri') ?? ''
    if (!client.redirectUris.includes(redirectUri)) return notice(res, 400, 'Unregistered redirect URI', `The redirect_uri is not one ${client.name} registered.`)
    const back = (error: string, description: string) => redirect(res, redirectUri, { error, error_description: description, state: q.get('state') ?? undefined })
    const parsed = authorizeSchema.safeParse(Object.fromEntries(q))
    if (!parsed.success) return back('invalid_request', formatIssues(parsed.error))
    const p = parsed.data
    if (p.resource !== this.resource) return back('invalid_target', `this server issues tokens for ${this.resource} only`)
    const scopes = p.scope ? scopesOf(p.scope) : [...this.scopes]
    const unknown = scopes.filter((s) => !this.scopes.includes(s))
    if (unknown.length) return back('invalid_scope', `unknown scope ${unknown.join(' ')}; supported: ${this.scopes.join(' ')}`)
    const request = secret('consent')
    this.consents.set(request, {
      clientId: client.id, redirectUri, state: p.state, challenge: p.code_challenge, scope: scopes.join(' '), resource: p.resource,
      expiresAt: Date.now() + CONSENT_TTL_MS,
    })
    page(res, 200, 'Approve access?', `<p><b>${escape(client.name)}</b> asks for access to <b>${escape(this.resource)}</b> with the scope <code>${escape(scopes.join(' '))}</code>.</p>
      <p>This is toolgate's demo authorization server: it runs on this machine for this run only, knows no users and grants nothing outside the demo.</p>
      <form method="post" action="/authorize">
        <input type="hidden" name="request" value="${escape(request)}">
        <button name="decision" value="approve" autofocus>Approve</button>
        <button name="decision" value="deny">Deny</button>
      </form>`)
  }

  /** The person's decision on a consent page: a one-time code to the client, or access_denied. */
  private decide(form: URLSearchParams, res: ServerResponse): void {
    this.prune()
    const parsed = consentSchema.safeParse(Object.fromEntries(form))
    if (!parsed.success) return notice(res, 400, 'Not a decision', formatIssues(parsed.error))
    const consent = this.consents.get(parsed.data.request)
    // single use: a second submit (or a replayed form) finds nothing
    this.consents.delete(parsed.data.request)
    if (!consent) return notice(res, 400, 'This approval request has expired', 'It was already answered or is older than 10 minutes: start the login again from toolgate.')
    if (parsed.data.decision === 'deny') return redirect(res, consent.redirectUri, { error: 'access_denied', error_description: 'the request was denied on the consent page', state: consent.state })
    const code = secret('demo_code')
    const { redirectUri, challenge, clientId, scope, resource } = consent
    this.codes.set(code, { clientId, scope, resource, redirectUri, challenge, expiresAt: Date.now() + CODE_TTL_MS, used: false, grantId: secret('grant') })
    redirect(res, redirectUri, { code, state: consent.state, iss: this.issuer })
  }

  private token(form: URLSearchParams) {
    this.prune()
    const grantType = form.get('grant_type')
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') throw new OAuthError(400, 'unsupported_grant_type', `grant_type must be authorization_code or refresh_token, not ${JSON.stringify(grantType)}`)
    const parsed = tokenSchema.safeParse(Object.fromEntries(form))
    if (!parsed.success) throw new OAuthError(400, 'invalid_request', formatIssues(parsed.error))
    const t = parsed.data
    if (!this.clients.has(t.client_id)) throw new OAuthError(401, 'invalid_client', 'unknown client_id')
    if (t.grant_type === 'authorization_code') {
      const code = this.codes.get(t.code)
      if (!code) throw new OAuthError(400, 'invalid_grant', 'unknown or expired authorization code')
      if (code.used) {
        // a code presented twice was stolen or replayed: what it already bought is revoked too
        this.revoke(code.grantId)
        throw new OAuthError(400, 'invalid_grant', 'the authorization code was already used; the tokens issued for it are revoked')
      }
      code.used = true // one attempt per code, whatever its outcome
      if (code.clientId !== t.client_id) throw new OAuthError(400, 'invalid_grant', 'the authorization code was issued to another client')
      if (code.redirectUri !== t.redirect_uri) throw new OAuthError(400, 'invalid_grant', 'redirect_uri differs from the authorization request')
      if (!sameSecret(createHash('sha256').update(t.code_verifier).digest('base64url'), code.challenge)) throw new OAuthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge (PKCE S256)')
      if (t.resource !== undefined && t.resource !== code.resource) throw new OAuthError(400, 'invalid_target', `the code was issued for ${code.resource}`)
      return this.issue(code.grantId, code)
    }
    const refresh = this.refreshTokens.get(t.refresh_token)
    if (!refresh || refresh.clientId !== t.client_id) throw new OAuthError(400, 'invalid_grant', 'unknown, rotated or revoked refresh token')
    if (t.resource !== undefined && t.resource !== refresh.resource) throw new OAuthError(400, 'invalid_target', `the refresh token is for ${refresh.resource}`)
    const granted = scopesOf(refresh.scope)
    const asked = t.scope ? scopesOf(t.scope) : granted
    if (asked.some((s) => !granted.includes(s))) throw new OAuthError(400, 'invalid_scope', `a refresh may narrow the scope, never widen it (granted: ${refresh.scope})`)
    // rotation: each refresh token works once
    this.refreshTokens.delete(t.refresh_token)
    return this.issue(refresh.grantId, { ...refresh, scope: asked.join(' ') })
  }

  private issue(grantId: string, g: Grant) {
    const access = secret('demo_at')
    const refresh = secret('demo_rt')
    const grant = { grantId, clientId: g.clientId, scope: g.scope, resource: g.resource }
    this.accessTokens.set(access, { ...grant, expiresAt: Date.now() + ACCESS_TTL_S * 1000 })
    this.refreshTokens.set(refresh, grant)
    return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TTL_S, refresh_token: refresh, scope: g.scope }
  }

  private revoke(grantId: string): void {
    for (const tokens of [this.accessTokens, this.refreshTokens]) {
      for (const [k, t] of tokens) if (t.grantId === grantId) tokens.delete(k)
    }
  }

  /** Forget what expired (a used code is kept until then, so its reuse is recognized). */
  private prune(): void {
    const now = Date.now()
    for (const map of [this.consents, this.codes, this.accessTokens] as Map<string, { expiresAt: number }>[]) {
      for (const [k, v] of map) if (v.expiresAt <= now) map.delete(k)
    }
  }
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function redirect(res: ServerResponse, to: string, params: Record<string, string | undefined>): void {
  const u = new URL(to)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v)
  res.writeHead(303, { location: u.href, 'cache-control': 'no-store' })
  res.end()
}

/** A page whose body is plain text. */
const notice = (res: ServerResponse, status: number, title: string, text: string) => page(res, status, title, `<p>${escape(text)}</p>`)

function page(res: ServerResponse, status: number, title: string, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store',
    // a consent page must not be framed (clickjacking) and runs no script
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
  })
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escape(title)} · toolgate demo</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5}button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}</style></head>
<body><p>toolgate demo · authorization server</p><h1>${escape(title)}</h1>${html}</body></html>`)
}

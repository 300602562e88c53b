import 'server-only'
import * as client from 'openid-client'
import type { DbLike } from '@/db/client'
import { openSecret, sealSecret } from '@/db/secrets'
import { describeError } from '@/lib/core/errors'
import { formatIssues } from '@/lib/schemas/issues'
import { sameSitePath } from '@/lib/schemas/return-path'
import type { Role } from './roles'
import { oidcEnvSchema as envSchema, oidcFlowSchema as flowSchema, type OidcFlow as Flow } from '@/lib/schemas/operators'
import { environment } from '@/lib/core/config'

/**
 * Single sign-on with OpenID Connect. The protocol is openid-client's (a certified relying
 * party): discovery, authorization code + PKCE (S256), `state`, `nonce`, and the ID token's
 * `iss`, `aud`/`azp`, `exp`/`iat` (30 s clock tolerance) — none of it is hand-written here. The ID
 * token comes straight from the token endpoint, whose TLS vouches for it, so its signature is
 * not checked (OIDC Core §3.1.3.7, step 6; openid-client's default).
 * Configured by environment only (docs/security.md): the client secret is read from
 * TOOLGATE_OIDC_CLIENT_SECRET and never written to the database.
 */
export const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback'
export const OIDC_START_PATH = '/api/auth/oidc/start'
/** The flow cookie: the sealed state, nonce and PKCE verifier of one sign-in in progress. SameSite=Lax: the provider's redirect back is a cross-site navigation. */
export const OIDC_FLOW_COOKIE = 'toolgate_oidc_flow'
export const OIDC_FLOW_TTL_MS = 10 * 60 * 1000

export interface OidcConfig {
  issuer: URL
  clientId: string
  clientSecret: string | null
  /** the button says "Sign in with <label>" */
  label: string
  scopes: string
  /** empty: any domain (the role mapping still decides) */
  allowedDomains: string[]
  roleClaim: string
  /** group (a value of the role claim) → role; a person in several groups gets the highest role */
  roleMap: Map<string, Role>
  /** the role of an allowed person whose groups map to none; null: such a person needs an account made by an admin */
  defaultRole: Role | null
}

/** SSO's configuration, or null when TOOLGATE_OIDC_ISSUER is unset. A bad value is an error that names the variable. */
export function oidcConfig(env: Record<string, string | undefined> = environment()): OidcConfig | null {
  if (!env.TOOLGATE_OIDC_ISSUER) return null
  const p = envSchema.safeParse(env)
  if (!p.success) throw new Error(`single sign-on is misconfigured: ${formatIssues(p.error)}`)
  const c = p.data
  const issuer = new URL(c.TOOLGATE_OIDC_ISSUER)
  return {
    issuer, clientId: c.TOOLGATE_OIDC_CLIENT_ID, clientSecret: c.TOOLGATE_OIDC_CLIENT_SECRET ?? null,
    label: c.TOOLGATE_OIDC_NAME ?? issuer.hostname, scopes: c.TOOLGATE_OIDC_SCOPES,
    allowedDomains: c.TOOLGATE_OIDC_ALLOWED_DOMAINS, roleClaim: c.TOOLGATE_OIDC_ROLE_CLAIM,
    roleMap: c.TOOLGATE_OIDC_ROLES, defaultRole: c.TOOLGATE_OIDC_DEFAULT_ROLE ?? null,
  }
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost'])

let discovered: { key: string; config: Promise<client.Configuration> } | undefined

/** The provider's metadata, found once (a failed discovery is tried again next time). Plain http only for a provider on loopback. */
function configuration(c: OidcConfig): Promise<client.Configuration> {
  const key = JSON.stringify([c.issuer.href, c.clientId, c.clientSecret])
  if (discovered?.key !== key) {
    if (c.issuer.protocol === 'http:' && !LOOPBACK.has(c.issuer.hostname)) {
      return Promise.reject(new Error(`the issuer ${c.issuer.href} is plain http: only a provider on loopback may be; use https`))
    }
    // client_secret_basic: the token endpoint's default method (OIDC Core §9); no secret: a public client, PKCE alone
    const config = client.discovery(c.issuer, c.clientId, undefined, c.clientSecret ? client.ClientSecretBasic(c.clientSecret) : client.None(), {
      execute: c.issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [], timeout: 10,
    })
    config.catch(() => { if (discovered?.config === config) discovered = undefined })
    discovered = { key, config }
  }
  return discovered.config
}

/**
 * The start of a sign-in: where to send the browser, and the flow cookie's value (sealed with
 * the database's secret key: the browser can neither read nor change it).
 */
export async function beginOidcSignIn(db: DbLike, c: OidcConfig, origin: string, next: string, now = Date.now()): Promise<{ url: URL; cookie: string }> {
  const config = await configuration(c)
  const flow: Flow = {
    state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier(),
    redirectUri: new URL(OIDC_CALLBACK_PATH, origin).href, next: sameSitePath(next) ?? '/', at: now,
  }
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: flow.redirectUri, scope: c.scopes, state: flow.state, nonce: flow.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(flow.verifier), code_challenge_method: 'S256',
  })
  return { url, cookie: Buffer.from(sealSecret(db, JSON.stringify(flow))).toString('base64url') }
}

/** What the provider vouched for, as toolgate maps it (lib/admin/sso.ts). */
export interface SsoIdentity {
  /** `iss` + " " + `sub`: the identity's one stable name */
  subject: string
  email: string | null
  emailVerified: boolean
  name: string | null
  preferredUsername: string | null
  groups: string[]
}

export type SsoRefusal = 'flow' | 'provider' | 'check' | 'issuer' | 'audience' | 'expired' | 'unavailable' | 'unverified' | 'domain' | 'unmapped' | 'linked_elsewhere' | 'disabled' | 'off'

/** Every refusal, as the sign-in page says it. The details (which e-mail, which check) are in the activity log. */
export const SSO_REFUSALS: Record<SsoRefusal, { error: string; fix: string }> = {
  flow: { error: 'This single sign-on did not start in this browser, or took longer than 10 minutes.', fix: 'Nothing was changed. Start again with the sign-in button.' },
  provider: { error: 'The identity provider did not complete the sign-in.', fix: 'Nothing was changed. Start again; the provider may have asked you to consent or to sign in again.' },
  check: { error: 'The identity provider\'s answer failed toolgate\'s checks (its state, nonce or code did not match this sign-in).', fix: 'Nothing was changed. Start again with the sign-in button; if it keeps happening, an admin should check the TOOLGATE_OIDC_* settings.' },
  issuer: { error: 'The ID token was issued by another identity provider than the one this toolgate trusts (its iss claim).', fix: 'Nothing was changed. An admin should check that TOOLGATE_OIDC_ISSUER is exactly the provider\'s issuer.' },
  audience: { error: 'The ID token was issued to another application, not to this toolgate (its aud claim).', fix: 'Nothing was changed. An admin should check that TOOLGATE_OIDC_CLIENT_ID is the client registered at the provider.' },
  expired: { error: 'The ID token had expired, or was issued too long ago (its exp or iat claim, with 30 seconds of clock skew allowed).', fix: 'Nothing was changed. Start again with the sign-in button; if it keeps happening, the clock of this server or of the provider is wrong.' },
  unavailable: { error: 'The identity provider could not be reached.', fix: 'Nothing was changed. Try again shortly; an admin can check TOOLGATE_OIDC_ISSUER, or sign in with a password or the break-glass key.' },
  unverified: { error: 'Your identity provider did not vouch for an e-mail address (no verified e-mail in its answer).', fix: 'Ask your identity provider\'s admin to release a verified e-mail to toolgate.' },
  domain: { error: 'Your e-mail domain is not one this toolgate accepts for single sign-on.', fix: 'Sign in with your work account, or ask a toolgate admin to add the domain to TOOLGATE_OIDC_ALLOWED_DOMAINS.' },
  unmapped: { error: 'Your identity is not mapped to a toolgate account: no account has your e-mail, and none of your groups maps to a role.', fix: 'Ask a toolgate admin to add an account with your e-mail (Operators page), or to map one of your groups in TOOLGATE_OIDC_ROLES.' },
  linked_elsewhere: { error: 'The toolgate account with your e-mail is already linked to another identity at the provider.', fix: 'Ask a toolgate admin: the account was first used by a different provider identity.' },
  disabled: { error: 'Your toolgate account is disabled.', fix: 'Ask an admin to enable it.' },
  off: { error: 'Single sign-on is not configured on this toolgate.', fix: 'Sign in with your password, or an admin sets TOOLGATE_OIDC_ISSUER and TOOLGATE_OIDC_CLIENT_ID.' },
}

export const isSsoRefusal = (v: unknown): v is SsoRefusal => typeof v === 'string' && Object.hasOwn(SSO_REFUSALS, v)

export type OidcOutcome = { identity: SsoIdentity; next: string } | { refused: SsoRefusal; detail: string }

function openFlow(db: DbLike, cookie: string | undefined, now: number): Flow | null {
  if (!cookie) return null
  try {
    const f = flowSchema.parse(JSON.parse(openSecret(db, Buffer.from(cookie, 'base64url').toString())))
    return now - f.at <= OIDC_FLOW_TTL_MS ? f : null
  } catch {
    return null // not sealed by this toolgate, or changed
  }
}

const stringsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [])

/**
 * The end of a sign-in: the provider's redirect (its query) checked against the flow cookie,
 * the code exchanged, the ID token validated, and the person's claims (the ID token's, then
 * the userinfo endpoint's for the same `sub`). Or why not.
 */
export async function finishOidcSignIn(db: DbLike, c: OidcConfig, query: URLSearchParams, cookie: string | undefined, now = Date.now()): Promise<OidcOutcome> {
  const flow = openFlow(db, cookie, now)
  if (!flow) return { refused: 'flow', detail: cookie ? 'the flow cookie is expired or was not sealed by this toolgate' : 'no flow cookie' }
  if (query.has('error')) return { refused: 'provider', detail: `${query.get('error')}: ${query.get('error_description') ?? ''}`.slice(0, 300) }
  let config: client.Configuration
  try {
    config = await configuration(c)
  } catch (e) {
    return { refused: 'unavailable', detail: describeError(e) }
  }
  const callback = new URL(flow.redirectUri)
  callback.search = query.toString()
  try {
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true })
    const claims = tokens.claims()!
    let info: Record<string, unknown> = {}
    if (tokens.access_token && config.serverMetadata().userinfo_endpoint) info = await client.fetchUserInfo(config, tokens.access_token, claims.sub)
    const all: Record<string, unknown> = { ...claims, ...info }
    const email = typeof all.email === 'string' ? all.email.trim().toLowerCase() : null
    return {
      next: flow.next,
      identity: {
        subject: `${claims.iss} ${claims.sub}`, email, emailVerified: all.email_verified === true,
        name: typeof all.name === 'string' ? all.name : null,
        preferredUsername: typeof all.preferred_username === 'string' ? all.preferred_username : null,
        groups: stringsOf(all[c.roleClaim]),
      },
    }
  } catch (e) {
    return answerRefused(e)
  }
}

/**
 * Which check the provider's answer failed, as openid-client reports it: its error (or a cause)
 * carries oauth4webapi's code and the claim compared; a failed fetch or a timeout means the
 * provider was not reached. The detail is every message of the chain (it names the claim).
 */
function answerRefused(e: unknown): { refused: SsoRefusal; detail: string } {
  const chain: (Error & { code?: unknown; cause?: unknown })[] = []
  for (let x: unknown = e; x instanceof Error && chain.length < 5; x = x.cause) chain.push(x)
  const detail = (chain.length ? chain.map((x) => x.message) : [describeError(e)]).join(': ').slice(0, 300)
  const codes = new Set(chain.map((x) => x.code))
  const claim = chain.map((x) => (x.cause as { claim?: unknown } | undefined)?.claim).find((c) => typeof c === 'string')
  if (chain.some((x) => x instanceof TypeError && x.message === 'fetch failed') || codes.has('OAUTH_TIMEOUT')) return { refused: 'unavailable', detail }
  if (codes.has('OAUTH_JWT_TIMESTAMP_CHECK_FAILED') && (claim === 'exp' || claim === 'iat')) return { refused: 'expired', detail }
  if (codes.has('OAUTH_JWT_CLAIM_COMPARISON_FAILED') && claim === 'iss') return { refused: 'issuer', detail }
  if (codes.has('OAUTH_JWT_CLAIM_COMPARISON_FAILED') && (claim === 'aud' || claim === 'azp')) return { refused: 'audience', detail }
  return { refused: 'check', detail }
}

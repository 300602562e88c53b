import 'server-only'
import { randomBytes } from 'node:crypto'
import {
  auth, createPrivateKeyJwtAuth, extractWWWAuthenticateParams,
  type OAuthClientInformationFull, type OAuthClientMetadata, type OAuthClientProvider, type OAuthDiscoveryState, type OAuthTokens,
} from '@modelcontextprotocol/client'
import type { Db, Tx } from '@/db/client'
import { insertActivity } from '@/lib/activity/record'
import { writeTransaction } from '@/db/write'
import type { OAuthState } from '@/db/secrets'
import { isStdio } from '@/db/schema'
import { mintRequestId } from '@/lib/activity/request-id'
import { badRequest } from '@/lib/core/errors'
import { requireServer } from '@/db/queries/servers'
import { oauthByState, oauthOf, saveOauth } from '@/db/queries/upstream'
import { updateServer } from '@/db/queries/servers'
import { recordChange, type ActionContext, type Recorded } from '@/lib/activity/record-change'
import { upstreamFetch } from './fetch'
import { bounded, discoverWithin, OAUTH_REQUEST_TIMEOUT_MS, OAuthTargets } from './oauth-targets'

export const CALLBACK_PATH = '/api/upstream/oauth/callback'
/** Where toolgate serves its own client ID metadata document (an HTTPS toolgate can name it as its client). */
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json'

/**
 * toolgate's client ID metadata document as served at `origin`: its client_id is its own URL and
 * its redirect URI toolgate's callback there, so an authorization server that fetches it can let
 * toolgate log in without any registration (`upstream oauth <name> --client-metadata-url <it>`).
 */
export function clientMetadataDocument(origin: string) {
  return {
    client_id: new URL(CLIENT_METADATA_PATH, origin).href,
    client_name: 'toolgate',
    client_uri: new URL('/', origin).href,
    redirect_uris: [new URL(CALLBACK_PATH, origin).href],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  }
}
const REFRESH_RACE_MS = 10_000


/**
 * An OAuth client provider whose state lives in the database, so a login started by the CLI
 * or the dashboard can be finished by the callback route and used by the runtime.
 * `interactive: false` (the runtime) may refresh tokens but never starts a login by itself.
 * A server's client is registered dynamically at the first login, or was issued beforehand
 * (kept through credential resets), or is a client ID metadata document URL; a server set to
 * client credentials gets its tokens without anyone logging in.
 */
export class DbOAuthProvider implements OAuthClientProvider {
  authorizationUrl?: URL
  private targets?: Promise<OAuthTargets>
  /** A login's writes, kept back (and read through) until it commits them with its record (stage). */
  private staged?: Partial<OAuthState>

  /** `resourceMetadataUrl`: where the server's challenge said its metadata is (a login's first discovery) */
  constructor(private db: Db, private server: string, private serverUrl: string, private redirect: string, private interactive: boolean, private resourceMetadataUrl?: URL) {}

  /** Where this server's OAuth requests may go (its origin and its issuer's); worked out once, when first needed. */
  private oauthTargets(): Promise<OAuthTargets> {
    this.targets ??= OAuthTargets.of(this.serverUrl).then((t) => {
      const issuer = this.row?.discovery?.authorizationServerUrl
      if (typeof issuer === 'string' && URL.canParse(issuer)) t.trustIssuer(new URL(issuer))
      return t
    }, (e: unknown) => {
      this.targets = undefined // a failed lookup is tried again next time
      throw e
    })
    return this.targets
  }

  /** The fetch for every OAuth request of this server (discovery, registration, tokens), under its rule. */
  readonly fetch: typeof fetch = async (input, init) => (await this.oauthTargets()).fetch(input, init)

  private get row(): OAuthState | undefined {
    const stored = oauthOf(this.db, this.server)
    return this.staged ? { ...stored, ...this.staged } as OAuthState : stored
  }

  /** Keep this provider's writes back from now on, starting with `values`: the login commits them (stagedValues) with its activity record. */
  stage(values: Partial<OAuthState>): void {
    this.staged = { ...values }
  }

  /** What the login changed, to commit in one transaction with its activity record. */
  get stagedValues(): Partial<OAuthState> {
    return this.staged ?? {}
  }

  private async save(values: Partial<OAuthState>): Promise<void> {
    if (this.staged) Object.assign(this.staged, values)
    else await writeTransaction(this.db, (tx) => saveOauth(tx, this.server, values))
  }

  private get machine() {
    return this.row?.grant === 'client_credentials'
  }

  // no redirect: the SDK's non-interactive flow (client credentials)
  get redirectUrl() {
    return this.machine ? undefined : this.redirect
  }

  get clientMetadataUrl() {
    return this.row?.clientMetadataUrl ?? undefined
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: `toolgate (${this.server})`,
      redirect_uris: this.machine ? [] : [this.redirect],
      grant_types: this.machine ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
      response_types: this.machine ? [] : ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.row?.challengedScope ? { scope: this.row.challengedScope } : {}),
    }
  }

  async state() {
    const state = randomBytes(24).toString('base64url')
    if (this.interactive) await this.save({ state })
    return state
  }

  clientInformation() {
    return (this.row?.clientInformation ?? undefined) as OAuthClientInformationFull | undefined
  }

  saveClientInformation(info: OAuthClientInformationFull) {
    // a pre-registered client keeps its secret when the SDK stamps the issuer on it
    return this.save({ clientInformation: { ...(this.row?.preRegistered ? this.row.clientInformation : {}), ...info } as Record<string, unknown> })
  }

  tokens() {
    return (this.row?.tokens ?? undefined) as OAuthTokens | undefined
  }

  saveTokens(tokens: OAuthTokens) {
    return this.save({ tokens: tokens as unknown as Record<string, unknown>, tokensSavedAt: Date.now() })
  }

  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
    // the runtime lands here when the server challenges for more than the token carries
    // (403 insufficient_scope): the operator's next login asks for that scope
    const scope = url.searchParams.get('scope')
    if (!this.interactive && scope) await this.save({ challengedScope: scope })
  }

  async saveCodeVerifier(codeVerifier: string) {
    if (this.interactive) await this.save({ codeVerifier })
  }

  codeVerifier() {
    const v = this.row?.codeVerifier
    if (!v) throw new Error('no login in progress for this server (start one with toolgate upstream login)')
    return v
  }

  /** What discovery found; when nothing is stored yet, discovery under the rule (the SDK never discovers by itself). */
  async discoveryState(): Promise<OAuthDiscoveryState> {
    const stored = this.row?.discovery
    if (stored) return stored as unknown as OAuthDiscoveryState
    const found = await discoverWithin(await this.oauthTargets(), this.resourceMetadataUrl)
    await this.saveDiscoveryState(found)
    return found
  }

  saveDiscoveryState(state: OAuthDiscoveryState) {
    return this.save({ discovery: state as unknown as Record<string, unknown> })
  }

  /** private_key_jwt: each token request carries an assertion signed with the configured key */
  get addClientAuthentication() {
    const row = this.row
    const clientId = row?.clientInformation?.client_id
    if (!row?.privateKeyPem || typeof clientId !== 'string') return undefined
    return createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey: row.privateKeyPem, alg: row.signingAlgorithm ?? 'RS256' })
  }

  prepareTokenRequest(scope?: string) {
    if (!this.machine) return undefined // authorization code: the SDK's default
    const params = new URLSearchParams({ grant_type: 'client_credentials' })
    if (scope) params.set('scope', scope)
    return params
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    const keepClient = this.row?.preRegistered ?? false
    // two requests that met an expired token at once both refresh (another process's, or one
    // refresh-once.ts could not join); the loser's refresh token is already spent, and its
    // failure must not wipe the tokens the winner just saved
    const justRefreshed = !this.interactive && scope === 'tokens' && Date.now() - (this.row?.tokensSavedAt ?? 0) < REFRESH_RACE_MS
    if ((scope === 'all' || scope === 'tokens') && !justRefreshed) await this.save({ tokens: null })
    if ((scope === 'all' || scope === 'client') && !keepClient) await this.save({ clientInformation: null })
    if (scope === 'all' || scope === 'verifier') await this.save({ codeVerifier: null })
    if (scope === 'all' || scope === 'discovery') await this.save({ discovery: null })
  }
}

function httpServer(db: Db, name: string) {
  const s = requireServer(db, name)
  // the error names what the operator can do instead, since a login cannot help either kind
  if (!s.transport) throw badRequest(`server "${name}" has no transport (its state comes from a state file), so toolgate never connects to it and there is nothing to log in to: give it a URL (toolgate upstream add ${name} --url <https://…/mcp>) or load a state where it has one`)
  if (isStdio(s.transport)) throw badRequest(`server "${name}" runs over stdio: it takes its credentials from its environment, not from an OAuth login; set one with toolgate upstream set-secret ${name} <NAME>`)
  return { ...s, url: s.transport.url }
}

/** The server's challenge to a request without a token: where its resource metadata is, and the scope it wants. */
async function challengeOf(url: string): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  try {
    // the server's own URL, as configured; a redirect elsewhere is not followed with a body
    const res = await bounded(upstreamFetch)(url, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'toolgate', version: '1' } } }),
    })
    await res.body?.cancel().catch(() => undefined)
    if (res.status !== 401 && res.status !== 403) return {}
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res)
    return { resourceMetadataUrl, scope }
  } catch {
    return {} // discovery falls back to the well-known locations
  }
}

/** Both scopes' tokens, once each: a step-up asks for the new scope without losing the old. */
const mergeScopes = (...scopes: (string | null | undefined)[]) => [...new Set(scopes.flatMap((s) => s?.split(/\s+/).filter(Boolean) ?? []))].join(' ') || undefined

/** A login step that failed, said plainly (the SDK's own words, with what toolgate was doing). */
function loginFailed(server: string, step: string, e: unknown): Error {
  // a network failure says why in its cause (connection refused, DNS)
  const cause = (e as { cause?: { message?: string } })?.cause
  const why = e instanceof Error ? (e.name === 'TimeoutError' ? `no answer within ${OAUTH_REQUEST_TIMEOUT_MS / 1000} s` : cause?.message ? `${e.message} (${cause.message})` : e.message) : String(e)
  return new Error(`login for "${server}" failed while ${step}: ${why}`)
}

/**
 * Start an OAuth login (authorization code + PKCE with the resource parameter). The server's own
 * challenge says where its metadata is and which scope it wants (with any scope a later call was
 * refused for); the client is the pre-registered one, a client ID metadata document, or one
 * registered dynamically now — never before an operator asked. Returns the URL to open.
 */
export async function startLogin(db: Db, name: string, opts: { baseUrl: string; returnTo?: string }, ctx: ActionContext): Promise<({ url: string } | { alreadyAuthorized: true }) & Recorded> {
  const server = httpServer(db, name)
  // a quarantined server is not reviewed yet: nothing it names is fetched, nothing registers with it
  if (server.quarantined) throw badRequest(`server "${name}" is quarantined: toolgate does not log in to a server under review. Release it first (toolgate upstream unquarantine ${name}), then log in`)
  if (oauthOf(db, name)?.grant === 'client_credentials') {
    throw badRequest(`server "${name}" gets its tokens by itself (client credentials): no login is needed. If it cannot connect, its log says why: toolgate upstream logs ${name}`)
  }
  const redirect = new URL(CALLBACK_PATH, opts.baseUrl).href
  const challenge = await challengeOf(server.url)
  const scope = mergeScopes(challenge.scope, oauthOf(db, name)?.challengedScope)
  const provider = new DbOAuthProvider(db, name, server.url, redirect, true, challenge.resourceMetadataUrl)
  // a fresh login: fresh discovery, no stale token short-circuiting it; what it saves commits with its record
  provider.stage({ redirectUrl: redirect, returnTo: opts.returnTo ?? null, codeVerifier: null, state: null, discovery: null, tokens: null, challengedScope: scope ?? null })
  let result: Awaited<ReturnType<typeof auth>>
  try {
    result = await auth(provider, { serverUrl: server.url, scope, resourceMetadataUrl: challenge.resourceMetadataUrl, fetchFn: provider.fetch })
  } catch (e) {
    throw loginFailed(name, 'discovering the authorization server and registering with it', e)
  }
  if (result !== 'AUTHORIZED' && !provider.authorizationUrl) throw new Error('the authorization server did not produce an authorization URL')
  const record = await writeTransaction(db, (tx) => {
    saveOauth(tx, name, provider.stagedValues)
    return recordChange(tx, 'server.login_started', ctx, { target: name, result }, { server: name })
  })
  return result === 'AUTHORIZED' ? { alreadyAuthorized: true, ...record } : { url: provider.authorizationUrl!.href, ...record }
}

/** Finish a login from the callback: the state names the server; the code becomes tokens (`iss`: the issuer the callback named, RFC 9207). */
export async function completeLogin(db: Db, state: string, code: string, iss?: string): Promise<{ server: string; returnTo: string | null }> {
  const pending = oauthByState(db, state)
  if (!pending || !pending.redirectUrl) throw badRequest('unknown or expired login (state does not match a login in progress)')
  const server = httpServer(db, pending.serverName)
  const provider = new DbOAuthProvider(db, server.name, server.url, pending.redirectUrl, true)
  provider.stage({}) // the tokens commit with the login's end and its record
  let result: Awaited<ReturnType<typeof auth>>
  try {
    result = await auth(provider, { serverUrl: server.url, authorizationCode: code, iss, fetchFn: provider.fetch })
  } catch (e) {
    throw loginFailed(server.name, 'exchanging the authorization code for tokens', e)
  }
  if (result !== 'AUTHORIZED') throw new Error(`login for "${server.name}" did not complete (${result})`)
  await writeTransaction(db, (tx) => {
    saveOauth(tx, server.name, { ...provider.stagedValues, state: null, codeVerifier: null, challengedScope: null })
    // the runtime reconnects with the new token
    updateServer(tx, server.name, { restartRequestedAt: Date.now() })
    insertActivity(tx, { requestId: mintRequestId(), type: 'server.login_completed', actor: 'operator (oauth callback)', server: server.name, data: { target: server.name } })
  })
  return { server: server.name, returnTo: pending.returnTo }
}

/** How toolgate gets tokens for one server, as an operator configures it. */
export interface OAuthClientConfig {
  /** a client the authorization server issued for toolgate (no dynamic registration) */
  clientId?: string
  clientSecret?: string
  /** an HTTPS URL of a client ID metadata document (used where the server supports them) */
  clientMetadataUrl?: string
  /** client_credentials: machine to machine, no login (needs a client id, and a secret or a private key) */
  grant?: 'authorization_code' | 'client_credentials'
  /** private_key_jwt: a PEM private key, and its algorithm (ES256, RS256, …) */
  privateKeyPem?: string
  signingAlgorithm?: string
}

/** Configure a server's OAuth client. The activity record names what changed, never the secret. */
export async function configureOAuthClient(db: Db, name: string, c: OAuthClientConfig, ctx: ActionContext) {
  httpServer(db, name)
  const values = oauthClientValues(c)
  return writeTransaction(db, (tx) => configureOAuthClientIn(tx, name, c, values, ctx))
}

/** The stored OAuth state a client configuration sets, checked (bad input is refused before anything is written). */
export function oauthClientValues(c: OAuthClientConfig): Partial<OAuthState> {
  if (c.grant === 'client_credentials' && !c.clientId) throw badRequest('client credentials need a client id (--client-id) and usually a secret (--client-secret)')
  if ((c.clientSecret || c.privateKeyPem) && !c.clientId) throw badRequest('a client secret or private key goes with a client id (--client-id)')
  if (c.privateKeyPem && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(c.privateKeyPem)) throw badRequest('the private key must be PEM (-----BEGIN PRIVATE KEY-----)')
  if (c.clientMetadataUrl && !/^https:\/\/[^/]+\/.+/.test(c.clientMetadataUrl)) throw badRequest('the client metadata URL must be an HTTPS URL with a path (e.g. https://example.com/toolgate.json)')
  return {
    grant: c.grant ?? 'authorization_code',
    preRegistered: c.clientId !== undefined,
    clientInformation: c.clientId ? { client_id: c.clientId, ...(c.clientSecret ? { client_secret: c.clientSecret } : {}) } : null,
    clientMetadataUrl: c.clientMetadataUrl ?? null,
    privateKeyPem: c.privateKeyPem ?? null, signingAlgorithm: c.privateKeyPem ? c.signingAlgorithm ?? 'RS256' : null,
    tokens: null, discovery: null,
  }
}

/**
 * Store a checked client configuration inside `tx`, with its record; what the record says is
 * returned, so no caller reads it back. `upstream add … --oauth …` runs this in the transaction
 * that adds the server: a runtime that sees the server sees its OAuth client too.
 */
export function configureOAuthClientIn(tx: Tx, name: string, c: OAuthClientConfig, values: Partial<OAuthState>, ctx: ActionContext) {
  saveOauth(tx, name, values)
  const oauth = { grant: c.grant ?? 'authorization_code', client: c.clientId ? 'pre-registered' : c.clientMetadataUrl ? 'metadata document' : 'dynamic registration', secret: c.clientSecret !== undefined || c.privateKeyPem !== undefined }
  return { oauth, ...recordChange(tx, 'server.oauth_configured', ctx, { target: name, ...oauth }, { server: name }) }
}

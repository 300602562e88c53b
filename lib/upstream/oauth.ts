import 'server-only'
import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationFull, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import type { Db } from '@/db/client'
import { serverOauth, servers } from '@/db/schema'
import { appendActivity } from '@/lib/activity/record'
import { writeTransaction } from '@/db/write'
import { mintRequestId } from '@/lib/activity/request-id'
import { badRequest } from '@/lib/errors'
import { requireServer } from '@/lib/admin/require'
import { oauthByState, oauthOf } from '@/db/queries/upstream'
import type { ActionContext } from '@/lib/admin/tools'

export const CALLBACK_PATH = '/api/upstream/oauth/callback'

function save(db: Db, server: string, values: Partial<typeof serverOauth.$inferInsert>): Promise<void> {
  const v = { ...values, updatedAt: Date.now() }
  return writeTransaction(db, (tx) => {
    tx.insert(serverOauth).values({ serverName: server, ...v }).onConflictDoUpdate({ target: serverOauth.serverName, set: v }).run()
  })
}

/**
 * An OAuth client provider whose state lives in the database, so a login started by the CLI
 * or the dashboard can be finished by the callback route and used by the runtime.
 * `interactive: false` (the runtime) may refresh tokens but never starts a login by itself.
 */
export class DbOAuthProvider implements OAuthClientProvider {
  authorizationUrl?: URL

  constructor(private db: Db, private server: string, private redirect: string, private interactive: boolean) {}

  get redirectUrl() {
    return this.redirect
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: `toolgate (${this.server})`,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }

  async state() {
    const state = randomBytes(24).toString('base64url')
    if (this.interactive) await save(this.db, this.server, { state })
    return state
  }

  clientInformation() {
    return (oauthOf(this.db, this.server)?.clientInformation ?? undefined) as OAuthClientInformationFull | undefined
  }

  saveClientInformation(info: OAuthClientInformationFull) {
    return save(this.db, this.server, { clientInformation: info as unknown as Record<string, unknown> })
  }

  tokens() {
    return (oauthOf(this.db, this.server)?.tokens ?? undefined) as OAuthTokens | undefined
  }

  saveTokens(tokens: OAuthTokens) {
    return save(this.db, this.server, { tokens: tokens as unknown as Record<string, unknown>, tokensSavedAt: Date.now() })
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }

  async saveCodeVerifier(codeVerifier: string) {
    if (this.interactive) await save(this.db, this.server, { codeVerifier })
  }

  codeVerifier() {
    const v = oauthOf(this.db, this.server)?.codeVerifier
    if (!v) throw new Error('no login in progress for this server (start one with toolgate upstream login)')
    return v
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') await save(this.db, this.server, { tokens: null })
    if (scope === 'all' || scope === 'client') await save(this.db, this.server, { clientInformation: null })
    if (scope === 'all' || scope === 'verifier') await save(this.db, this.server, { codeVerifier: null })
  }
}

function httpServer(db: Db, name: string) {
  const s = requireServer(db, name)
  if (!s.transport || !('url' in s.transport)) throw badRequest(`server "${name}" is not an HTTP upstream: OAuth login applies to Streamable HTTP servers`)
  return { ...s, url: s.transport.url }
}

/**
 * Start an OAuth login (authorization code + PKCE with the resource parameter; dynamic client
 * registration when the server offers it). Returns the URL the operator opens.
 */
export async function startLogin(db: Db, name: string, opts: { baseUrl: string; returnTo?: string }, ctx: ActionContext): Promise<{ url: string } | { alreadyAuthorized: true }> {
  const server = httpServer(db, name)
  const redirect = new URL(CALLBACK_PATH, opts.baseUrl).href
  await save(db, name, { redirectUrl: redirect, returnTo: opts.returnTo ?? null, codeVerifier: null, state: null })
  const provider = new DbOAuthProvider(db, name, redirect, true)
  // a stale token must not short-circuit an explicit login
  await provider.invalidateCredentials('tokens')
  const result = await auth(provider, { serverUrl: server.url })
  await appendActivity(db, { requestId: ctx.requestId ?? mintRequestId(), type: 'server.login_started', actor: ctx.actor, server: name, data: { target: name, result } })
  if (result === 'AUTHORIZED') return { alreadyAuthorized: true }
  if (!provider.authorizationUrl) throw new Error('the authorization server did not produce an authorization URL')
  return { url: provider.authorizationUrl.href }
}

/** Finish a login from the callback: the state names the server; the code becomes tokens. */
export async function completeLogin(db: Db, state: string, code: string): Promise<{ server: string; returnTo: string | null }> {
  const pending = oauthByState(db, state)
  if (!pending || !pending.redirectUrl) throw badRequest('unknown or expired login (state does not match a login in progress)')
  const server = httpServer(db, pending.serverName)
  const provider = new DbOAuthProvider(db, server.name, pending.redirectUrl, true)
  const result = await auth(provider, { serverUrl: server.url, authorizationCode: code })
  if (result !== 'AUTHORIZED') throw new Error(`login for "${server.name}" did not complete (${result})`)
  await save(db, server.name, { state: null, codeVerifier: null })
  // the runtime reconnects with the new token
  await writeTransaction(db, (tx) => tx.update(servers).set({ restartRequestedAt: Date.now() }).where(eq(servers.name, server.name)).run())
  await appendActivity(db, { requestId: mintRequestId(), type: 'server.login_completed', actor: 'operator (oauth callback)', server: server.name, data: { target: server.name } })
  return { server: server.name, returnTo: pending.returnTo }
}

import 'server-only'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Db } from '@/db/client'
import { describeError } from '@/lib/core/errors'
import { sameSitePath } from '@/lib/schemas/return-path'
import { completeLogin } from '@/lib/upstream/oauth'

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
  res.end(`<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:system-ui;margin:3rem"><h1>${title}</h1><p>${body}</p></body>`)
}

/**
 * The OAuth redirect target for upstream logins, served by toolgate's own front door (not
 * Next.js), so the token exchange runs outside a Next.js request. It is authenticated by the
 * login's `state`: unguessable, single-use, and created only by an operator who started the login.
 */
export async function oauthCallback(req: IncomingMessage, res: ServerResponse, db: Db): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://toolgate')
  const state = url.searchParams.get('state')
  const code = url.searchParams.get('code')
  const error = url.searchParams.get('error')
  if (error) return page(res, 400, 'Login was not completed', `The authorization server answered: ${escape(error)} ${escape(url.searchParams.get('error_description') ?? '')}`)
  if (!state || !code) return page(res, 400, 'Login was not completed', 'The callback is missing its code or state parameter.')
  try {
    // iss: the authorization server's name for itself, checked against the login's (RFC 9207)
    const { server, returnTo } = await completeLogin(db, state, code, url.searchParams.get('iss') ?? undefined)
    // a relative Location keeps the browser on the host it used
    const back = sameSitePath(returnTo)
    if (back) return void res.writeHead(303, { location: back, 'cache-control': 'no-store' }).end()
    page(res, 200, 'Login complete', `toolgate now holds a token for <b>${escape(server)}</b> and reconnects within a second. You can close this tab.`)
  } catch (e) {
    page(res, 400, 'Login was not completed', escape(describeError(e)))
  }
}

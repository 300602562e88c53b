import { completeLogin } from '@/lib/upstream/oauth'
import { getDb } from '@/db/client'
import { describeError } from '@/lib/errors'
import { sameSitePath } from '@/lib/schemas/return-path'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

const page = (status: number, title: string, body: string) =>
  new Response(`<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:system-ui;margin:3rem"><h1>${title}</h1><p>${body}</p></body>`,
    { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } })

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)

/**
 * The OAuth redirect target for upstream logins. It is authenticated by the login's `state`:
 * unguessable, single-use, and created only by an operator who started the login.
 */
export async function GET(req: Request): Promise<Response> {
  const url = new URL(req.url)
  const state = url.searchParams.get('state')
  const code = url.searchParams.get('code')
  const error = url.searchParams.get('error')
  if (error) return page(400, 'Login was not completed', `The authorization server answered: ${escape(error)} ${escape(url.searchParams.get('error_description') ?? '')}`)
  if (!state || !code) return page(400, 'Login was not completed', 'The callback is missing its code or state parameter.')
  try {
    const { server, returnTo } = await completeLogin(getDb(), state, code)
    // a relative Location keeps the browser on the host it used (req.url may name another)
    const back = sameSitePath(returnTo)
    if (back) return new Response(null, { status: 303, headers: { location: back, 'cache-control': 'no-store' } })
    return page(200, 'Login complete', `toolgate now holds a token for <b>${escape(server)}</b> and reconnects within a second. You can close this tab.`)
  } catch (e) {
    return page(400, 'Login was not completed', escape(describeError(e)))
  }
}

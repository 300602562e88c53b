import { z } from 'zod'

/**
 * What the demo's stand-ins accept: the OAuth authorization server's requests
 * (lib/demo/authorization-server.ts) and the Slack workspace API's messages (lib/demo/services.ts).
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])
/** OAuth 2.1: a redirect URI is https, or http on a loopback address; never with a fragment. */
const redirectUriSchema = z.url().refine((raw) => {
  const u = new URL(raw)
  return !u.hash && (u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname)))
}, 'a redirect URI must be https, or http on a loopback address, without a fragment')

/** RFC 7591 registration; unknown metadata is ignored, as the RFC asks. */
export const registrationSchema = z.object({
  redirect_uris: z.array(redirectUriSchema).min(1),
  client_name: z.string().max(200).optional(),
  // public clients only: PKCE stands in for a client secret
  token_endpoint_auth_method: z.literal('none').default('none'),
  grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).default(['authorization_code', 'refresh_token']),
  response_types: z.array(z.literal('code')).default(['code']),
})

/** What /authorize needs besides the client and its redirect URI (those are checked first). */
export const authorizeSchema = z.object({
  response_type: z.literal('code'),
  // S256 only (OAuth 2.1): the challenge is base64url(sha256(verifier)), 43 characters
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'code_challenge must be a base64url SHA-256 (43 characters)'),
  code_challenge_method: z.literal('S256'),
  state: z.string().max(1000).optional(),
  scope: z.string().max(1000).optional(),
  // RFC 8707: MCP clients name the server the token is for
  resource: z.string().min(1),
})

export const consentSchema = z.object({ request: z.string().min(1).max(100), decision: z.enum(['approve', 'deny']) })

const verifierSchema = z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'code_verifier must be 43-128 unreserved characters')
export const tokenSchema = z.discriminatedUnion('grant_type', [
  z.object({
    grant_type: z.literal('authorization_code'), code: z.string().min(1), redirect_uri: z.string().min(1),
    client_id: z.string().min(1), code_verifier: verifierSchema, resource: z.string().optional(),
  }),
  z.object({
    grant_type: z.literal('refresh_token'), refresh_token: z.string().min(1), client_id: z.string().min(1),
    resource: z.string().optional(), scope: z.string().optional(),
  }),
])

import 'server-only'
import {
  discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata,
  type AuthorizationServerMetadata, type OAuthDiscoveryState, type OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/client'
import { addressesOf, classifyAddress, resolveHost, type AddressClass, type Resolve } from './address-class'
import { OutboundRefused, pinnedFetch } from './fetch'

const parseUrl = (s: string): URL | undefined => (URL.canParse(s) ? new URL(s) : undefined)

/** Every OAuth request is bounded: a silent authorization server must not hang a login or a refresh. */
export const OAUTH_REQUEST_TIMEOUT_MS = 15_000
export const bounded = (f: typeof fetch): typeof fetch => (input, init) => f(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(OAUTH_REQUEST_TIMEOUT_MS) })

const RULE = 'OAuth discovery stays on the MCP server\'s own origin and its issuer\'s'

/**
 * Where one server's OAuth traffic may go. An upstream names the URLs of its login (its
 * resource metadata, its issuer, the issuer's endpoints), so without a rule it steers toolgate's
 * requests anywhere: at cloud metadata on 169.254.169.254, a router's admin page, this machine's
 * own services. The rule: requests go to the MCP server's origin and its issuer's only, and only
 * to public addresses or to the kind of address the MCP server itself is at (a loopback server
 * may use a loopback issuer; a public one reaches nothing private). Addresses are checked as
 * resolved, on the connection itself.
 */
export class OAuthTargets {
  private readonly origins: Set<string>

  private constructor(readonly server: URL, private readonly classes: ReadonlySet<AddressClass>, private readonly resolve: Resolve) {
    this.origins = new Set([server.origin])
  }

  /** The rule for the MCP server at `serverUrl`: its own address class is allowed besides public ones. */
  static async of(serverUrl: string | URL, resolve: Resolve = resolveHost): Promise<OAuthTargets> {
    const server = new URL(serverUrl)
    const own = (await addressesOf(server, resolve)).map((a) => classifyAddress(a.address))
    return new OAuthTargets(server, new Set<AddressClass>(['public', ...own]), resolve)
  }

  /** The issuer the server's metadata names: its origin is allowed from now on. */
  trustIssuer(issuer: URL): void {
    this.origins.add(issuer.origin)
  }

  /** The fetch for this server's OAuth requests, under the rule (and bounded in time). */
  readonly fetch: typeof fetch = bounded(pinnedFetch((url) => this.check(url)))

  private async check(url: URL) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundRefused(`${url.href}: only http(s) URLs are fetched`)
    if (!this.origins.has(url.origin)) {
      throw new OutboundRefused(`${url.href} is on neither the MCP server's origin (${this.server.origin}) nor its issuer's: ${RULE}`)
    }
    const addresses = await addressesOf(url, this.resolve)
    for (const { address } of addresses) {
      const cls = classifyAddress(address)
      if (this.classes.has(cls)) continue
      const allowed = [...this.classes].join(' or ')
      throw new OutboundRefused(`${url.href} resolves to ${address}, a ${cls} address: OAuth requests for an MCP server at ${this.server.host} go to ${allowed} addresses only (a ${cls} target is allowed only when the MCP server itself is on one)`)
    }
    return addresses
  }
}

/** The endpoints toolgate calls or sends a browser to: each must be on the issuer's own origin. */
const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const

/**
 * The metadata must be the issuer's: naming exactly the issuer the server's resource metadata named
 * (RFC 8414 §3.3, RFC 9728 §7.6), or — for a 2025-03-26 server without resource metadata, whose
 * own origin serves as its authorization server — an issuer on that origin. Either way its
 * endpoints are on the issuer's origin.
 */
function checkIssuerMetadata(issuer: URL, metadata: AuthorizationServerMetadata, named: boolean): void {
  const says = parseUrl(metadata.issuer)
  if (named ? says?.href !== issuer.href : says?.origin !== issuer.origin) {
    throw new OutboundRefused(`the authorization server metadata fetched for ${issuer.href} names another issuer (${metadata.issuer}): an issuer's metadata must name that issuer (RFC 8414 §3.3)`)
  }
  for (const key of ENDPOINTS) {
    const value = metadata[key]
    if (value !== undefined && parseUrl(value)?.origin !== issuer.origin) {
      throw new OutboundRefused(`the ${key} ${value} is outside the issuer's origin (${issuer.origin}): ${RULE}`)
    }
  }
}

/**
 * OAuth discovery under the rule, step by step: the server's protected-resource metadata (where
 * its challenge says, which must be on the server's origin, else at its well-known location);
 * the issuer that names (none: the server is its own, as the SDK falls back); that issuer's
 * metadata, fetched from the issuer's origin, naming that issuer and keeping its endpoints there. The SDK works from the state this returns and discovers nothing by itself.
 */
export async function discoverWithin(targets: OAuthTargets, resourceMetadataUrl?: URL): Promise<OAuthDiscoveryState> {
  if (resourceMetadataUrl && resourceMetadataUrl.origin !== targets.server.origin) {
    throw new OutboundRefused(`the server names its protected-resource metadata at ${resourceMetadataUrl.href}, outside its own origin (${targets.server.origin}): ${RULE}`)
  }
  let resourceMetadata: OAuthProtectedResourceMetadata | undefined
  try {
    resourceMetadata = await discoverOAuthProtectedResourceMetadata(targets.server, { resourceMetadataUrl }, targets.fetch)
  } catch (e) {
    if (e instanceof OutboundRefused) throw e // a refusal is said, not taken for "no metadata"
  }
  const named = resourceMetadata?.authorization_servers?.[0]
  const authorizationServerUrl = named ?? new URL('/', targets.server).href
  const issuer = parseUrl(authorizationServerUrl)
  if (!issuer) throw new OutboundRefused(`the server's metadata names an issuer that is not a URL: ${authorizationServerUrl}`)
  targets.trustIssuer(issuer)
  // the issuer is checked by this rule below (the SDK's exact-match check would refuse the 2025-03-26 fallback's issuer on the server's origin)
  const authorizationServerMetadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn: targets.fetch, skipIssuerValidation: true })
  if (authorizationServerMetadata) checkIssuerMetadata(issuer, authorizationServerMetadata, named !== undefined)
  return { authorizationServerUrl, resourceMetadataUrl: resourceMetadataUrl?.href, resourceMetadata, authorizationServerMetadata }
}

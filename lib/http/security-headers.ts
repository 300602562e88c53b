/**
 * The browser rules every toolgate response carries (issue 22: another loopback port framed the
 * signed-in dashboard). Dependency-free: the front door and proxy.ts both import it.
 */

/** On every response: never framed, never content-sniffed, never a Referer sent onwards. */
export const HARDENING_HEADERS = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const

/**
 * Responses the front door writes itself (JSON, the OAuth callback's small page) and Next's
 * non-page responses: nothing may load or run; the callback page's inline style is allowed.
 */
export const DEFAULT_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

/**
 * A dashboard page: scripts only with this response's nonce (Next.js puts it on its own
 * scripts; 'strict-dynamic' lets them load the chunks), styles from toolgate or with the nonce.
 * No inline style attributes either: the pages' data (and React's `style` props with it) only
 * ever arrives through the key-carrying fetch, and React applies those through the CSSOM, which
 * a CSP does not govern. 'unsafe-eval' only in development, where React needs it for its
 * debugging stacks.
 */
export function pageCsp(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

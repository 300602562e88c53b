/** The dashboard session cookie's name. Dependency-free so proxy.ts can import it cheaply. */
export const SESSION_COOKIE = 'toolgate_session'

/** Set by proxy.ts: the requested path, so the layout's session check can return there after sign-in. */
export const PATH_HEADER = 'x-toolgate-path'

/** The dashboard session cookie's name. Dependency-free so proxy.ts can import it cheaply. */
export const SESSION_COOKIE = 'toolgate_session'

/** Set by proxy.ts: the requested path, so the layout's session check can return there after sign-in. */
export const PATH_HEADER = 'x-toolgate-path'

/**
 * The request header that carries the session key: the second half of a session, which the
 * browser keeps in this origin's localStorage (another port cannot read it) and one client
 * module attaches to every same-origin fetch. The cookie alone is never a session.
 */
export const SESSION_KEY_HEADER = 'x-toolgate-session-key'

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site sends it),
 * Path=/, Secure when toolgate is reached over https.
 */
export const sessionCookieOptions = (expires: Date, secure: boolean) => ({ httpOnly: true, sameSite: 'strict' as const, path: '/', expires, secure })

/** The dashboard session cookie's name. Dependency-free so proxy.ts can import it cheaply. */
export const SESSION_COOKIE = 'toolgate_session'

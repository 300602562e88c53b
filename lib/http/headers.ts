/** Set by the front door on every request it hands on: the caller's socket address (never a client's claim). */
export const REMOTE_HEADER = 'x-toolgate-remote-address'

import { z } from 'zod'

/** A caller-chosen request id is reused when it looks like this (contract §9); otherwise one is minted. */
export const REQUEST_ID_RE = /^[A-Za-z0-9_-]{1,256}$/

export const requestIdSchema = z.string().regex(REQUEST_ID_RE, 'request id must be 1–256 letters, digits, "_" or "-"')

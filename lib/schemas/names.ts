import { z } from 'zod'
import { MAX_NAME } from '@/lib/core/names'

/**
 * Names and bounds, one rule each, for every surface (routes, actions, the CLI, state files,
 * the runtime). Tool names come from upstreams and are only bounded; names toolgate's operators
 * choose follow one pattern (no ":", which separates a tool id's halves).
 */
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

const name = (what: string) => z.string().trim()
  .min(1, `${what} name must not be empty`)
  .max(MAX_NAME, `${what} name must be at most ${MAX_NAME} characters`)
  .regex(NAME_RE, `${what} name may use letters, digits, ".", "_" and "-", starting with a letter or digit (no ":")`)

export const serverNameSchema = name('server')
export const profileNameSchema = name('profile')
export const tokenNameSchema = name('token')

/** A name as a page's URL carries it (not trimmed: anything else there is dropped, not repaired). */
export const urlNameSchema = z.string().max(MAX_NAME).regex(NAME_RE)

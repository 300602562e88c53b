import { z } from 'zod'

/** A JSON object as it arrives: any members, each checked where it is used. */
export const jsonObjectSchema = z.record(z.string(), z.unknown())

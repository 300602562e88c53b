import { z } from 'zod'
import type { Transport } from '@/db/schema'

/** A transport; `secrets` names env vars / headers whose values come from set-secret. */
export const transportSchema = z.union([
  z.strictObject({
    command: z.string().min(1), args: z.array(z.string()).optional(), env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(), secrets: z.array(z.string().min(1)).optional(),
  }),
  z.strictObject({
    url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL, such as https://mcp.example.com/mcp' }), type: z.literal('sse').optional(), headers: z.record(z.string(), z.string()).optional(),
    secrets: z.array(z.string().min(1)).optional(),
  }),
])

// what it accepts is exactly the stored column's type: a field added to one alone fails to compile
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
true satisfies Same<z.infer<typeof transportSchema>, Transport>

import type { z } from 'zod'

/** `tools[3].id` for an issue path (under `root`, e.g. `rider.tools[3].id`). */
export function issuePath(root: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)), root)
}

/** "tools[3].id: expected string": an issue named by its JSON path. */
export function formatIssue(i: { path: readonly PropertyKey[]; message: string }): string {
  const at = issuePath('', i.path)
  return at ? `${at}: ${i.message}` : i.message
}

export const formatIssues = (error: z.ZodError, separator = '; '): string => error.issues.map(formatIssue).join(separator)

import type { z } from 'zod'

/** `tools[3].id` for an issue path (under `root`, e.g. `rider.tools[3].id`). */
export function issuePath(root: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)), root)
}

/**
 * "tools[3].id: expected string": an issue named by its JSON path. A message that names its
 * field itself ("wait_ms must be ≤ 10000", so that it reads whole where no path goes with it)
 * says it once: "wait_ms: must be ≤ 10000".
 */
export function formatIssue(i: { path: readonly PropertyKey[]; message: string }): string {
  const at = issuePath('', i.path)
  if (!at) return i.message
  const field = i.path.at(-1)
  const rest = typeof field === 'string' && i.message.startsWith(`${field} `) ? i.message.slice(field.length + 1) : ''
  // only the field itself goes: "profile name must …" keeps its words
  return `${at}: ${/^(must|is|are|has|needs|takes)\b/.test(rest) ? rest : i.message}`
}

export const formatIssues = (error: z.ZodError, separator = '; '): string => error.issues.map(formatIssue).join(separator)

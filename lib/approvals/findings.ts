import type { ApprovedDefinition, Finding } from '@/lib/core/definition'

/*
 * Review findings (their codes: lib/core/definition.ts): deterministic checks on a definition under review, shown wherever it is
 * reviewed (dashboard, `tools show`, activity). They inform the operator; they never block.
 *
 * - hidden_characters: zero-width, bidi controls, tag characters and other invisible code points
 * - instruction_like: text addressed to the model ("ignore previous instructions", "do not tell
 *   the user", <IMPORTANT>-style tags)
 * - sensitive_path: ~/.ssh, id_rsa, .env, credentials files, cloud metadata addresses
 * - cross_server_reference: names another server, or another server's tool
 * - long_description: a description over LONG_DESCRIPTION characters
 * - widened_reach: a change since approval that widens where the tool's effect can go — a new
 *   recipient, URL or path parameter, "anyone with the link", open-world or destructive turned on
 *   (semantic-diff.ts; only a changed definition has it)
 */

export const LONG_DESCRIPTION = 1_000

// zero-width and joiners, bidi embeddings/overrides/isolates, word joiner and invisible operators,
// BOM, soft hyphen, Mongolian vowel separator, combining grapheme joiner, Hangul fillers, tag characters
export const INVISIBLE = /[\u00AD\u034F\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFEFF\uFFA0]|[\u{E0000}-\u{E007F}]|[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/gu

/** A text with its invisible code points made visible, e.g. "rea⟦U+200B⟧d". */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => `⟦U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟧`)
}

const INSTRUCTIONS: [RegExp, string][] = [
  [/\b(ignore|disregard|forget)\b[^.\n]{0,30}\b(previous|prior|above|earlier|all)\b[^.\n]{0,20}\b(instructions?|rules|prompts?|messages?)\b/i, 'tells the model to ignore its instructions'],
  [/\b(do not|don't|never)\s+(tell|inform|mention|reveal|show|alert|notify)\b[^.\n]{0,20}\buser\b/i, 'tells the model to keep something from the user'],
  [/\bwithout\s+(telling|informing|notifying|alerting)\b[^.\n]{0,20}\buser\b/i, 'tells the model to act without the user knowing'],
  [/<\/?\s*(important|system|instructions?|secret|admin)\s*>/i, 'contains an <IMPORTANT>-style tag addressed to the model'],
  [/\b(system prompt|new instructions|you are now|your (real|true|new) (task|goal|instructions))\b/i, 'addresses the model\'s instructions'],
  [/\bbefore (using|calling) (this|any) tool\b[^.\n]{0,40}\b(read|send|call|include|pass)\b/i, 'tells the model to do something first'],
]

const SENSITIVE: [RegExp, string][] = [
  [/~\/\.ssh\b|\/\.ssh\/|\bid_(rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b/i, 'SSH keys'],
  [/(^|[\s"'`(/])\.env\b|\bdotenv\b/i, 'a .env file'],
  [/\.aws\/credentials|\.netrc\b|\.npmrc\b|\.pgpass\b|\.git-credentials\b|\.docker\/config\.json|\.kube\/config|\bkubeconfig\b|credentials\.json\b/i, 'a credentials file'],
  [/\/etc\/(passwd|shadow|sudoers)\b/i, 'system account files'],
  [/\b169\.254\.169\.254\b|\bmetadata\.google\.internal\b|\b100\.100\.100\.200\b|\bfd00:ec2::254\b/i, 'a cloud metadata address'],
]

/** Every text a definition serves, with where it sits. */
function texts(def: ApprovedDefinition & { name?: string }): { field: string; text: string }[] {
  const out: { field: string; text: string }[] = []
  const walk = (value: unknown, field: string) => {
    if (typeof value === 'string') out.push({ field, text: value })
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${field}[${i}]`))
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, `${field}.${k}`)
  }
  for (const [k, v] of Object.entries(def)) walk(v, k)
  return out
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** What a definition could refer to elsewhere: the other servers and their tools. */
export interface ReviewContext {
  server: string
  otherServers: readonly string[]
  otherToolIds: readonly string[]
}

export function reviewFindings(def: ApprovedDefinition & { name?: string }, ctx: ReviewContext): Finding[] {
  const found: Finding[] = []
  const all = texts(def)
  for (const { field, text } of all) {
    const hidden = text.match(INVISIBLE)
    if (hidden) found.push({ code: 'hidden_characters', field, message: `${hidden.length} invisible character${hidden.length === 1 ? '' : 's'}: ${showInvisible(text).slice(0, 200)}` })
    for (const [re, what] of INSTRUCTIONS) {
      const m = re.exec(text)
      if (m) found.push({ code: 'instruction_like', field, message: `${what}: "${showInvisible(m[0])}"` })
    }
    for (const [re, what] of SENSITIVE) {
      const m = re.exec(text)
      if (m) found.push({ code: 'sensitive_path', field, message: `names ${what}: "${m[0].trim()}"` })
    }
    for (const id of ctx.otherToolIds) {
      if (text.includes(id)) found.push({ code: 'cross_server_reference', field, message: `names another server's tool ${id}` })
    }
    for (const server of ctx.otherServers) {
      const re = new RegExp(`\\b(${escapeRe(server)} (server|tools?|mcp)|(server|tools? of) ${escapeRe(server)})\\b`, 'i')
      if (re.test(text)) found.push({ code: 'cross_server_reference', field, message: `names another server, ${server}` })
    }
  }
  if (typeof def.description === 'string' && def.description.length > LONG_DESCRIPTION) {
    found.push({ code: 'long_description', field: 'description', message: `the description is ${def.description.length} characters long (over ${LONG_DESCRIPTION})` })
  }
  return found
}

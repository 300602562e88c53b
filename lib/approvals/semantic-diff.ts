import type { ApprovedDefinition, JsonObject, ToolAnnotations } from '@/db/schema'
import type { Finding } from '@/lib/core/definition'

/**
 * What a changed tool definition means, not just which field moved: parameters added or removed,
 * required changed, enums widened, annotations flipped, description sentences added — each change
 * classed by risk. A rug pull rarely changes the name; it adds a `cc`, says "anyone with the link"
 * or turns open-world on, and a whole-object before/after buries that.
 *
 * Pure: the approved definition against the one offered now.
 */
export type Risk = 'high' | 'medium' | 'low'

export type ChangeKind =
  | 'parameter_added' | 'parameter_removed' | 'parameter_type_changed' | 'parameter_constraint_changed'
  | 'required_added' | 'required_removed' | 'enum_widened' | 'enum_narrowed' | 'extra_parameters_allowed'
  | 'annotation_changed' | 'sentence_added' | 'sentence_removed' | 'field_changed'

export interface SemanticChange {
  kind: ChangeKind
  /** where: description, input_schema.properties.cc, annotations.openWorldHint, … */
  path: string
  risk: Risk
  /** one line for people, e.g. `new parameter "cc" (string)` */
  summary: string
  /** why it widens what the tool can reach (a new recipient, URL or path, open world, destructive): also a review finding */
  reach?: string
}

export const riskOrder: Record<Risk, number> = { high: 0, medium: 1, low: 2 }

// a parameter named like a destination: who or where the tool's effect goes
const REACH_NAME = /^(to|cc|bcc|recipients?|emails?|e_?mail_?address(es)?|address(es)?|forward(_?to)?|send_?to|share_?with|invitees?|members?|users?|assignees?|owners?|url|uri|urls|links?|endpoint|webhook(_?url)?|callback(_?url)?|redirect(_?uri|_?url)?|host(name)?|domain|server|base_?url|target|destination|dest|path|paths|file(_?path|name)?|dir(ectory)?|folder|bucket|upload_?url|visibility|access|permissions?|scope|public)$/i
const REACH_FORMAT = /^(uri|url|email|idn-email|hostname|idn-hostname|iri|uri-reference|ipv4|ipv6)$/i
// an added sentence or enum value that opens the tool's effect to more people or places
const REACH_TEXT = /\b(anyone|everyone|public(ly)?|the link|external(ly)?|third[- ]part(y|ies)|outside (the|your)|upload(s|ed)?|webhook|forward(s|ed)?|send(s)? (a )?(copy|copies)|copy to|cc\b|bcc\b|e-?mail(s)? (it|them|a copy)|https?:\/\/|any (url|address|path|file|recipient))/i
const REACH_VALUE = /^(public|anyone|everyone|all|external|world|open|internet|any)$/i

// the MCP spec's defaults for an undeclared annotation: a flip is measured from what a client assumes
const ANNOTATION_DEFAULTS: Record<string, boolean> = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }

const isObject = (v: unknown): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v)
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
const typeOf = (s: JsonObject) => (s.type === undefined ? 'any type' : Array.isArray(s.type) ? s.type.join('|') : String(s.type))
const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v))

/** The sentences of a text, by full stops, question and exclamation marks, and line breaks. */
export function sentences(text: string | null | undefined): string[] {
  if (!text) return []
  return text.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter(Boolean)
}

function textChanges(before: unknown, after: unknown, path: string): SemanticChange[] {
  const a = sentences(typeof before === 'string' ? before : null)
  const b = sentences(typeof after === 'string' ? after : null)
  const out: SemanticChange[] = []
  for (const s of b.filter((x) => !a.includes(x))) {
    const m = REACH_TEXT.exec(s)
    out.push({ kind: 'sentence_added', path, risk: m ? 'high' : 'medium', summary: `sentence added: "${s}"`, ...(m ? { reach: `says "${m[0]}": the tool's effect may reach people or places beyond the approved ones` } : {}) })
  }
  for (const s of a.filter((x) => !b.includes(x))) out.push({ kind: 'sentence_removed', path, risk: 'low', summary: `sentence removed: "${s}"` })
  return out
}

const reachOfParameter = (name: string, schema: JsonObject): string | undefined => {
  if (REACH_NAME.test(name)) return `a new "${name}" parameter: somewhere else the tool's effect can go (a recipient, URL or path)`
  if (typeof schema.format === 'string' && REACH_FORMAT.test(schema.format)) return `a new "${name}" parameter of format ${schema.format}: a new recipient, URL or host`
  const d = typeof schema.description === 'string' ? REACH_TEXT.exec(schema.description) : null
  return d ? `a new "${name}" parameter described as "${d[0]}"` : undefined
}

const CONSTRAINTS = ['pattern', 'format', 'maxLength', 'minLength', 'maximum', 'minimum', 'maxItems', 'minItems', 'const', 'default'] as const

/** One object schema against another: its properties, required list and extra-property rule, nested objects and arrays included. */
function schemaChanges(before: JsonObject, after: JsonObject, path: string): SemanticChange[] {
  const out: SemanticChange[] = []
  const pa = isObject(before.properties) ? before.properties : {}
  const pb = isObject(after.properties) ? after.properties : {}
  const ra = new Set(Array.isArray(before.required) ? before.required.map(String) : [])
  const rb = new Set(Array.isArray(after.required) ? after.required.map(String) : [])
  for (const [name, raw] of Object.entries(pb)) {
    const s = isObject(raw) ? raw : {}
    const at = `${path}.properties.${name}`
    if (!(name in pa)) {
      const reach = reachOfParameter(name, s)
      out.push({ kind: 'parameter_added', path: at, risk: reach ? 'high' : 'medium', summary: `new parameter "${name}" (${typeOf(s)}${rb.has(name) ? ', required' : ', optional'})`, ...(reach ? { reach } : {}) })
      continue
    }
    const was = isObject(pa[name]) ? pa[name] as JsonObject : {}
    out.push(...propertyChanges(name, was, s, at))
  }
  for (const name of Object.keys(pa)) {
    if (!(name in pb)) out.push({ kind: 'parameter_removed', path: `${path}.properties.${name}`, risk: 'low', summary: `parameter "${name}" removed` })
  }
  for (const name of rb) if (!ra.has(name) && name in pa) out.push({ kind: 'required_added', path: `${path}.required`, risk: 'low', summary: `"${name}" is now required` })
  for (const name of ra) if (!rb.has(name) && name in pb) out.push({ kind: 'required_removed', path: `${path}.required`, risk: 'low', summary: `"${name}" is no longer required` })
  if (before.additionalProperties === false && after.additionalProperties !== false) {
    out.push({ kind: 'extra_parameters_allowed', path: `${path}.additionalProperties`, risk: 'medium', summary: 'parameters beyond the listed ones are now accepted' })
  }
  return out
}

function propertyChanges(name: string, was: JsonObject, now: JsonObject, at: string): SemanticChange[] {
  const out: SemanticChange[] = []
  if (!same(was.type, now.type)) out.push({ kind: 'parameter_type_changed', path: `${at}.type`, risk: 'medium', summary: `"${name}" changed type: ${typeOf(was)} → ${typeOf(now)}` })
  const ea = Array.isArray(was.enum) ? was.enum : undefined
  const eb = Array.isArray(now.enum) ? now.enum : undefined
  if (ea && !eb) {
    out.push({ kind: 'enum_widened', path: `${at}.enum`, risk: 'high', summary: `"${name}" no longer limited to ${ea.map(show).join(', ')}: any value is accepted`, reach: `"${name}" lost its list of allowed values` })
  } else if (ea && eb) {
    const added = eb.filter((v) => !ea.some((x) => same(x, v)))
    const removed = ea.filter((v) => !eb.some((x) => same(x, v)))
    if (added.length) {
      const open = added.find((v) => typeof v === 'string' && REACH_VALUE.test(v))
      out.push({ kind: 'enum_widened', path: `${at}.enum`, risk: open !== undefined ? 'high' : 'medium', summary: `"${name}" accepts new values: ${added.map(show).join(', ')}`, ...(open !== undefined ? { reach: `"${name}" now accepts ${show(open)}` } : {}) })
    }
    if (removed.length) out.push({ kind: 'enum_narrowed', path: `${at}.enum`, risk: 'low', summary: `"${name}" no longer accepts ${removed.map(show).join(', ')}` })
  }
  for (const c of CONSTRAINTS) {
    if (!same(was[c], now[c])) out.push({ kind: 'parameter_constraint_changed', path: `${at}.${c}`, risk: now[c] === undefined ? 'medium' : 'low', summary: `"${name}" ${c}: ${show(was[c])} → ${show(now[c])}` })
  }
  out.push(...textChanges(was.description, now.description, `${at}.description`))
  if (isObject(was.items) && isObject(now.items)) out.push(...propertyChanges(`${name}[]`, was.items, now.items, `${at}.items`))
  if (was.properties !== undefined || now.properties !== undefined) out.push(...schemaChanges(was, now, at))
  return out
}

function annotationChanges(before: ToolAnnotations | null | undefined, after: ToolAnnotations | null | undefined): SemanticChange[] {
  const a = before ?? {}
  const b = after ?? {}
  const out: SemanticChange[] = []
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])]) {
    if (same(a[key], b[key])) continue
    const path = `annotations.${key}`
    const summary = `${key}: ${a[key] === undefined ? 'not declared' : show(a[key])} → ${b[key] === undefined ? 'not declared' : show(b[key])}`
    const def = ANNOTATION_DEFAULTS[key]
    if (def === undefined) { out.push({ kind: 'annotation_changed', path, risk: 'low', summary }); continue }
    // what a client assumes either side: an undeclared hint is the spec's default
    const was = typeof a[key] === 'boolean' ? a[key] as boolean : def
    const now = typeof b[key] === 'boolean' ? b[key] as boolean : def
    if (was === now) { out.push({ kind: 'annotation_changed', path, risk: 'low', summary: `${summary} (the same to a client: ${def} is the default)` }); continue }
    if (key === 'destructiveHint' && now) out.push({ kind: 'annotation_changed', path, risk: 'high', summary: `${summary}: it now says it may destroy or overwrite`, reach: 'destructive turned on' })
    else if (key === 'openWorldHint' && now) out.push({ kind: 'annotation_changed', path, risk: 'high', summary: `${summary}: it now says it reaches the outside world`, reach: 'open-world turned on' })
    else if (key === 'readOnlyHint' && !now) out.push({ kind: 'annotation_changed', path, risk: 'high', summary: `${summary}: it no longer says it only reads` })
    else out.push({ kind: 'annotation_changed', path, risk: 'low', summary })
  }
  return out
}

/** What changed from the approved definition to the one offered now, riskiest first (stable within a risk). */
export function semanticDiff(approved: ApprovedDefinition, current: ApprovedDefinition): SemanticChange[] {
  const out: SemanticChange[] = [
    ...textChanges(approved.description, current.description, 'description'),
    ...schemaChanges(approved.input_schema ?? {}, current.input_schema ?? {}, 'input_schema'),
    ...annotationChanges(approved.annotations, current.annotations),
  ]
  for (const field of ['title', 'output_schema', 'execution', 'icons', '_meta'] as const) {
    if (!same(approved[field] ?? null, current[field] ?? null)) {
      out.push({ kind: 'field_changed', path: field, risk: field === 'title' ? 'medium' : 'low', summary: `${field}: ${show(approved[field] ?? undefined)} → ${show(current[field] ?? undefined)}`.slice(0, 300) })
    }
  }
  return out.map((c, i) => [c, i] as const).sort(([a, i], [b, j]) => riskOrder[a.risk] - riskOrder[b.risk] || i - j).map(([c]) => c)
}

/** The changes that widen what a tool can reach, as review findings (shown and recorded beside the others). */
export function reachFindings(changes: readonly SemanticChange[]): Finding[] {
  return changes.filter((c) => c.reach).map((c) => ({ code: 'widened_reach' as const, field: c.path, message: `${c.reach} — ${c.summary}` }))
}

import { createHash } from 'node:crypto'
import { definitionFields, type DefinitionField } from '@/lib/core/definition'

/** Version of the hash schema below; part of every pin. Bump when the hashed fields change. */
export const HASH_SCHEMA_VERSION = 3

/** JSON with object keys sorted at every depth, so equal definitions hash equal. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const obj = value as Record<string, unknown>
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`
}

/** A call's arguments as records name them: SHA-256 (hex) of their canonical JSON, so equal arguments hash equal. */
export function argumentsHash(canonical: string): string {
  return createHash('sha256').update(canonical).digest('hex')
}

/**
 * A pin covers every field the proxy serves of a tool (contract §6, hash schema v3), by the
 * state file's names (lib/core/definition.ts lists them), and so does an approval: a change to
 * any of them is tool_changed. `_meta` is among them: it is served, and clients act on it (a UI
 * resource to render, say), so a pin that left it out would let it change unreviewed.
 */
export type Definition = { name: string } & { [F in DefinitionField]?: unknown }

/** Whether `s` has a pin's form (sha256/v<n>:<64 hex digits>), whatever it pins. */
export const isPin = (s: string): boolean => /^sha256\/v\d+:[0-9a-f]{64}$/.test(s)

/** The tool's pin: sha256 over the canonical JSON of its name and every served field (absent = null). */
export function toolPin(def: Definition): string {
  const canonical: Record<string, unknown> = { name: def.name }
  for (const f of definitionFields) canonical[f] = def[f] ?? null
  return `sha256/v${HASH_SCHEMA_VERSION}:${createHash('sha256').update(canonicalJson(canonical)).digest('hex')}`
}

/** The fields whose values differ between two definitions, in the order definitions list them. */
export function changedFields(before: Omit<Definition, 'name'>, after: Omit<Definition, 'name'>): DefinitionField[] {
  return definitionFields.filter((f) => canonicalJson(before[f] ?? null) !== canonicalJson(after[f] ?? null))
}

const PIN_RE = /^sha256\/v(\d+):([0-9a-f]{64})$/

export type PinCheck =
  | { ok: true }
  | { ok: false; why: 'unparseable' | 'version' | 'no_hash' | 'mismatch'; pinVersion?: number }

export function checkPin(pin: string, current: string | null): PinCheck {
  const m = PIN_RE.exec(pin)
  if (!m) return { ok: false, why: 'unparseable' }
  const version = Number(m[1])
  if (version !== HASH_SCHEMA_VERSION) return { ok: false, why: 'version', pinVersion: version }
  if (!current) return { ok: false, why: 'no_hash' }
  return pin === current ? { ok: true } : { ok: false, why: 'mismatch' }
}

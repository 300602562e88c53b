import { createHash } from 'node:crypto'

/** Version of the hash schema below; part of every pin. Bump when the hashed fields change. */
export const HASH_SCHEMA_VERSION = 1

/** JSON with object keys sorted at every depth, so equal definitions hash equal. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const obj = value as Record<string, unknown>
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`
}

export interface HashedDefinition {
  name: string
  description?: string | null
  inputSchema?: unknown
  outputSchema?: unknown
}

/** The tool's pin: covers name, description, input and output schema — not annotations (§6). */
export function toolPin(def: HashedDefinition): string {
  const digest = createHash('sha256')
    .update(canonicalJson({
      name: def.name,
      description: def.description ?? null,
      input_schema: def.inputSchema ?? null,
      output_schema: def.outputSchema ?? null,
    }))
    .digest('hex')
  return `sha256/v${HASH_SCHEMA_VERSION}:${digest}`
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

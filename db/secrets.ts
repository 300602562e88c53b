import 'server-only'
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs'
import type Database from 'better-sqlite3'
import type { DbLike } from './client'
import type { serverOauth } from './schema'
import { keyFileOf } from '@/lib/core/paths'
import { envVar } from '@/lib/core/config'

/**
 * Secrets at rest: every value toolgate must read back (an upstream's header and env values, its
 * OAuth tokens, client registration, PKCE verifier and private key) is stored encrypted with
 * AES-256-GCM, under a key kept outside the database file: TOOLGATE_SECRET_KEY, else a key file
 * beside the database (`<db>.key`, 0600, made the first time a secret is stored). A copy of the
 * database alone gives none of them away. Every read and write of these columns goes through here.
 */

/** The columns that hold secrets, for the one-time encryption of a database written before this. */
export const SECRET_COLUMNS = [
  ['server_secrets', 'value'],
  ['server_oauth', 'client_information'],
  ['server_oauth', 'tokens'],
  ['server_oauth', 'code_verifier'],
  ['server_oauth', 'private_key_pem'],
] as const

const PREFIX = 'tgenc:v1:'
const KEY_ENV = 'TOOLGATE_SECRET_KEY'

interface Key { bytes: Buffer; id: string; source: string }
const keys = new WeakMap<Database.Database, Key>()

/** A short, public name of a key, stored with each secret: a wrong key is named, not guessed at. */
const keyId = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex').slice(0, 8)

const keyFrom = (bytes: Buffer, source: string): Key => ({ bytes, id: keyId(bytes), source })

function parseKey(text: string, source: string): Key {
  const t = text.trim()
  const bytes = /^[0-9a-f]{64}$/i.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64')
  if (bytes.length !== 32) throw new Error(`${source} must hold a 32-byte key as 64 hex digits or base64 (make one with: openssl rand -hex 32)`)
  return keyFrom(bytes, source)
}

/** The key ids the database's encrypted secrets were stored under. */
function storedKeyIds(client: Database.Database): Set<string> {
  const ids = new Set<string>()
  for (const [table, column] of SECRET_COLUMNS) {
    const rows = client.prepare(`select distinct substr(${column}, ${PREFIX.length + 1}, 8) from ${table} where ${column} like '${PREFIX}%'`).pluck().all() as string[]
    for (const id of rows) ids.add(id)
  }
  return ids
}

/**
 * The connection's key: TOOLGATE_SECRET_KEY, else the key file beside the database, else (no
 * secret stored yet) a new key file. It must be the key the stored secrets were sealed with:
 * otherwise this is an error that says which key is missing — toolgate never drops secrets it
 * cannot read, nor makes a new key over them.
 */
function keyOf(client: Database.Database): Key {
  const cached = keys.get(client)
  if (cached) return cached
  const file = client.memory ? undefined : keyFileOf(client.name)
  const env = envVar(KEY_ENV)
  let key: Key
  if (env) key = parseKey(env, KEY_ENV)
  else if (!file) key = keyFrom(randomBytes(32), 'an in-memory database\'s own key')
  else if (existsSync(file)) key = parseKey(readFileSync(file, 'utf8'), file)
  else {
    const stored = [...storedKeyIds(client)]
    if (stored.length) throw new Error(`the secrets in ${client.name} are encrypted (key ${stored.join(', ')}), but there is no key: set ${KEY_ENV} or restore ${file}. They stay stored, unread`)
    key = parseKey(createKeyFile(file), file)
  }
  const other = [...storedKeyIds(client)].filter((id) => id !== key.id)
  if (other.length) throw new Error(`the secrets in ${client.name} were encrypted with key ${other.join(', ')}, but ${key.source} holds key ${key.id}: use the key they were stored with. They stay stored, unread`)
  keys.set(client, key)
  return key
}

/** Fail now, with the reason, if the stored secrets cannot be read with the key at hand (a server checks at start). */
export function checkSecretKey(db: DbLike): void {
  if (storedKeyIds(db.$client).size) keyOf(db.$client)
}

/** A new random key in a file readable by its owner alone; when another process made it first, that one. */
function createKeyFile(file: string): string {
  const text = `${randomBytes(32).toString('hex')}\n`
  let fd: number
  try {
    fd = openSync(file, 'wx', 0o600)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8')
    throw e
  }
  try {
    writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
  return text
}

/** Whether a stored value is sealed already (the rest were written before secrets were encrypted). */
export const isSealed = (stored: string) => stored.startsWith(PREFIX)

/** Encrypt one secret for storage. */
export function sealSecret(db: DbLike, plain: string): string {
  const key = keyOf(db.$client)
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key.bytes, iv)
  const sealed = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
  return `${PREFIX}${key.id}:${sealed.toString('base64url')}`
}

/** Decrypt one stored secret (one stored before encryption reads as it is, until the database's next open seals it). */
export function openSecret(db: DbLike, stored: string): string {
  if (!isSealed(stored)) return stored
  const key = keyOf(db.$client)
  const [id, body] = stored.slice(PREFIX.length).split(':')
  if (id !== key.id) throw new Error(`a secret in ${db.$client.name} was encrypted with key ${id}, but ${key.source} holds key ${key.id}`)
  const raw = Buffer.from(body ?? '', 'base64url')
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, raw.subarray(0, 12))
    decipher.setAuthTag(raw.subarray(raw.length - 16))
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8')
  } catch {
    throw new Error(`a secret in ${db.$client.name} does not decrypt under key ${key.id} (${key.source}): it was altered`)
  }
}

const sealMaybe = (db: DbLike, v: string | null | undefined) => (v === null || v === undefined ? v : sealSecret(db, v))
const openMaybe = (db: DbLike, v: string | null) => (v === null ? null : openSecret(db, v))

type OAuthStored = typeof serverOauth.$inferSelect
/** A server's OAuth state as toolgate uses it: the secret columns decrypted, the JSON ones parsed. */
export type OAuthState = Omit<OAuthStored, 'clientInformation' | 'tokens'> & { clientInformation: Record<string, unknown> | null; tokens: Record<string, unknown> | null }

/** One stored OAuth row, opened. */
export function openOauth(db: DbLike, row: OAuthStored): OAuthState {
  const json = (v: string | null) => (v === null ? null : JSON.parse(openSecret(db, v)) as Record<string, unknown>)
  return { ...row, clientInformation: json(row.clientInformation), tokens: json(row.tokens), codeVerifier: openMaybe(db, row.codeVerifier), privateKeyPem: openMaybe(db, row.privateKeyPem) }
}

/** OAuth values to store, sealed (only the fields given). */
export function sealOauth(db: DbLike, v: Partial<OAuthState>): Partial<typeof serverOauth.$inferInsert> {
  const { clientInformation, tokens, codeVerifier, privateKeyPem, ...plain } = v
  const json = (x: Record<string, unknown> | null | undefined) => (x === null || x === undefined ? x : sealSecret(db, JSON.stringify(x)))
  return {
    ...plain,
    ...(clientInformation !== undefined ? { clientInformation: json(clientInformation) } : {}),
    ...(tokens !== undefined ? { tokens: json(tokens) } : {}),
    ...(codeVerifier !== undefined ? { codeVerifier: sealMaybe(db, codeVerifier) } : {}),
    ...(privateKeyPem !== undefined ? { privateKeyPem: sealMaybe(db, privateKeyPem) } : {}),
  }
}

/** How many secrets are still stored in plain text (written before secrets were encrypted). */
export function plaintextSecrets(db: DbLike): number {
  let n = 0
  for (const [table, column] of SECRET_COLUMNS) {
    n += db.$client.prepare(`select count(*) from ${table} where ${column} is not null and ${column} not like '${PREFIX}%'`).pluck().get() as number
  }
  return n
}

/**
 * Seal every secret still stored in plain text (a database from before encryption), in the
 * caller's transaction; the number sealed. Idempotent: sealed values are left as they are.
 */
export function sealPlaintextSecrets(db: DbLike): number {
  let sealed = 0
  for (const [table, column] of SECRET_COLUMNS) {
    const rows = db.$client.prepare(`select rowid as id, ${column} as v from ${table} where ${column} is not null and ${column} not like '${PREFIX}%'`).all() as { id: number; v: string }[]
    const update = db.$client.prepare(`update ${table} set ${column} = ? where rowid = ?`)
    for (const r of rows) update.run(sealSecret(db, r.v), r.id)
    sealed += rows.length
  }
  return sealed
}

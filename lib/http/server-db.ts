import { getDb, type Db } from '../../db/client'
import { ensureOperatorKey } from '../auth/operator-key'

let prepared = false

/** The server's database, with the operator key in place (TOOLGATE_API_KEY, or one made now and printed once). */
export function serverDb(): Db {
  const db = getDb()
  if (!prepared) {
    const key = ensureOperatorKey(db)
    if (key) console.log(`toolgate: operator API key (shown once, stored only as a hash): ${key}`)
    prepared = true
  }
  return db
}

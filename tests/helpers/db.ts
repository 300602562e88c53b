import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { loadState } from '@/lib/state/load'
import type { StateFileInput } from '@/lib/schemas/state'

/** A fresh, migrated SQLite file in a temp directory. */
export function tempDbFile(name = 'toolgate.db'): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'toolgate-test-')), name)
}

/**
 * The test's own connection often shares the file with a running toolgate whose runtime writes
 * on its own schedule; the test's direct writes wait for the lock instead of failing at once.
 */
export function freshDb(file = tempDbFile()): { db: Db; file: string } {
  const db = openDb(file)
  db.$client.pragma('busy_timeout = 5000')
  return { db, file }
}

export async function load(db: Db, state: Omit<StateFileInput, 'version'>): Promise<void> {
  await loadState(db, { version: 1, ...state }, 'test')
}

/** The state file shipped as the demo, parsed. */
export { demoStateFile } from '@/lib/state/demo'

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { openDb, type Db } from '@/db/client'
import { loadState } from '@/lib/state/load'
import type { StateFileInput } from '@/lib/state/schema'

/** A fresh, migrated SQLite file in a temp directory. */
export function tempDbFile(name = 'toolgate.db'): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'toolgate-test-')), name)
}

export function freshDb(file = tempDbFile()): { db: Db; file: string } {
  return { db: openDb(file), file }
}

export async function load(db: Db, state: Omit<StateFileInput, 'version'>): Promise<void> {
  await loadState(db, { version: 1, ...state }, 'test')
}

/** The state file shipped as the demo, parsed. */
export { demoStateFile } from '@/lib/state/demo'

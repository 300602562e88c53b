import 'server-only'

/**
 * The database engine's version (SQLite's), loading the driver on first use: a driver that does
 * not load rejects this promise rather than failing the import of whoever asks (doctor reports it).
 */
export async function engineVersion(): Promise<string> {
  const { default: Database } = await import('better-sqlite3')
  const mem = new Database(':memory:')
  try {
    return mem.prepare('select sqlite_version()').pluck().get() as string
  } finally {
    mem.close()
  }
}

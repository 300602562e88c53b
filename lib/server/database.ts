import 'server-only'
import { openStore, type Db } from '@/db/client'
import { upgradePins } from '@/lib/approvals/pin-upgrade'
import { sealStoredSecrets } from '@/lib/auth/seal-secrets'

/** Open the app's database: migrated (db/client.ts), then its data upgraded. */
export function openDb(file: string): Db {
  return openStore(file, upgradeStoredData)
}

/**
 * The data migrations SQL cannot do, run once by whoever opens the database for the app: pins
 * are sha256 over the domain's definition; secrets are sealed with a key outside the file.
 */
export function upgradeStoredData(db: Db): void {
  upgradePins(db)
  sealStoredSecrets(db)
}

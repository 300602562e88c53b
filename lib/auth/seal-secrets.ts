import 'server-only'
import { scrubbed, transactionOn, type Db } from '@/db/client'
import { plaintextSecrets, sealPlaintextSecrets } from '@/db/secrets'
import { insertActivity } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'

/**
 * Once, when a database from before encryption at rest is opened: seal the secrets it holds in
 * plain text, all in one transaction with its record. A database with none is left untouched
 * (and needs no key yet). The old values are overwritten where they lay (secure_delete) and the
 * WAL is emptied, so no copy of them is left in the files.
 */
export function sealStoredSecrets(db: Db): number {
  if (plaintextSecrets(db) === 0) return 0
  // the plain text must not outlive the change in freed pages or in the WAL
  return scrubbed(db, () => transactionOn(db, (tx) => {
    const n = sealPlaintextSecrets(tx)
    if (n) insertActivity(tx, { requestId: mintRequestId(), type: 'secrets.encrypted', actor: 'toolgate', data: { secrets: n } })
    return n
  }, 'immediate'))
}

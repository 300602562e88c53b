import 'server-only'
import { getDb } from '@/db/client'
import { profileList } from '@/db/queries/access'
import { readSettings } from '@/db/queries/settings'
import { activityStorage } from '@/lib/activity/retention'
import { presentSettings } from '@/lib/admin/settings'
import { listSessions } from '@/lib/auth/operator-sessions'

/** `/settings`: the proxy-wide switches, the profiles they may name, the activity log's storage and who is signed in. */
export function loadSettings() {
  const db = getDb()
  return {
    settings: presentSettings(readSettings(db)),
    profiles: profileList(db).map((p) => p.name),
    storage: activityStorage(db),
    sessions: listSessions(db),
  }
}

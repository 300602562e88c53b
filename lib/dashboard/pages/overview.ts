import 'server-only'
import { getDb } from '@/db/client'
import { readSettings } from '@/db/queries/settings'
import { firstRun } from '../first-run'
import { heavy, overCeiling } from '../heavy'
import { overview } from '../overview'

/**
 * `/`: what needs an operator now, the first-run checklist, and the two answers scored in the
 * worker (lib/dashboard/heavy.ts) as promises, so the page is sent before they land.
 */
export function loadOverview(operator: string) {
  const db = getDb()
  const o = overview(db, operator)
  // a set ceiling is scored (off the request loop) and streamed in; unset, there is nothing to score
  const ceilingSet = readSettings(db).maxDescriptionOverlap !== null
  return {
    overview: o,
    setup: firstRun(db),
    findings: o.tools.length > 0 ? heavy(db, { kind: 'findings', ids: o.tools.map((t) => t.id) }) : null,
    overCeiling: ceilingSet ? overCeiling(db) : null,
  }
}

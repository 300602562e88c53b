import 'server-only'
import { getDb } from '@/db/client'
import { toolInventory } from '@/lib/catalog/inventory'
import { accessOverview } from '../access'

/** `/connect`: the tokens and profiles to connect with, and a served tool for the example call. */
export function loadConnect() {
  const db = getDb()
  // the example call: a served tool, one that says it only reads where there is one
  const served = toolInventory(db).filter((t) => t.status === 'callable')
  return {
    access: accessOverview(db),
    exampleTool: (served.find((t) => t.annotations?.readOnlyHint === true) ?? served[0])?.id ?? '<server>:<tool>',
  }
}

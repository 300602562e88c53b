import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Db } from '../../db/client'
import { projectRoot } from '../paths'
import { isEmptyState, loadState } from './load'

export const demoStateFile = () => path.join(projectRoot(), 'lib', 'state', 'demo-state.json')

/** On first start (no servers at all) load the demo state; returns whether it did. */
export function loadDemoIfEmpty(db: Db): boolean {
  if (!isEmptyState(db)) return false
  loadState(db, JSON.parse(readFileSync(demoStateFile(), 'utf8')), 'toolgate:first-start')
  return true
}

import 'server-only'
import { getDb } from '@/db/client'
import { firstRun } from '../first-run'

/** `/setup`: the first-run checklist while setup is unfinished (null after). */
export const loadSetup = () => ({ steps: firstRun(getDb()) })

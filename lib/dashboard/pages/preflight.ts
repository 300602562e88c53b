import 'server-only'
import { getDb } from '@/db/client'
import { preflightOptions } from '../preflight'

/** `/preflight`: the tokens, profiles and servers the workbench offers. */
export const loadPreflight = () => ({ options: preflightOptions(getDb()) })

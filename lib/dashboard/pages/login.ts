import 'server-only'
import { getDb } from '@/db/client'
import { readSettings } from '@/db/queries/settings'

/** `/login`: whether people sign in with passwords here (besides single sign-on and the break-glass key). */
export const loadLogin = () => ({ passwords: readSettings(getDb()).localAccounts })

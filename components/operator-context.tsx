'use client'

import { createContext, useContext } from 'react'
import { can, type Permission, type Role } from '@/lib/auth/roles'

export interface SignedInPerson { username: string; name: string; role: Role; auth: string }

const PersonContext = createContext<SignedInPerson | null>(null)

/** Who is signed in, for the buttons: the server decides every action again (this only hides what would be refused). */
export function PersonProvider({ person, children }: { person: SignedInPerson; children: React.ReactNode }) {
  return <PersonContext.Provider value={person}>{children}</PersonContext.Provider>
}

export const usePerson = () => useContext(PersonContext)

/** Whether the signed-in person's role may do `permission` (false outside a signed-in page). */
export function useCan(permission: Permission): boolean {
  const p = useContext(PersonContext)
  return p !== null && can(p.role, permission)
}

/** Its children only for a role that may do `permission`: the dashboard shows only the buttons a person may use. */
export function Allowed({ permission, children }: { permission: Permission; children: React.ReactNode }) {
  return useCan(permission) ? <>{children}</> : null
}

import type { Permission } from '@/lib/auth/roles'
import type { Fix } from '@/lib/schemas/dashboard'

/** What each preflight remediation needs (lib/auth/roles.ts): the same as the button it stands for elsewhere. Dependency-free for the client. */
export const fixPermission: Record<Fix['kind'], Permission> = {
  approve_tool: 'approve', enable_tool: 'approve', allow_tool: 'approve', release_server: 'approve',
  enable_server: 'operate', restart_server: 'operate',
}

/**
 * The console's copy of svcd's rule for one permission (api/access.ts `roleAllows`), on GET /api/v1/whoami's answer:
 * the role holds the permission, and a role limited to a list of CAs holds nothing on another CA. Only for hiding
 * controls: svcd decides every request.
 */

/** What the rule needs of whoami's answer. */
export interface RoleView {
  permissions: readonly string[]
  /** The CAs the role is limited to, or null for all. */
  cas: readonly string[] | null
}

/** Whether `who` holds `need` (on `ca`, for an action on a CA); false when who is unknown. */
export function allows(who: RoleView | undefined, need: string, ca?: string): boolean {
  if (!who || !who.permissions.includes(need)) return false
  return ca === undefined || who.cas === null || who.cas.includes(ca)
}

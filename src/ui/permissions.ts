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

/**
 * Whether `who` is the user a plan's step names (svcd's rule, ca/plans.ts: the same id through the same provider): the
 * author of a plan may withdraw it, and under four-eyes may not approve it.
 */
export function sameUser(who: { id: string; provider: string } | undefined, stamp: { by: string; provider: string }): boolean {
  return who !== undefined && who.id === stamp.by && who.provider === stamp.provider
}

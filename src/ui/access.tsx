/**
 * What the logged-in role may do, for hiding the controls it cannot use: a small client copy of Krill's rule
 * (api/access.ts `roleAllows`: the role holds the permission, and a role limited to a list of CAs holds nothing on
 * another CA) applied to GET /api/v1/whoami's `permissions` and `cas`. svcd still checks every request; a 403 shows
 * its message and the missing permission (components.tsx ErrorBox).
 */
import type { ComponentChildren, JSX } from 'preact'
import { allows } from './permissions.js'
import { currentSession, type WhoAmI } from './session.js'

export { allows }
export type Permission = WhoAmI['permissions'][number]

/** Whether the logged-in user may `need` (on `ca`). */
export function can(need: Permission, ca?: string): boolean {
  return allows(currentSession()?.who, need, ca)
}

/** Its children only when the logged-in user may `need` (on `ca`): the permission of an action, named next to it. */
export function Can(props: { need: Permission; ca?: string; children: ComponentChildren }): JSX.Element | null {
  return can(props.need, props.ca) ? <>{props.children}</> : null
}

/**
 * Suspension of children (Krill's `suspend_child_after_inactive_hours`, krill-reference.md §1.1 "children suspend"):
 * a child that has not contacted its parent for the configured time, or that an operator suspends, keeps its
 * certificates in the CA state but they are withdrawn from publication (and revoked); when it next asks, or an
 * operator unsuspends it, it gets new certificates (new serials: the old ones are on the CRL; Krill #1341). Pure.
 */
import { child, reissueChild } from './children.js'
import type { CaContext } from './context.js'
import type { CaEvent } from './events.js'
import type { CaState } from './state.js'

/** Suspend a child (nothing when it already is). `inactive`: by the inactivity rule rather than an operator. */
export function processChildSuspend(s: CaState, c: { handle: string; inactive: boolean }): CaEvent[] {
  return child(s, c.handle).suspended ? [] : [{ type: 'child-suspended', handle: c.handle, inactive: c.inactive }]
}

/** Unsuspend a child (nothing when it is not suspended): its certificates are issued anew. */
export function processChildUnsuspend(s: CaState, c: { handle: string }, ctx: CaContext): CaEvent[] {
  const ch = child(s, c.handle)
  if (!ch.suspended) return []
  return [{ type: 'child-unsuspended', handle: c.handle }, ...reissueChild(s, ch, ctx)]
}

/**
 * The children to suspend at `now`: not suspended, holding certificates, and last heard of (`lastContact`, ISO time)
 * at least `afterSeconds` ago. A child never heard of is not suspended (its first contact starts the clock).
 */
export function inactiveChildren(s: CaState, lastContact: (child: string) => string | undefined, now: Date, afterSeconds: number): string[] {
  return Object.values(s.children)
    .filter((ch) => !ch.suspended && Object.keys(ch.issued).length > 0)
    .filter((ch) => {
      const last = lastContact(ch.handle)
      return last !== undefined && now.getTime() - Date.parse(last) >= afterSeconds * 1000
    })
    .map((ch) => ch.handle)
    .sort()
}

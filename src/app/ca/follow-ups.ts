/**
 * What follows a change of a CA, decided in one place (design.md §6; Krill's server/mq.rs): for every kind of event the
 * CA aggregate emits (ca/events.ts), what must happen once the command that emitted it is saved. CaFollowUps
 * (ca-follow-ups.ts) applies this table after every command, whoever ran it (the API, the RFC 6492 server, the parent
 * client, the scheduler, the TA key roll); no caller decides by hand whether to publish. Pure data and rules.
 */
import { CA_EVENT_TYPES, type CaEvent, type CaEventType } from '../../ca/events.js'
import type { CaState } from '../../ca/state.js'

/** What a change can call for. */
export const FOLLOW_UP_KINDS = [
  /** Bring the CA's objects and its repository up to date (coalesced per CA: many changes, one publication). */
  'publish',
  /** Ask the parent the event names (or the parent of the event's resource class) for entitlements and certificates. */
  'sync-parent',
  /** Ask every parent of the CA. */
  'sync-parents',
  /** The child the event names, when it is a CA in this svcd, asks us at once (others learn at their next refresh). */
  'sync-child',
  /** Every child of the CA that is a CA in this svcd asks us at once. */
  'sync-children',
  /** The periodic refresh of the parent the event names is scheduled (interval with jitter). */
  'refresh-parent',
  /** The refresh task and the exchange status of the parent the event names go. */
  'forget-parent',
  /** The CA's renewal task ('republish') is due when its objects next need work. */
  'schedule-renewal',
] as const
export type FollowUpKind = (typeof FOLLOW_UP_KINDS)[number]

/** Each kind of event with its follow-ups (a Record: the compiler refuses a kind left out). */
export type FollowUpTable = { readonly [K in CaEventType]: readonly FollowUpKind[] }

/**
 * Parent syncs start once the publication they come with is done (ca-follow-ups.ts): a parent certifies a new SIA or a
 * new key only after the objects are in the repository (spec §3 rule 1, RFC 6489 §2.3).
 */
export const FOLLOW_UPS: FollowUpTable = {
  // Our repository. Children's certificates re-issued for the move come as child-certificate-issued.
  'repo-updated': ['publish', 'sync-parents'],
  'old-repo-cleaned': [], // the last step of a publication (ca-publisher.ts), after which there is nothing left to do
  // Our parents and what they entitle us to.
  'parent-added': ['sync-parent', 'refresh-parent'],
  'parent-updated': ['sync-parent', 'refresh-parent'],
  'parent-removed': ['publish', 'forget-parent'],
  'resource-class-added': [], // its key asks for a certificate in the same exchange with the parent
  'resource-class-updated': [], // likewise; what children may get follows our certificate, not the entitlement
  'resource-class-removed': ['publish', 'sync-children'],
  'certificate-requested': [], // sent in the exchange that recorded it
  'certificate-received': ['publish', 'sync-children'],
  // Our children.
  'child-added': [], // the child asks when it is ready
  'child-resources-updated': ['sync-child'],
  'child-id-cert-updated': ['sync-child'],
  'child-removed': ['publish', 'sync-child'],
  'child-certificate-issued': ['publish'],
  'child-key-revoked': ['publish'], // asked for by the child, or part of a change above that tells the child
  'child-suspended': ['publish'],
  'child-unsuspended': ['publish'],
  // What the CA signs.
  'roas-updated': ['publish'],
  'aspa-config-added': ['publish'],
  'aspa-config-updated': ['publish'],
  'aspa-config-removed': ['publish'],
  'bgpsec-definition-added': ['publish'],
  'bgpsec-definition-removed': ['publish'],
  'change-control-updated': [], // a setting: nothing is published or asked
  'rsc-signed': [], // handed back to the caller, never published
  // Key rolls (RFC 6489; the TA's, RFC 9691). The TA's class has no parent: its sync-parent names none.
  'key-roll-initiated': ['sync-parent'],
  'key-roll-activated': ['publish', 'sync-parent'],
  'key-roll-finished': ['publish'],
  'ta-key-roll-initiated': ['publish'],
  'ta-key-roll-activated': ['publish'],
  'ta-key-roll-finished': ['publish'],
  // Identity key rolls (ca/id-roll.ts): nothing published; the parents and repository are told by the id-roll service.
  'id-key-roll-initiated': [],
  'id-key-roll-finished': [],
  'child-previous-id-cert-retired': [],
}

/** A new CA (its first history entry has no event): its first publication and its renewal task. */
export const CREATED_FOLLOW_UPS: readonly FollowUpKind[] = ['publish', 'schedule-renewal']

/** A follow-up with what it applies to. */
export type FollowUp =
  | { kind: 'publish' | 'sync-parents' | 'sync-children' | 'schedule-renewal' }
  | { kind: 'sync-parent' | 'refresh-parent' | 'forget-parent'; parent: string }
  | { kind: 'sync-child'; child: string }

/** What is wrong with a table: kinds of event without an entry, entries for no kind, follow-ups that do not exist. */
export function tableProblems(table: Readonly<Record<string, readonly string[] | undefined>>, kinds: readonly string[] = CA_EVENT_TYPES): string[] {
  const problems: string[] = []
  for (const k of kinds) if (!Array.isArray(table[k])) problems.push(`event '${k}' has no follow-up entry`)
  for (const k of Object.keys(table)) if (!kinds.includes(k)) problems.push(`'${k}' is no kind of event`)
  for (const [k, list] of Object.entries(table)) for (const f of list ?? []) if (!(FOLLOW_UP_KINDS as readonly string[]).includes(f)) problems.push(`event '${k}': '${f}' is no follow-up`)
  return problems
}

/**
 * The follow-ups of a command's events (`state`: the CA after them), each once, in the order of FOLLOW_UP_KINDS. A
 * follow-up that names a parent or child the event does not give is left out (the TA's classes have no parent).
 */
export function followUpsOf(events: readonly CaEvent[], state: CaState, table: FollowUpTable = FOLLOW_UPS): FollowUp[] {
  const found = new Map<string, FollowUp>()
  for (const e of events) {
    for (const kind of table[e.type]) {
      const f = target(kind, e, state)
      if (f) found.set(JSON.stringify(f), f)
    }
  }
  const rank = (f: FollowUp) => FOLLOW_UP_KINDS.indexOf(f.kind)
  return [...found.values()].sort((a, b) => rank(a) - rank(b))
}

/** The follow-ups of a new CA. */
export function createdFollowUps(): FollowUp[] {
  return CREATED_FOLLOW_UPS.map((kind) => target(kind, undefined, undefined)).filter((f) => f !== undefined)
}

function target(kind: FollowUpKind, e: CaEvent | undefined, s: CaState | undefined): FollowUp | undefined {
  switch (kind) {
    case 'sync-parent':
    case 'refresh-parent':
    case 'forget-parent': {
      const parent = e && s ? parentOf(e, s) : undefined
      return parent ? { kind, parent } : undefined
    }
    case 'sync-child': {
      const child = e && childOf(e)
      return child ? { kind, child } : undefined
    }
    default:
      return { kind }
  }
}

/** The parent an event is about: named by it, or the parent of its resource class ('' for the TA's: none). */
function parentOf(e: CaEvent, s: CaState): string | undefined {
  if (e.type === 'parent-added' || e.type === 'parent-updated') return e.parent.name
  if (e.type === 'parent-removed') return e.name
  if ('className' in e) return s.classes[e.className]?.parent || undefined
  return undefined
}

/** The child an event is about (child events name it as `handle` or `child`). */
function childOf(e: CaEvent): string | undefined {
  if (!e.type.startsWith('child-')) return undefined
  return 'handle' in e ? e.handle : 'child' in e ? e.child : undefined
}

/**
 * The storage interface of change plans (design.md §12, issue 27): one row per plan, its record as the domain keeps it
 * (ca/plans.ts PlanRecord). Re-exported by store/interfaces.ts with the others.
 */
import type { PlanRecord, PlanStatus } from '../ca/plans.js'

export interface PlanQuery {
  status?: PlanStatus
  offset: number
  limit: number
}

export interface PlanStore {
  /** Store a new plan; the store gives it its id (increasing; never reused). */
  create(p: Omit<PlanRecord, 'id'>): PlanRecord
  get(ca: string, id: number): PlanRecord | undefined
  /** A CA's plans, newest first, with the total that match. */
  list(ca: string, q: PlanQuery): { total: number; plans: PlanRecord[] }
  /** How many of a CA's plans are open or approved (not yet applied, rejected or withdrawn). */
  countLive(ca: string): number
  /**
   * Replace a plan, only if its status is still `from` (compare and set: of two approvals or two applies at once, one
   * wins and the other sees false). Runs inside the caller's transaction when there is one.
   */
  update(p: PlanRecord, from: PlanStatus): boolean
  /** Forget every plan of a CA (the CA is deleted). */
  removeCa(ca: string): void
}

/** The storage interface of the quarantine (issue 26 §5): what was set aside as undecodable, until an operator drops it. */
import type { QuarantineWhat } from '../util/stored-data.js'

/** One item set aside: what it is, which (task key, CA handle, publisher and URI), why, and the raw row as read. */
export interface QuarantinedItem {
  id: number
  what: QuarantineWhat
  subject: string
  reason: string
  raw: string
  /** When it was set aside, ms since the epoch. */
  at: number
}

export interface QuarantineStore {
  /** Set an item aside; the same (what, subject) again keeps one row (its reason and raw row updated). */
  put(item: Omit<QuarantinedItem, 'id'>): void
  list(): QuarantinedItem[]
  get(id: number): QuarantinedItem | undefined
  /** Forget an item; false when there was none with this id. */
  drop(id: number): boolean
}

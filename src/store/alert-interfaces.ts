/** The storage of alarms and their webhook deliveries (design.md §11; SQLite migration 13, PostgreSQL 10). */
import type { Alarm } from '../liveness/alarms.js'

export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

export interface Delivery {
  id: number
  webhook: string
  event: string
  alarmKey?: string
  /** The exact JSON body sent (and signed) on every attempt. */
  body: string
  status: DeliveryStatus
  attempts: number
  /** When the next attempt is due (ms), while pending. */
  nextAt?: number
  /** Why the last attempt failed (an HTTP status or a transport error; never a secret). */
  lastError?: string
  created: number
  /** When it was delivered or given up (ms). */
  done?: number
}

export interface AlertStore {
  /** Alarms active now (not cleared). */
  active(): Alarm[]
  /** The most recently raised alarms, active or cleared, newest first. */
  recent(limit: number): Alarm[]
  /** Insert or replace an alarm by its key (a raise, a changed reason, a clear). */
  saveAlarm(a: Alarm): void
  /** Queue a delivery; returns its id. */
  addDelivery(d: Omit<Delivery, 'id'>): number
  /** Pending deliveries due at `now`, oldest first. */
  dueDeliveries(now: number, limit: number): Delivery[]
  /** The earliest next attempt among pending deliveries. */
  nextDue(): number | undefined
  updateDelivery(id: number, u: Pick<Delivery, 'status' | 'attempts'> & { nextAt?: number; lastError?: string; done?: number }): void
  /** The newest deliveries, newest first (`svcc alerts`). */
  deliveries(limit: number): Delivery[]
  /** Forget cleared alarms and finished deliveries older than `before` (ms). */
  prune(before: number): void
}

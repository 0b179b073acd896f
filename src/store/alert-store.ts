/** Alarms and webhook deliveries in SQL (design.md §11; SQLite migration 13, PostgreSQL 10): the same SQL on both. */
import type { Alarm } from '../liveness/alarms.js'
import type { AlarmKind } from '../liveness/model.js'
import type { AlertStore, Delivery, DeliveryStatus } from './alert-interfaces.js'
import type { SqlDb } from './sql.js'

interface AlarmRow {
  key: string
  kind: string
  subject: string
  ca: string | null
  source: string
  reason: string
  raised: number | string
  cleared: number | string | null
}

interface DeliveryRow {
  id: number | string
  webhook: string
  event: string
  alarm_key: string | null
  body: string
  status: string
  attempts: number | string
  next_at: number | string | null
  last_error: string | null
  created: number | string
  done: number | string | null
}

function alarm(r: AlarmRow): Alarm {
  return {
    key: r.key, kind: r.kind as AlarmKind, subject: r.subject, ...(r.ca !== null ? { ca: r.ca } : {}), source: r.source, reason: r.reason, raisedAt: Number(r.raised),
    ...(r.cleared !== null ? { clearedAt: Number(r.cleared) } : {}),
  }
}

function delivery(r: DeliveryRow): Delivery {
  return {
    id: Number(r.id), webhook: r.webhook, event: r.event, ...(r.alarm_key !== null ? { alarmKey: r.alarm_key } : {}), body: r.body, status: r.status as DeliveryStatus,
    attempts: Number(r.attempts), ...(r.next_at !== null ? { nextAt: Number(r.next_at) } : {}), ...(r.last_error !== null ? { lastError: r.last_error } : {}),
    created: Number(r.created), ...(r.done !== null ? { done: Number(r.done) } : {}),
  }
}

export class SqlAlertStore implements AlertStore {
  constructor(private readonly db: SqlDb) {}

  active(): Alarm[] {
    return (this.db.prepare('SELECT * FROM alarms WHERE cleared IS NULL ORDER BY raised, key').all() as AlarmRow[]).map(alarm)
  }

  recent(limit: number): Alarm[] {
    return (this.db.prepare('SELECT * FROM alarms ORDER BY raised DESC, key LIMIT ?').all(limit) as AlarmRow[]).map(alarm)
  }

  saveAlarm(a: Alarm): void {
    this.db.prepare(`INSERT INTO alarms (key, kind, subject, ca, source, reason, raised, cleared) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, subject = excluded.subject, ca = excluded.ca, source = excluded.source, reason = excluded.reason, raised = excluded.raised, cleared = excluded.cleared`)
      .run(a.key, a.kind, a.subject, a.ca ?? null, a.source, a.reason, a.raisedAt, a.clearedAt ?? null)
  }

  addDelivery(d: Omit<Delivery, 'id'>): number {
    const r = this.db.prepare('INSERT INTO alert_deliveries (webhook, event, alarm_key, body, status, attempts, next_at, last_error, created, done) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id')
      .get(d.webhook, d.event, d.alarmKey ?? null, d.body, d.status, d.attempts, d.nextAt ?? null, d.lastError ?? null, d.created, d.done ?? null) as { id: number | string }
    return Number(r.id)
  }

  dueDeliveries(now: number, limit: number): Delivery[] {
    return (this.db.prepare("SELECT * FROM alert_deliveries WHERE status = 'pending' AND next_at <= ? ORDER BY next_at, id LIMIT ?").all(now, limit) as DeliveryRow[]).map(delivery)
  }

  nextDue(): number | undefined {
    const r = this.db.prepare("SELECT min(next_at) AS n FROM alert_deliveries WHERE status = 'pending'").get() as { n: number | string | null }
    return r.n === null ? undefined : Number(r.n)
  }

  updateDelivery(id: number, u: Pick<Delivery, 'status' | 'attempts'> & { nextAt?: number; lastError?: string; done?: number }): void {
    this.db.prepare('UPDATE alert_deliveries SET status = ?, attempts = ?, next_at = ?, last_error = ?, done = ? WHERE id = ?')
      .run(u.status, u.attempts, u.nextAt ?? null, u.lastError ?? null, u.done ?? null, id)
  }

  deliveries(limit: number): Delivery[] {
    return (this.db.prepare('SELECT * FROM alert_deliveries ORDER BY id DESC LIMIT ?').all(limit) as DeliveryRow[]).map(delivery)
  }

  prune(before: number): void {
    this.db.prepare('DELETE FROM alarms WHERE cleared IS NOT NULL AND cleared < ?').run(before)
    this.db.prepare("DELETE FROM alert_deliveries WHERE status <> 'pending' AND done < ?").run(before)
  }
}

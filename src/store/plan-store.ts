/**
 * Change plans in SQL (design.md §12; SQLite migration 10, PostgreSQL 7): one row per plan with its status for the
 * filters and its record as JSON. A step on a plan is a compare-and-set on its status, so two instances (or two
 * requests) approving or applying the same plan at once cannot both succeed.
 */
import type { PlanRecord, PlanStatus } from '../ca/plans.js'
import type { PlanQuery, PlanStore } from './plan-interfaces.js'
import type { SqlDb } from './sql.js'

interface Row {
  id: number | string
  record: string
}

export class SqlPlanStore implements PlanStore {
  constructor(private readonly db: SqlDb) {}

  create(p: Omit<PlanRecord, 'id'>): PlanRecord {
    return this.db.transaction(() => {
      const row = this.db.prepare("INSERT INTO ca_plans (ca, status, created, record) VALUES (?, ?, ?, '{}') RETURNING id").get(p.ca, p.status, Date.parse(p.created.at)) as { id: number | string }
      const plan = { id: Number(row.id), ...p }
      this.db.prepare('UPDATE ca_plans SET record = ? WHERE id = ?').run(JSON.stringify(plan), plan.id)
      return plan
    })
  }

  get(ca: string, id: number): PlanRecord | undefined {
    const r = this.db.prepare('SELECT id, record FROM ca_plans WHERE ca = ? AND id = ?').get(ca, id) as Row | undefined
    return r && fromRow(r)
  }

  list(ca: string, q: PlanQuery): { total: number; plans: PlanRecord[] } {
    const filter = q.status === undefined ? '' : ' AND status = ?'
    const args = q.status === undefined ? [ca] : [ca, q.status]
    const total = Number((this.db.prepare(`SELECT COUNT(*) AS n FROM ca_plans WHERE ca = ?${filter}`).get(...args) as { n: number | string }).n)
    const rows = this.db.prepare(`SELECT id, record FROM ca_plans WHERE ca = ?${filter} ORDER BY id DESC LIMIT ? OFFSET ?`).all(...args, q.limit, q.offset) as Row[]
    return { total, plans: rows.map(fromRow) }
  }

  countLive(ca: string): number {
    return Number((this.db.prepare("SELECT COUNT(*) AS n FROM ca_plans WHERE ca = ? AND status IN ('open', 'approved')").get(ca) as { n: number | string }).n)
  }

  update(p: PlanRecord, from: PlanStatus): boolean {
    return this.db.prepare('UPDATE ca_plans SET status = ?, record = ? WHERE ca = ? AND id = ? AND status = ?').run(p.status, JSON.stringify(p), p.ca, p.id, from).changes > 0
  }

  removeCa(ca: string): void {
    this.db.prepare('DELETE FROM ca_plans WHERE ca = ?').run(ca)
  }
}

function fromRow(r: Row): PlanRecord {
  return { ...(JSON.parse(r.record) as PlanRecord), id: Number(r.id) }
}

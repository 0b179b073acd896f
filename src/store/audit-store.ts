/** The audit trail in SQL (design.md §9; migration 9): appended to, read newest or oldest first with filters. */
import type { AuditQuery, AuditRecord, AuditStore, AuditVisibility } from './interfaces.js'
import type { SqlDb, SqlValue } from './sql.js'

interface Row {
  seq: number | string
  time: number | string
  actor: string
  provider: string
  token: string | null
  kind: string
  ca: string | null
  success: number
  source: string | null
  details: string
}

export class SqlAuditStore implements AuditStore {
  constructor(private readonly db: SqlDb) {}

  append(r: Omit<AuditRecord, 'seq'>): number {
    const row = this.db
      .prepare('INSERT INTO audit_log (time, actor, provider, token, kind, ca, success, source, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq')
      .get(r.time, r.actor, r.provider, r.token ?? null, r.kind, r.ca ?? null, r.success ? 1 : 0, r.source ?? null, JSON.stringify(r.details)) as { seq: number | string }
    return Number(row.seq)
  }

  list(q: AuditQuery): { total: number; records: AuditRecord[] } {
    const where: string[] = []
    const args: SqlValue[] = []
    const add = (clause: string, v: SqlValue) => {
      where.push(clause)
      args.push(v)
    }
    if (q.actor !== undefined) add('actor = ?', q.actor)
    if (q.ca !== undefined) add('ca = ?', q.ca)
    if (q.kind !== undefined) add('kind = ?', q.kind)
    if (q.since !== undefined) add('time >= ?', q.since)
    if (q.until !== undefined) add('time < ?', q.until)
    if (q.visible) {
      const v = visibleWhere(q.visible)
      where.push(v.clause)
      args.push(...v.args)
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : ''
    const total = Number((this.db.prepare(`SELECT count(*) AS n FROM audit_log ${clause}`).get(...args) as { n: number | string }).n)
    const order = q.order === 'desc' ? 'DESC' : 'ASC'
    const rows = this.db.prepare(`SELECT * FROM audit_log ${clause} ORDER BY seq ${order} LIMIT ? OFFSET ?`).all(...args, q.limit, q.offset) as Row[]
    return { total, records: rows.map(fromRow) }
  }
}

function fromRow(r: Row): AuditRecord {
  return {
    seq: Number(r.seq),
    time: Number(r.time),
    actor: r.actor,
    provider: r.provider,
    token: r.token ?? undefined,
    kind: r.kind,
    ca: r.ca ?? undefined,
    success: Number(r.success) === 1,
    source: r.source ?? undefined,
    details: JSON.parse(r.details) as Record<string, unknown>,
  }
}

/** The publication server's audit kinds (records without a CA that a `pub-admin` role sees). */
const PUBLISHER_KINDS = ['publisher-add', 'publisher-remove']

/** What a caller may see as one parenthesised condition (api/audit.ts decides it from the role). */
function visibleWhere(v: AuditVisibility): { clause: string; args: SqlValue[] } {
  const any: string[] = []
  const args: SqlValue[] = []
  if (v.cas === 'all') any.push('ca IS NOT NULL')
  else if (v.cas.length) any.push(`ca IN (${v.cas.map(() => '?').join(', ')})`), args.push(...v.cas)
  if (v.withoutCa === 'all') any.push('ca IS NULL')
  else if (v.withoutCa === 'publishers') any.push(`(ca IS NULL AND kind IN (${PUBLISHER_KINDS.map(() => '?').join(', ')}))`), args.push(...PUBLISHER_KINDS)
  if (v.own) {
    any.push(v.own.token === undefined ? '(actor = ? AND provider = ? AND token IS NULL)' : '(actor = ? AND provider = ? AND token = ?)')
    args.push(v.own.actor, v.own.provider, ...(v.own.token === undefined ? [] : [v.own.token]))
  }
  return { clause: any.length ? `(${any.join(' OR ')})` : '1 = 0', args }
}

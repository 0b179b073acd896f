/**
 * The PlanStore contract (store/plan-interfaces.ts; design.md §12, issue 27): plans stored as given under increasing
 * ids, listed newest first with their total, filtered by status and paged; a step is a compare-and-set on the status
 * (of two updates from the same status only the first lands, also from a second instance); a CA's plans go with it.
 */
import type { Test } from 'tap'
import type { PlanRecord, PlanStatus } from '../../src/ca/plans.js'
import { fresh, type StoresFactory } from './stores.contract.js'

const at = (s: number) => new Date(Date.UTC(2026, 10, 27, 10, 0, s)).toISOString()

function plan(ca: string, n: number, over: Partial<PlanRecord> = {}): Omit<PlanRecord, 'id'> {
  return {
    ca, status: 'open', comment: `plan ${n}`, source: 'delta', base: 'f'.repeat(64),
    change: { roas: { added: [{ asn: 65000 + n, prefix: '10.0.0.0/16', max_length: 20, comment: 'a "quoted" comment' }], removed: [] }, aspas: { add_or_replace: [{ customer: 65000, providers: [65001, 65002] }], remove: [65003] } },
    impact: {
      analysed_at: at(n), bgp: { available: true, turned_valid: 1, turned_invalid: 0, turned_not_found: 0, changes: [{ asn: 65001, prefix: '10.0.0.0/24', before: 'not_found', after: 'valid', detail: 'announcement_valid' }], truncated: false },
      vrps: { added: [{ asn: 65000 + n, prefix: '10.0.0.0/16', max_length: 20 }], removed: [], added_count: 1, removed_count: 0, before: 0, after: 1 }, aspas: { added: [65000], changed: [], removed: [] },
    },
    created: { by: 'alice', provider: 'config-file', at: at(n) },
    ...over,
  }
}

export function planStoreContract(t: Test, make: StoresFactory): void {
  t.test('create and get: increasing ids, the record as given', async (t) => {
    const s = fresh(t, make)
    const r = s.stores.plans
    const a = r.create(plan('ca1', 1))
    const b = r.create(plan('ca2', 2, { rollback_to: 4, source: 'rollback', created: { by: 'bob', provider: 'openid-connect', token: 'ci', at: at(2) } }))
    const c = r.create(plan('ca1', 3))
    t.ok(a.id > 0)
    t.ok(b.id > a.id && c.id > b.id, 'ids increase, across CAs')
    t.same(r.get('ca1', a.id), { id: a.id, ...plan('ca1', 1) }, 'read back as stored')
    t.same(r.get('ca2', b.id), { id: b.id, ...plan('ca2', 2, { rollback_to: 4, source: 'rollback', created: { by: 'bob', provider: 'openid-connect', token: 'ci', at: at(2) } }) }, 'with its optional fields')
    t.equal(r.get('ca2', a.id), undefined, "another CA's plan is not found under this CA")
    t.equal(r.get('ca1', c.id + 100), undefined, 'unknown id')
    if (s.reopen) t.same(s.reopen().plans.get('ca1', c.id), { id: c.id, ...plan('ca1', 3) }, 'another instance reads it')
  })

  t.test('list: newest first, total, filter by status, paging; countLive', async (t) => {
    const s = fresh(t, make)
    const r = s.stores.plans
    const ids = [1, 2, 3, 4, 5].map((n) => r.create(plan('ca1', n)).id)
    r.create(plan('ca2', 6))
    const set = (id: number, status: PlanStatus, from: PlanStatus = 'open') => t.ok(r.update({ ...r.get('ca1', id)!, status }, from), `plan ${id} ${status}`)
    set(ids[0]!, 'applied')
    set(ids[2]!, 'rejected')
    set(ids[3]!, 'approved')
    const all = r.list('ca1', { offset: 0, limit: 10 })
    t.equal(all.total, 5)
    t.same(all.plans.map((p) => p.id), [...ids].reverse(), 'newest first; only the CA asked')
    t.same(all.plans.map((p) => p.status), ['open', 'approved', 'rejected', 'open', 'applied'], 'statuses as updated')
    const open = r.list('ca1', { status: 'open', offset: 0, limit: 10 })
    t.same({ total: open.total, ids: open.plans.map((p) => p.id) }, { total: 2, ids: [ids[4], ids[1]] }, 'open ones')
    t.same(r.list('ca1', { status: 'withdrawn', offset: 0, limit: 10 }), { total: 0, plans: [] }, 'none withdrawn')
    const page = r.list('ca1', { offset: 1, limit: 2 })
    t.same({ total: page.total, ids: page.plans.map((p) => p.id) }, { total: 5, ids: [ids[3], ids[2]] }, 'a page: the total is of all that match')
    t.same(r.list('ca1', { offset: 5, limit: 2 }).plans, [], 'past the end')
    t.equal(r.countLive('ca1'), 3, 'open and approved are live')
    t.equal(r.countLive('ca2'), 1)
    t.equal(r.countLive('nobody'), 0)
  })

  t.test('update: compare and set on the status', async (t) => {
    const s = fresh(t, make)
    const r = s.stores.plans
    const p = r.create(plan('ca1', 1))
    const approved = { ...p, status: 'approved' as const, approved: { by: 'bob', provider: 'config-file', at: at(9) } }
    t.ok(r.update(approved, 'open'), 'the first update from open lands')
    t.notOk(r.update({ ...p, status: 'rejected', rejected: { by: 'carol', provider: 'config-file', at: at(9), reason: 'no' } }, 'open'), 'a second update from open fails')
    t.same(r.get('ca1', p.id), approved, 'the first one stays')
    t.notOk(r.update({ ...approved, ca: 'ca2', status: 'applied' }, 'approved'), "not through another CA's name")
    if (s.reopen) {
      const other = s.reopen().plans
      t.ok(other.update({ ...approved, status: 'applied', applied: { by: 'bob', provider: 'config-file', at: at(10), version: 7 } }, 'approved'), 'another instance steps it on')
      t.notOk(r.update({ ...approved, status: 'withdrawn' }, 'approved'), 'and this one sees the status it set')
      t.equal(r.get('ca1', p.id)!.status, 'applied')
      t.equal(r.get('ca1', p.id)!.applied!.version, 7)
    }
    t.notOk(r.update({ ...p, id: p.id + 100 }, 'open'), 'an unknown plan is not updated')
  })

  t.test('removeCa: its plans go, ids are not reused', async (t) => {
    const s = fresh(t, make)
    const r = s.stores.plans
    const a = r.create(plan('ca1', 1))
    const b = r.create(plan('ca2', 2))
    r.removeCa('ca1')
    t.equal(r.get('ca1', a.id), undefined)
    t.same(r.list('ca1', { offset: 0, limit: 10 }), { total: 0, plans: [] })
    t.equal(r.countLive('ca1'), 0)
    t.same(r.get('ca2', b.id)?.id, b.id, "another CA's plans stay")
    const c = r.create(plan('ca1', 3))
    t.ok(c.id > b.id, 'a new plan gets a new id')
  })

  t.test('inside a transaction that fails, a new plan and a step are undone', async (t) => {
    const s = fresh(t, make)
    const r = s.stores.plans
    const p = r.create(plan('ca1', 1))
    t.throws(() => s.stores.transaction(() => {
      r.create(plan('ca1', 2))
      r.update({ ...p, status: 'withdrawn' }, 'open')
      throw new Error('abort')
    }), /abort/)
    t.same(r.list('ca1', { offset: 0, limit: 10 }).plans.map((x) => [x.id, x.status]), [[p.id, 'open']], 'nothing of it stayed')
  })
}

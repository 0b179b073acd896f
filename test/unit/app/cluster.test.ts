/**
 * ClusterService (app/shared/cluster.ts) with an in-memory ClusterStore that behaves as the advisory lock does (one
 * holder; a resign or a lost session frees it; each new holder gets the next epoch): who leads, when onLead and
 * onFollow run, that a deposed leader steps down at its next beat, that its fence and epoch refuse, and what
 * GET /api/v1/cluster shows. The PostgreSQL store itself is tested against a real cluster (test/contract/pg-cluster).
 */
import t from 'tap'
import { ClusterService, SingleInstance } from '../../../src/app/shared/cluster.js'
import type { ClusterStore, InstanceRecord, LeaderRecord } from '../../../src/store/interfaces.js'

/** The database's side: the lock holder, the epoch, the reports. */
class Db {
  holder: string | undefined
  epoch = 0
  beats = new Map<string, number>()
  reports = new Map<string, InstanceRecord>()
  clock = 1_000_000
}

class MemoryClusterStore implements ClusterStore {
  constructor(private readonly db: Db, private readonly me: string) {}
  async tryLead(id: string) {
    if (this.db.holder !== undefined) return undefined
    this.db.holder = this.me
    this.db.epoch++
    this.db.beats.set(id, this.db.clock)
    return this.db.epoch
  }
  async beat(epoch: number) {
    return this.db.holder === this.me && this.db.epoch === epoch
  }
  async endStaleLeader() {
    return false
  }
  async resign() {
    if (this.db.holder === this.me) this.db.holder = undefined
  }
  async report(r: Omit<InstanceRecord, 'heartbeat'>) {
    this.db.reports.set(r.id, { ...r, heartbeat: this.db.clock })
    return { now: this.db.clock, epoch: this.db.epoch }
  }
  async view() {
    const leader: LeaderRecord = { epoch: this.db.epoch, ...(this.db.holder ? { leader: this.db.holder } : {}) }
    return { now: this.db.clock + 2000, leader, instances: [...this.db.reports.values()] }
  }
  async startupLock() {
    return async () => undefined
  }
  fence(epoch: number) {
    if (epoch !== this.db.epoch) throw new Error(`deposed (${epoch} < ${this.db.epoch})`)
  }
  async close() {}
}

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as never
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10))
  return cond()
}

function instance(db: Db, id: string, serial: number, events: string[]) {
  return new ClusterService({
    store: new MemoryClusterStore(db, id), id, url: `https://127.0.0.1/${id}`, started: new Date('2026-11-24T00:00:00Z'), leaseMs: 200,
    served: () => ({ session: 's', serial }), log: quiet,
    onLead: async (epoch) => void events.push(`${id} leads ${epoch}`),
    onFollow: async () => void events.push(`${id} follows`),
  })
}

t.test('the first instance leads; a stopped leader hands over at the next tick, with the next epoch', async (t) => {
  const db = new Db()
  const events: string[] = []
  const a = instance(db, 'a', 10, events)
  const b = instance(db, 'b', 8, events)
  await a.start()
  await b.start()
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  t.equal(a.role(), 'leader')
  t.equal(b.role(), 'follower')
  t.equal(a.epoch(), 1)
  t.throws(() => b.epoch(), /not the leader/, 'a follower has no epoch to write with')
  t.doesNotThrow(() => a.fence(), 'the leader passes its fence')

  const v = await b.view()
  t.match(v, { mode: 'cluster', epoch: 1, leader: 'a', this_instance: 'b' })
  t.same(v.instances.map((i) => [i.id, i.role, i.rrdp_serial, i.lag, i.heartbeat_age_seconds]).sort(), [['a', 'leader', 10, 0, 2], ['b', 'follower', 8, 2, 2]], 'serials, lag behind the leader, heartbeat age')

  await a.stop()
  t.ok(await until(() => b.role() === 'leader'), 'the other instance leads once the leader stopped')
  t.equal(b.epoch(), 2)
  t.same(events, ['a leads 1', 'a follows', 'b leads 2'], 'onLead and onFollow in order')
})

t.test('a leader that lost its lock steps down at its next beat, and its fence refuses meanwhile', async (t) => {
  const db = new Db()
  const events: string[] = []
  const a = instance(db, 'a', 1, events)
  await a.start()
  t.teardown(() => a.stop())
  t.equal(a.role(), 'leader')
  // Its session ends (as when the database restarts) and another instance takes the lock.
  db.holder = 'x'
  db.epoch = 2
  t.throws(() => a.fence(), /deposed/, 'a write fenced with the old epoch is refused at once')
  t.ok(await until(() => a.role() === 'follower'), 'it steps down at its next beat')
  t.same(events, ['a leads 1', 'a follows'])
})

t.test('one instance on its own database always leads, epoch 0', async (t) => {
  const s = new SingleInstance('host:3000', 'https://127.0.0.1:3000/', new Date('2026-11-24T00:00:00Z'), () => ({ session: 'abc', serial: 5 }))
  t.equal(s.role(), 'leader')
  t.equal(s.epoch(), 0)
  t.doesNotThrow(() => s.fence())
  t.match(s.view(), { mode: 'single', epoch: 0, leader: 'host:3000', this_instance: 'host:3000', instances: [{ id: 'host:3000', role: 'leader', rrdp_session: 'abc', rrdp_serial: 5, lag: 0 }] })
})

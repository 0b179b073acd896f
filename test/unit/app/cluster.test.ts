/**
 * ClusterService (app/shared/cluster.ts) with an in-memory ClusterStore that behaves as the advisory lock does (one
 * holder; a resign or a lost session frees it; each new holder gets the next epoch): who leads, when onLead and
 * onFollow run, that a deposed leader steps down at its next beat, that its fence and epoch refuse, and what
 * GET /api/v1/cluster shows; and, on the FakeClock, when each of them happens: a follower tries the lock several times
 * a second, the leader beats and everyone reports every quarter lease, and a new leader's onLead never holds up its
 * beats. The PostgreSQL store itself is tested against a real cluster (test/contract/pg-cluster).
 */
import t from 'tap'
import { beatEveryMs, ClusterService, tryEveryMs } from '../../../src/app/shared/cluster.js'
import { SingleInstance } from '../../../src/app/shared/leadership.js'
import { FakeClock } from '../../helpers/fake-clock.js'
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
  calls: string[] = []
  constructor(private readonly db: Db, private readonly me: string) {}
  async tryLead(id: string) {
    this.calls.push('tryLead')
    if (this.db.holder !== undefined) return undefined
    this.db.holder = this.me
    this.db.epoch++
    this.db.beats.set(id, this.db.clock)
    return this.db.epoch
  }
  async beat(epoch: number) {
    this.calls.push('beat')
    return this.db.holder === this.me && this.db.epoch === epoch
  }
  async endStaleLeader() {
    this.calls.push('endStaleLeader')
    return false
  }
  async resign() {
    if (this.db.holder === this.me) this.db.holder = undefined
  }
  async report(r: Omit<InstanceRecord, 'heartbeat'>) {
    this.calls.push('report')
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
const clock = new FakeClock()
/** Advance the fake clock in 10 ms steps until `cond` holds (at most 2 s of fake time). */
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await clock.advance(10)
  return cond()
}

function instance(db: Db, id: string, serial: number, events: string[], o: { leaseMs?: number; onLead?: () => Promise<void>; store?: MemoryClusterStore } = {}) {
  return new ClusterService({
    store: o.store ?? new MemoryClusterStore(db, id), id, url: `https://127.0.0.1/${id}`, started: new Date('2026-11-24T00:00:00Z'), leaseMs: o.leaseMs ?? 200,
    served: () => ({ session: 's', serial }), log: quiet, clock,
    onLead: async (epoch) => {
      events.push(`${id} leads ${epoch}`)
      await o.onLead?.()
    },
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
  t.equal(b.epoch(), 1, 'a follower tells the epoch it saw')
  t.throws(() => b.fence(), /not the leader/, 'a follower has no epoch to write with')
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
  const s = new SingleInstance('host:3000', 'https://127.0.0.1:3000/', new Date('2026-11-24T00:00:00Z'), () => ({ session: 'abc', serial: 5 }), clock)
  t.equal(s.role(), 'leader')
  t.equal(s.epoch(), 0)
  t.doesNotThrow(() => s.fence())
  t.match(s.view(), { mode: 'single', epoch: 0, leader: 'host:3000', this_instance: 'host:3000', instances: [{ id: 'host:3000', role: 'leader', rrdp_session: 'abc', rrdp_serial: 5, lag: 0, last_heartbeat: Math.floor(clock.now() / 1000) }] })
})

t.test('the periods: a follower tries the lock several times a second, the leader beats every quarter lease', async (t) => {
  t.same([2_000, 5_000, 10_000, 60_000].map(tryEveryMs), [100, 250, 250, 250])
  t.same([200, 5_000, 10_000].map(beatEveryMs), [100, 1_250, 2_500])
})

t.test('a dead leader is replaced at the next try, well within the lease; reports stay at a quarter lease', async (t) => {
  const db = new Db()
  const events: string[] = []
  const a = instance(db, 'a', 1, events, { leaseMs: 5_000 })
  const store = new MemoryClusterStore(db, 'b')
  const b = instance(db, 'b', 1, events, { leaseMs: 5_000, store })
  await a.start()
  await b.start()
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  store.calls.length = 0
  await clock.advance(5_000)
  t.equal(store.calls.filter((c) => c === 'tryLead').length, 20, 'a try every 250 ms')
  t.equal(store.calls.filter((c) => c === 'report').length, 4, 'a report every 1.25 s')
  t.equal(store.calls.filter((c) => c === 'endStaleLeader').length, 4, 'and a look for a hung leader as often')
  db.holder = undefined // the leader's connection dropped (kill -9): its lock is free at once
  const killed = clock.now()
  t.ok(await until(() => b.role() === 'leader'), 'b takes over')
  t.ok(clock.now() - killed <= 250, `within one try (${clock.now() - killed} ms of fake time)`)
  t.equal(b.epoch(), 2)
})

t.test('a new leader beats while its onLead still runs (catching up never costs it the lead)', async (t) => {
  const db = new Db()
  db.holder = 'x' // another instance leads
  db.epoch = 1
  const store = new MemoryClusterStore(db, 'b')
  const b = instance(db, 'b', 1, [], { leaseMs: 1_000, store, onLead: () => new Promise<void>(() => undefined) })
  await b.start()
  t.teardown(() => void b.stop()) // its onLead never finishes: stop is not awaited
  t.equal(b.role(), 'follower')
  db.holder = undefined
  t.ok(await until(() => b.role() === 'leader'), 'b leads; its onLead never finishes')
  store.calls.length = 0
  await clock.advance(1_000)
  t.equal(store.calls.filter((c) => c === 'beat').length, 4, 'and it beats every quarter lease meanwhile')
})

/**
 * Leadership among svcd instances on one PostgreSQL database (store/pg-cluster.ts, issue 14 item 4), against a real
 * cluster: one leader at a time, the epoch goes up at each change, a leader whose session ends (kill -9) frees the
 * lock at once, a hung leader is ended after the lease, a deposed leader's fenced write lands nothing, the start-up
 * lock lets one instance at a time through, and the RRDP files the leader stores are what the others read.
 */
import t from 'tap'
import { PgClusterStore, PgRrdpFiles } from '../../src/store/pg-cluster.js'
import { PgDb } from '../../src/store/pg-db.js'
import { PgSharedLocks } from '../../src/store/pg-locks.js'
import { PubdReader, SqlPublicationStore } from '../../src/store/pubd-store.js'
import { startPostgres } from '../helpers/postgres.js'
import { systemClock } from '../../src/clock.js'

const cluster = await startPostgres(t)
const uri = cluster.createDatabase('svc_cluster')
/** One instance: its stores' connection and its cluster store. */
function instance(name: string) {
  const db = PgDb.open(uri, name)
  const store = new PgClusterStore(uri, db, name)
  t.teardown(async () => {
    await store.close()
    db.close()
  })
  return { db, store }
}
const a = instance('a')
const b = instance('b')
const backendOf = (id: string) => cluster.psql('svc_cluster', `SELECT leader_pid FROM svc_cluster WHERE leader = '${id}'`).trim()

t.test('one leader at a time; the epoch goes up at each change', async (t) => {
  const e1 = await a.store.tryLead('a')
  t.equal(e1, 1, 'the first instance leads, epoch 1')
  t.equal(await b.store.tryLead('b'), undefined, 'the second does not')
  t.equal(await a.store.beat(1), true, 'the leader beats')
  t.equal(await b.store.beat(1), false, 'another instance cannot beat for it')
  t.equal(await b.store.endStaleLeader(60_000), false, 'a leader that beats is not ended')
  await a.store.report({ id: 'a', url: 'https://127.0.0.1:1/', role: 'leader', epoch: 1, started: new Date().toISOString(), session: 's', serial: 7 })
  await b.store.report({ id: 'b', url: 'https://127.0.0.1:2/', role: 'follower', epoch: 0, started: new Date().toISOString() })
  const v = await b.store.view()
  t.match(v.leader, { epoch: 1, leader: 'a' })
  t.same(v.instances.map((i) => [i.id, i.role, i.serial]), [['a', 'leader', 7], ['b', 'follower', undefined]])
  t.ok(v.instances.every((i) => Math.abs(v.now - i.heartbeat) < 10_000), "heartbeats by the database's clock")

  // The leader's session ends as if its process were killed: the lock is free at once.
  cluster.psql('svc_cluster', `SELECT pg_terminate_backend(${backendOf('a')})`)
  t.equal(await b.store.tryLead('b'), 2, 'the next instance leads at its next try, epoch 2')
  t.equal(await a.store.beat(1), false, 'the old leader learns it was deposed')
  t.equal(await a.store.tryLead('a'), undefined, 'and cannot lead while the new one does')
})

t.test('a deposed leader writes nothing: the fence fails inside its transaction', async (t) => {
  const write = (db: PgDb, store: PgClusterStore, epoch: number) =>
    db.transaction(() => {
      db.prepare('INSERT INTO properties (key, value) VALUES (?, ?)').run(`written-by-${epoch}`, 'x')
      store.fence(epoch)
    })
  t.throws(() => write(a.db, a.store, 1), /no longer the leader \(epoch 1; the database is at 2\)/)
  t.doesNotThrow(() => write(b.db, b.store, 2), 'the current leader writes')
  t.equal(cluster.psql('svc_cluster', "SELECT string_agg(key, ',') FROM properties WHERE key LIKE 'written-by-%'").trim(), 'written-by-2', "only the current leader's write landed")
})

t.test('a leader that stops beating is ended after the lease', async (t) => {
  // b leads (epoch 2) but stops beating; its heartbeat is made old.
  cluster.psql('svc_cluster', 'UPDATE svc_cluster SET heartbeat = heartbeat - 60000')
  t.equal(await a.store.endStaleLeader(30_000), true, 'another instance ends its session')
  let epoch: number | undefined
  for (let i = 0; i < 50 && epoch === undefined; i++) {
    epoch = await a.store.tryLead('a')
    if (epoch === undefined) await new Promise((r) => setTimeout(r, 100))
  }
  t.equal(epoch, 3, 'and leads, epoch 3')
  t.equal(await b.store.beat(2), false, 'the hung leader is deposed')
})

t.test('the start-up lock lets one instance through at a time', async (t) => {
  const order: string[] = []
  const releaseA = await a.store.startupLock()
  const bWaits = b.store.startupLock().then((release) => {
    order.push('b')
    return release
  })
  await new Promise((r) => setTimeout(r, 300))
  order.push('a')
  await releaseA()
  const releaseB = await bWaits
  await releaseB()
  t.same(order, ['a', 'b'], 'b got the lock only after a released it')
})

t.test('RRDP files: stored by the leader, read by the others, dropped when no longer named', async (t) => {
  const mine = new PgRrdpFiles(a.db)
  const theirs = new PgRrdpFiles(b.db)
  mine.put([{ path: 's/1/x/snapshot.xml', content: new Uint8Array([1, 2, 3]) }, { path: 's/2/y/delta.xml', content: new Uint8Array([4]) }])
  t.same([...(theirs.get('s/1/x/snapshot.xml') ?? [])], [1, 2, 3])
  mine.keepOnly(['s/2/y/delta.xml'])
  t.equal(theirs.get('s/1/x/snapshot.xml'), undefined, 'dropped')
  t.same([...(theirs.get('s/2/y/delta.xml') ?? [])], [4], 'kept')
})

t.test('a change that commits after the RRDP read stays for the next serial: seqs are not in commit order', async (t) => {
  // Two instances accept publishes at once: one takes a seq, the other a higher one and commits first. The leader's
  // read sees only the higher one; consuming "every seq up to the highest" would drop the lower one for good.
  const { default: pg } = await import('pg')
  const slow = new pg.Client({ connectionString: uri })
  await slow.connect()
  t.teardown(() => slow.end())
  const reader = PgDb.openSecondary(uri, 'reader')
  t.teardown(() => reader.close())
  await slow.query('BEGIN')
  const early = Number((await slow.query<{ seq: string }>("INSERT INTO pubd_changes (uri, previous) VALUES ('rsync://localhost/repo/x/early.cer', NULL) RETURNING seq")).rows[0]!.seq)
  b.db.prepare('INSERT INTO pubd_changes (uri, previous) VALUES (?, NULL)').run('rsync://localhost/repo/x/late.cer')
  const read = await new PubdReader(reader).read(async (v) => v.pending().seqs)
  t.ok(read.length === 1 && read[0]! > early, `the read sees the later seq ${read[0]} only, not ${early}, which has not committed`)
  new SqlPublicationStore(a.db).recordSerial({ session: 'S', serial: 1, snapshotPath: 'S/1/s.xml', snapshotHash: 'h', snapshotSize: 1, updated: new Date().toISOString() }, undefined, read, [])
  await slow.query('COMMIT')
  t.same(await new PubdReader(reader).read(async (v) => v.pending().seqs), [early], 'the change committed late is pending for the next serial')
})

t.test("a CA's lock among the instances: one holder at a time, other CAs free, re-entrant, freed with a dead session", async (t) => {
  const one = new PgSharedLocks(uri, 'one', systemClock)
  const two = new PgSharedLocks(uri, 'two', systemClock)
  t.teardown(async () => {
    await one.close()
    await two.close()
  })
  const settled = (p: Promise<void>) => Promise.race([p.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 300))])
  await one.acquire('alice')
  const waiting = two.acquire('alice')
  t.equal(await settled(waiting), false, "the second instance waits for alice's lock")
  t.equal(await settled(two.acquire('bob')), true, 'while another CA is free to it')
  await one.acquire('alice')
  await one.release('alice')
  t.equal(await settled(waiting), false, 'the lock is re-entrant in its session: one release of two leaves it held')
  await one.release('alice')
  t.equal(await settled(waiting), true, 'the last release hands it over')
  await t.rejects(one.acquire('alice', 200), /alice has been held by another instance for more than 0 s/, 'waiting is bounded: a lock held too long elsewhere is an error')
  await two.release('alice')
  await two.release('bob')

  // An instance that dies (its session ends) frees what it held.
  await one.acquire('carol')
  cluster.psql('svc_cluster', "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '' AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = hashtext('carol')::oid)")
  t.equal(await settled(two.acquire('carol')), true, "a dead holder's session gives the lock up at once")
  await two.release('carol')
  await one.acquire('dave')
  t.pass('the instance whose session ended takes locks again on a new connection')
  await one.release('dave')
})

/**
 * The metrics service (app/metrics/) over real SQLite stores in a temporary directory: every series it derives from
 * the stores, the in-memory child exchanges, the leadership value and the publish delay, with exact values, parsed
 * by a strict text-format parser; hideDetails leaves out every per-CA and per-publisher series; a failing store gives
 * svc_store_up 0. Also the scrape time of installs with 100 and 1,000 CAs (logged).
 */
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { ChildExchanges } from '../../../src/app/metrics/metrics-snapshot.js'
import { MetricsService } from '../../../src/app/metrics/metrics-service.js'
import { PublishLatency } from '../../../src/app/pubd/publish-latency.js'
import type { Leadership, Role } from '../../../src/app/shared/leadership.js'
import type { CaKeyObjects, StoredCaObject } from '../../../src/ca/object-model.js'
import { Db } from '../../../src/store/db.js'
import type { Stores } from '../../../src/store/interfaces.js'
import { createSqlStores } from '../../../src/store/sql-stores.js'
import { caState, command } from '../../contract/ca-store.contract.js'
import { tempDir } from '../../helpers/daemon.js'
import { parsePrometheusText, sampleValue, seriesNames } from '../../helpers/prometheus-text.js'

const NOW = new Date('2026-03-01T12:00:00.000Z')
const unix = (iso: string) => Date.parse(iso) / 1000
const dir = tempDir(t, 'svc-metrics-')
let n = 0

function openStores(t: Test): { stores: Stores; db: Db } {
  const db = Db.open(join(dir, `m-${++n}.db`))
  t.teardown(() => db.close())
  return { stores: createSqlStores(db), db }
}

function obj(name: string, kind: StoredCaObject['kind']): StoredCaObject {
  return { name, kind, der: new Uint8Array([1]), hash: `h-${name}`, notAfter: '2027-01-01T00:00:00Z', meta: { serial: '1' } }
}

function key(keyId: string, objects: StoredCaObject[]): CaKeyObjects {
  return { keyId, state: { className: '0', dir: 'rsync://x/repo/', revision: '1', thisUpdate: '2026-01-01T00:00:00Z', nextUpdate: '2026-01-02T00:00:00Z', revocations: [], roaMode: 'simple' }, objects }
}

function service(stores: Stores, db: Db, o: { hideDetails?: boolean; pubd?: boolean; leadership?: Leadership; children?: ChildExchanges } = {}): MetricsService {
  return new MetricsService({
    sources: { cas: stores.cas, objects: stores.objects, status: stores.status, tasks: stores.tasks, publication: o.pubd === false ? undefined : stores.publication, children: o.children ?? new ChildExchanges({ now: () => NOW.getTime() }) },
    leadership: o.leadership ?? { role: () => 'leader', epoch: () => 0, fence: () => undefined },
    keyPool: { stats: () => ({ size: 32, ready: 7 }) },
    storeAlive: () => db.version() > 0,
    version: '1.2.3',
    started: new Date('2026-03-01T11:00:00.000Z'),
    clock: { now: () => NOW.getTime() },
    hideDetails: o.hideDetails ?? false,
  })
}

/** Two CAs with objects, exchanges of each kind, tasks, two publishers and an RRDP serial. */
function populate(stores: Stores): void {
  stores.cas.create(command('ca1', '2026-01-01T00:00:00Z'), caState('ca1'))
  stores.cas.create(command('ca2', '2026-01-01T00:00:00Z'), caState('ca2'))
  stores.objects.save('ca1', [key('K1', [obj('K1.mft', 'mft'), obj('K1.crl', 'crl'), obj('a.roa', 'roa'), obj('b.roa', 'roa'), obj('AS1.asa', 'asa'), obj('R.cer', 'router')]), key('K2', [obj('c.roa', 'roa')])])
  stores.objects.save('ca2', [key('K3', [obj('K3.mft', 'mft'), obj('AS2.asa', 'asa')])])
  stores.status.record('ca1', 'parent', 'testbed', { time: '2026-03-01T10:00:00.000Z', uri: 'https://p/', result: 'success' })
  stores.status.record('ca2', 'parent', 'testbed', { time: '2026-03-01T09:00:00.000Z', uri: 'https://p/', result: 'success' })
  stores.status.record('ca2', 'parent', 'testbed', { time: '2026-03-01T11:00:00.000Z', uri: 'https://p/', result: 'failure', label: 'ca-parent-unreachable', msg: 'down' })
  stores.status.record('ca1', 'repo', 'repo', { time: '2026-03-01T11:30:00.000Z', uri: 'https://r/', result: 'success' })
  stores.status.record('ca2', 'repo', 'repo', { time: '2026-03-01T11:40:00.000Z', uri: 'https://r/', result: 'failure', msg: 'no' })
  stores.status.record('ca2', 'objects', 'objects', { time: '2026-03-01T11:41:00.000Z', uri: '', result: 'failure', msg: 'bad' })
  const at = NOW.getTime()
  stores.tasks.put({ key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: at + 3_600_000 })
  stores.tasks.put({ key: 'republish:ca2', kind: 'republish', ca: 'ca2', arg: '', due: at - 61_000 })
  stores.tasks.put({ key: 'sync-parent:ca2:testbed', kind: 'sync-parent', ca: 'ca2', arg: 'testbed', due: at - 30_000 })
  stores.publication.addPublisher({ handle: 'alice', idCert: new Uint8Array([1]), baseUri: 'rsync://x/repo/alice/', created: '2026-03-01T11:00:00.000Z' })
  stores.publication.addPublisher({ handle: 'bob', idCert: new Uint8Array([2]), baseUri: 'rsync://x/repo/bob/', created: '2026-03-01T08:00:00.000Z' })
  const bytes = (s: string) => new TextEncoder().encode(s)
  stores.publication.applyChanges('alice', [{ type: 'publish', uri: 'rsync://x/repo/alice/a.cer', content: bytes('12345'), hash: 'ha' }, { type: 'publish', uri: 'rsync://x/repo/alice/b.roa', content: bytes('123'), hash: 'hb' }], new Date('2026-03-01T11:59:00.000Z'))
  stores.publication.recordSerial({ session: 'S-1', serial: 7, snapshotPath: 'x', snapshotHash: 'y', snapshotSize: 9, updated: '2026-03-01T11:59:30.000Z' }, undefined, [], [])
}

t.test('every figure from the stores, exactly', async (t) => {
  const { stores, db } = openStores(t)
  populate(stores)
  const children = new ChildExchanges({ now: () => NOW.getTime() })
  /** The leadership as election sets it: a follower that saw epoch 3. */
  const seen: { role: Role; epoch: number } = { role: 'leader', epoch: 0 }
  const leadership: Leadership = { role: () => seen.role, epoch: () => seen.epoch, fence: () => undefined }
  const m = service(stores, db, { children, leadership })
  m.childExchanged('ca1', 'kid', true)
  m.childExchanged('ca1', 'kid', false)
  m.childExchanged('gone', 'kid', true)
  Object.assign(seen, { role: 'follower', epoch: 3 })
  const scrape = await m.scrape()
  t.equal(scrape.contentType, 'text/plain; version=0.0.4; charset=utf-8')
  const f = parsePrometheusText(scrape.body)
  const v = (name: string, labels: Record<string, string> = {}) => sampleValue(f, name, labels)
  t.equal(v('svc_server_start'), unix('2026-03-01T11:00:00Z'))
  t.same([v('svc_version_major'), v('svc_version_minor'), v('svc_version_patch')], [1, 2, 3])
  t.equal(v('svc_store_up'), 1)
  t.same([v('svc_instance_role', { role: 'leader' }), v('svc_instance_role', { role: 'follower' }), v('svc_leader_epoch')], [0, 1, 3], 'role and epoch as the leadership value says')
  t.same([v('svc_key_pool_ready'), v('svc_key_pool_size')], [7, 32])
  t.same([v('svc_scheduler_tasks', { kind: 'republish' }), v('svc_scheduler_tasks', { kind: 'sync-parent' }), v('svc_scheduler_tasks_overdue')], [2, 1, 1], 'tasks by kind; overdue only past the minute of grace')
  t.same([v('svc_cas'), v('svc_roas'), v('svc_aspas'), v('svc_router_certs'), v('svc_issues')], [2, 3, 2, 1, 3])
  t.same([v('svc_ca_roas', { ca: 'ca1' }), v('svc_ca_roas', { ca: 'ca2' }), v('svc_ca_aspas', { ca: 'ca2' }), v('svc_ca_router_certs', { ca: 'ca1' }), v('svc_ca_router_certs', { ca: 'ca2' })], [3, 0, 1, 1, 0])
  t.same([v('svc_ca_issues', { ca: 'ca1' }), v('svc_ca_issues', { ca: 'ca2' })], [0, 3], 'failing parent, repository and objects')
  t.same([v('svc_ca_parent_success', { ca: 'ca1', parent: 'testbed' }), v('svc_ca_parent_success', { ca: 'ca2', parent: 'testbed' })], [1, 0])
  t.same([v('svc_ca_parent_last_success_time', { ca: 'ca1', parent: 'testbed' }), v('svc_ca_parent_last_success_time', { ca: 'ca2', parent: 'testbed' })], [unix('2026-03-01T10:00:00Z'), unix('2026-03-01T09:00:00Z')], 'a failure keeps the time of the last success')
  t.same([v('svc_ca_ps_success', { ca: 'ca1' }), v('svc_ca_ps_success', { ca: 'ca2' }), v('svc_ca_ps_last_success_time', { ca: 'ca1' }), v('svc_ca_ps_last_success_time', { ca: 'ca2' })], [1, 0, unix('2026-03-01T11:30:00Z'), undefined])
  t.same([v('svc_parent_exchanges', { result: 'success' }), v('svc_parent_exchanges', { result: 'failure' }), v('svc_ps_exchanges', { result: 'failure' })], [1, 1, 1])
  t.same([v('svc_ca_child_success', { ca: 'ca1', child: 'kid' }), v('svc_ca_child_last_connection', { ca: 'ca1', child: 'kid' }), v('svc_ca_child_last_success', { ca: 'ca1', child: 'kid' })], [0, NOW.getTime() / 1000, NOW.getTime() / 1000])
  t.equal(v('svc_ca_child_success', { ca: 'gone', child: 'kid' }), undefined, 'exchanges of a CA that does not exist are dropped')
  t.same([v('svc_child_exchanges', { result: 'success' }), v('svc_child_exchanges', { result: 'failure' })], [0, 1])
  t.same([v('svc_repo_publisher'), v('svc_repo_rrdp_serial'), v('svc_repo_rrdp_last_update'), v('svc_repo_rrdp_session', { session: 'S-1' })], [2, 7, unix('2026-03-01T11:59:30Z'), 1])
  t.same([v('svc_repo_all_objects'), v('svc_repo_all_size')], [2, 8])
  t.same([v('svc_repo_objects', { publisher: 'alice' }), v('svc_repo_size', { publisher: 'alice' }), v('svc_repo_objects', { publisher: 'bob' }), v('svc_repo_size', { publisher: 'bob' })], [2, 8, 0, 0])
  t.same([v('svc_repo_last_update', { publisher: 'alice' }), v('svc_repo_last_update', { publisher: 'bob' })], [unix('2026-03-01T11:59:00Z'), undefined], 'no last update for a publisher that never published')
  t.same([v('svc_repo_staleness_seconds', { publisher: 'alice' }), v('svc_repo_staleness_seconds', { publisher: 'bob' })], [60, 4 * 3600], 'since the last publish, or since it was added')
  t.equal(f.get('svc_ca_roas')?.type, 'gauge')
  t.equal(f.get('svc_http_requests_total')?.type, 'counter')
})

t.test('HTTP requests by route pattern and the publish delay histogram', async (t) => {
  const { stores, db } = openStores(t)
  const m = service(stores, db)
  m.observeRequest('GET', '/api/v1/cas/:ca', 200, 0.003)
  m.observeRequest('GET', '/api/v1/cas/:ca', 200, 0.2)
  m.observeRequest('GET', 'unmatched', 401, 0.001)
  const latency = new PublishLatency((s) => m.observePublishDelay(s))
  const at = NOW.getTime()
  latency.acked(1, at)
  latency.acked(2, at + 100)
  latency.acked(3, at + 200) // committed after the serial's read: not in its notification
  latency.notified([1, 2], at + 400)
  t.equal(latency.waiting(), 1, 'the later acknowledgement waits for the next notification')
  const f = parsePrometheusText((await m.scrape()).body)
  const v = (name: string, labels: Record<string, string> = {}) => sampleValue(f, name, labels)
  t.equal(v('svc_http_requests_total', { method: 'GET', route: '/api/v1/cas/:ca', status: '200' }), 2)
  t.equal(v('svc_http_requests_total', { method: 'GET', route: 'unmatched', status: '401' }), 1)
  t.equal(v('svc_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/cas/:ca' }), 2)
  t.equal(v('svc_http_request_duration_seconds_bucket', { method: 'GET', route: '/api/v1/cas/:ca', le: '0.005' }), 1)
  t.equal(v('svc_repo_publish_delay_seconds_count'), 2, 'two acknowledgements reached a notification')
  t.equal(Math.round(v('svc_repo_publish_delay_seconds_sum')! * 1000), 700, '0.4 s and 0.3 s')
  t.equal(v('svc_repo_publish_delay_seconds_bucket', { le: '0.25' }), 0)
  t.equal(v('svc_repo_publish_delay_seconds_bucket', { le: '0.5' }), 2)
  t.equal(v('svc_cas'), 0, 'an empty install')
  t.equal(v('svc_repo_rrdp_serial'), 0, 'no RRDP session yet')
})

t.test('hideDetails: no series per CA or publisher, the totals stay', async (t) => {
  const { stores, db } = openStores(t)
  populate(stores)
  const full = seriesNames(parsePrometheusText((await service(stores, db).scrape()).body))
  const hidden = seriesNames(parsePrometheusText((await service(stores, db, { hideDetails: true }).scrape()).body))
  t.ok(full.some((s) => s.includes('ca="ca1"')) && full.some((s) => s.includes('publisher="alice"')), 'the full exposition has both')
  t.same(hidden.filter((s) => /[{,](ca|parent|child|publisher)="/.test(s)), [], 'no ca, parent, child or publisher label')
  t.same(full.filter((s) => !/[{,](ca|parent|child|publisher)="/.test(s)), hidden, 'everything else is the same')
  const noPubd = seriesNames(parsePrometheusText((await service(stores, db, { pubd: false }).scrape()).body))
  t.same(noPubd.filter((s) => s.startsWith('svc_repo_') && !s.startsWith('svc_repo_publish_delay')), [], 'without the embedded repository, no repository series')
})

t.test('a store that fails: svc_store_up 0 and no store figures, the scrape still answers', async (t) => {
  const { stores, db } = openStores(t)
  populate(stores)
  const m = service(stores, db)
  db.close()
  const f = parsePrometheusText((await m.scrape()).body)
  t.equal(sampleValue(f, 'svc_store_up'), 0)
  t.equal(sampleValue(f, 'svc_ca_roas', { ca: 'ca1' }), undefined)
  t.equal(sampleValue(f, 'svc_key_pool_ready'), 7, 'figures that need no store are there')
})

for (const cas of [100, 1000]) {
  t.test(`scrape time with ${cas} CAs (10 ROAs, a parent and a repository each) and as many publishers`, async (t) => {
    const { stores, db } = openStores(t)
    stores.transaction(() => {
      for (let i = 0; i < cas; i++) {
        const ca = `ca${i}`
        stores.cas.create(command(ca, '2026-01-01T00:00:00Z'), caState(ca))
        stores.objects.save(ca, [key(`K${i}`, [obj('m.mft', 'mft'), obj('c.crl', 'crl'), ...Array.from({ length: 10 }, (_, r) => obj(`${r}.roa`, 'roa'))])])
        stores.status.record(ca, 'parent', 'testbed', { time: '2026-03-01T10:00:00.000Z', uri: 'https://p/', result: 'success' })
        stores.status.record(ca, 'repo', 'repo', { time: '2026-03-01T10:00:00.000Z', uri: 'https://r/', result: i % 10 ? 'success' : 'failure' })
        stores.publication.addPublisher({ handle: ca, idCert: new Uint8Array([1]), baseUri: `rsync://x/repo/${ca}/`, created: '2026-03-01T08:00:00.000Z' })
        stores.publication.applyChanges(ca, Array.from({ length: 12 }, (_, o) => ({ type: 'publish' as const, uri: `rsync://x/repo/${ca}/${o}.roa`, content: new Uint8Array(1000), hash: `${ca}-${o}` })), NOW)
      }
      stores.publication.recordSerial({ session: 'S', serial: 1, snapshotPath: 'x', snapshotHash: 'y', snapshotSize: 1, updated: NOW.toISOString() }, undefined, [], [])
    })
    for (const hideDetails of [false, true]) {
      const m = service(stores, db, { hideDetails })
      await m.scrape() // the first one prepares the statements
      const runs = 10
      const start = process.hrtime.bigint()
      let body = ''
      for (let i = 0; i < runs; i++) body = (await m.scrape()).body
      const ms = Number(process.hrtime.bigint() - start) / 1e6 / runs
      const f = parsePrometheusText(body)
      t.equal(sampleValue(f, 'svc_roas'), cas * 10)
      t.equal(sampleValue(f, 'svc_issues'), cas / 10)
      t.equal(sampleValue(f, 'svc_repo_all_objects'), cas * 12)
      t.equal(sampleValue(f, 'svc_ca_roas', { ca: 'ca7' }), hideDetails ? undefined : 10)
      t.comment(`metrics scrape with ${cas} CAs and ${cas} publishers${hideDetails ? ', details hidden' : ''}: ${ms.toFixed(2)} ms (mean of ${runs}), ${body.length} bytes, ${seriesNames(f).length} series`)
      t.ok(ms < 5000, `a scrape takes seconds at most (${ms.toFixed(2)} ms)`)
    }
  })
}

t.test('the alarms and the liveness state read at scrape time: a failing store leaves their series out, the scrape answers', async (t) => {
  const db = Db.open(join(tempDir(t), 'svcd.db'))
  t.teardown(() => db.close())
  const stores = createSqlStores(db)
  stores.alerts.saveAlarm({ key: 'publish-stalled:alice', kind: 'publish-stalled', subject: 'alice', source: 'publication', reason: 'waiting', raisedAt: NOW.getTime() })
  let failing = false
  const m = new MetricsService({
    sources: { cas: stores.cas, objects: stores.objects, status: stores.status, tasks: stores.tasks, publication: undefined, children: new ChildExchanges({ now: () => NOW.getTime() }) },
    leadership: { role: () => 'leader', epoch: () => 0, fence: () => undefined }, keyPool: { stats: () => ({ size: 0, ready: 0 }) },
    storeAlive: () => !failing, version: '1.2.3', started: NOW, clock: { now: () => NOW.getTime() }, hideDetails: false,
    alarms: () => {
      if (failing) throw new Error('SQLITE_IOERR: disk I/O error')
      return stores.alerts.active()
    },
    liveness: () => {
      if (failing) throw new Error('SQLITE_IOERR: disk I/O error')
      return []
    },
  })
  const before = parsePrometheusText((await m.scrape()).body)
  t.equal(sampleValue(before, 'svc_alarm_active', { kind: 'publish-stalled', subject: 'alice' }), 1)
  failing = true
  const during = parsePrometheusText((await m.scrape()).body)
  t.same([sampleValue(during, 'svc_store_up'), sampleValue(during, 'svc_alarm_active', { kind: 'publish-stalled', subject: 'alice' })], [0, undefined], 'answered, without the alarm series')
  t.equal(sampleValue(during, 'svc_cas_nonfunctional'), 0, 'the liveness gauges answer empty')
})

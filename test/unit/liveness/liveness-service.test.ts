/**
 * The liveness service (src/app/liveness/liveness-service.ts) over a real SQLite store and the real point checks, with
 * a fake clock and a fetcher that serves the sample repository (test/helpers/sample-repo.ts) from memory, so that a
 * test can take a file away or make a transport unreachable:
 *
 *   ta (repo/ta/, parent of kid) ── kid (repo/ca/: publishes "elsewhere", seen through the SIA of its certificate)
 *   ca (repo/ca/) and ca2 (the same point, to show that a repository is fetched once per check per transport)
 */
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LivenessService, type LivenessServiceDeps, type Sources } from '../../../src/app/liveness/liveness-service.js'
import type { AlarmSink, RepositoryFetcher } from '../../../src/app/liveness/ports.js'
import type { CaKeySummary } from '../../../src/ca/object-model.js'
import type { CaState } from '../../../src/ca/state.js'
import { sha256Hex } from '../../../src/crypto/digest.js'
import type { Condition, FetchedRepository, Transport } from '../../../src/liveness/model.js'
import { silentLogger, type Logger } from '../../../src/log.js'
import { Db } from '../../../src/store/db.js'
import { SqlLivenessStore } from '../../../src/store/liveness-store.js'
import { certFileName } from '../../../src/objects/naming.js'
import { toBase64 } from '../../../src/util/base64.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { FakeClock } from '../../helpers/fake-clock.js'
import { sampleRepository } from '../../helpers/sample-repo.js'

const BASE = 'rsync://rpki.example.net/rpki/'
const NOTIFY = 'https://rpki.example.net/rrdp/notification.xml'
const START = Date.parse('2026-01-01T12:00:00Z')
const HOUR = 3600_000
const ta = testKey('rpki-ta')
const ca = testKey('rpki-ca')
const TA_DIR = `${BASE}repo/ta/`
const CA_DIR = `${BASE}repo/ca/`

const repo = sampleRepository({ rsyncBase: BASE, notifyUri: NOTIFY, from: new Date('2026-01-01T00:00:00Z'), until: new Date('2036-01-01T00:00:00Z'), nextUpdate: new Date('2026-01-02T00:00:00Z') })
const FILES = new Map([...repo.files].map(([p, b]) => [BASE + p, b]))
const TA_CERT = FILES.get(`${BASE}ta/ta.cer`)!
const CA_CERT = FILES.get(`${TA_DIR}${certFileName(ca.ski)}`)!

/** A CA in `dir` (class `name` under repo/) whose current key is `keyId` with certificate `der`. */
function caState(handle: string, name: string, keyId: string, der: Uint8Array, children: CaState['children'] = {}): CaState {
  return {
    handle, idKey: '', idCert: '', parents: {}, nextClass: 1, routes: {}, children,
    repo: { embedded: true, publisherHandle: handle, serviceUri: 'https://localhost/rfc8181/', siaBase: `${BASE}repo/`, rrdpNotificationUri: NOTIFY, serverIdCert: '' },
    classes: { [name]: { name, parent: 'p', parentClass: '0', entitled: { asn: '', ipv4: '', ipv6: '' }, notAfter: '2036-01-01T00:00:00Z', current: { keyId, cert: { der: toBase64(der), uri: '', resources: { asn: '', ipv4: '', ipv6: '' }, notBefore: '2026-01-01T00:00:00Z', notAfter: '2036-01-01T00:00:00Z' } } } },
  }
}

function summary(keyId: string, dir: string): CaKeySummary[] {
  const objects = [...FILES].filter(([u]) => u.startsWith(dir) && !u.slice(dir.length).includes('/')).map(([u, b]) => ({ name: u.slice(dir.length), kind: 'roa' as const, hash: sha256Hex(b), notAfter: '2036-01-01T00:00:00Z', meta: { serial: '1' } }))
  return [{ keyId, state: { className: 'x', dir, revision: '1', thisUpdate: '', nextUpdate: '', revocations: [], roaMode: 'simple' }, objects }]
}

/** Serves FILES from memory over each transport (rsync: below the source); `down` transports answer an error. */
class MemoryFetcher implements RepositoryFetcher {
  readonly calls: string[] = []
  readonly down = new Set<Transport>()
  readonly gone = new Map<Transport, Set<string>>([['rrdp', new Set()], ['rsync', new Set()]])
  /** Each fetch takes this long on the fake clock. */
  slowMs = 0
  constructor(private readonly clock: FakeClock) {}
  async fetch(transport: Transport, source: string): Promise<FetchedRepository> {
    this.calls.push(`${transport} ${source}`)
    if (this.slowMs) await this.clock.advance(this.slowMs)
    const at = this.clock.now()
    if (this.down.has(transport)) return { transport, source, at, error: 'unreachable: connection refused', files: new Map() }
    const files = new Map([...FILES].filter(([u]) => (transport === 'rrdp' || u.startsWith(source)) && !this.gone.get(transport)!.has(u)))
    return { transport, source, at, files }
  }
  retained: Record<'rrdp' | 'rsync', string[]>[] = []
  retain(sources: Record<'rrdp' | 'rsync', ReadonlySet<string>>): void {
    this.retained.push({ rrdp: [...sources.rrdp].sort(), rsync: [...sources.rsync].sort() })
  }
}

class RecordingSink implements AlarmSink {
  last: readonly Condition[] = []
  reports = 0
  report(source: string, conditions: readonly Condition[]): void {
    if (source !== 'liveness') throw new Error(source)
    this.last = conditions
    this.reports++
  }
}

function setup(t: Test, states: CaState[], o: { leading?: () => boolean; dbFile?: string; log?: Logger } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'liveness-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const db = Db.open(o.dbFile ?? join(dir, 'svcd.db'))
  t.teardown(() => db.close())
  const clock = new FakeClock(START)
  const fetcher = new MemoryFetcher(clock)
  const alarms = new RecordingSink()
  const byHandle = new Map(states.map((s) => [s.handle, s]))
  const deps: LivenessServiceDeps = {
    cas: { handles: () => [...byHandle.keys()], load: (h) => (byHandle.has(h) ? { state: byHandle.get(h)! } : undefined) },
    objects: { summaries: (h) => (h === 'ta' ? summary(ta.keyId, TA_DIR) : summary(ca.keyId, CA_DIR)) },
    store: new SqlLivenessStore(db), fetcher, alarms, leading: o.leading ?? (() => true), clock, log: o.log ?? silentLogger(),
    sources: (): Sources => ({ rrdp: NOTIFY, rsync: BASE }),
    childSources: (p): Sources => ({ rrdp: p.rrdpNotificationUri, rsync: p.dir }),
    config: { checkMs: 600_000, afterPublishMs: 45_000, children: true, rules: { expiryMarginMs: 4 * HOUR, disagreementMs: 120_000, childRevokeMs: 90 * 24 * HOUR } },
  }
  const service = new LivenessService(deps)
  t.teardown(() => service.stop())
  return { service, clock, fetcher, alarms, deps, db, dir }
}

t.test('every CA functional: each repository fetched once per transport, stored, nothing reported', async (t) => {
  const { service, fetcher, alarms, deps } = setup(t, [caState('ca', 'ca', ca.keyId, CA_CERT), caState('ca2', 'ca', ca.keyId, CA_CERT)])
  t.equal(service.get('ca')?.checkedAt, undefined, 'not checked yet')
  t.equal(service.get('nope'), undefined, 'unknown CA')
  await service.checkNow()
  t.same(fetcher.calls.sort(), [`rrdp ${NOTIFY}`, `rsync ${BASE}`], 'two CAs in one repository: one fetch per transport')
  t.same(fetcher.retained, [{ rrdp: [NOTIFY], rsync: [BASE] }], 'what is kept of repositories: the ones checked now')
  const l = service.get('ca')!
  t.equal(l.checkedAt, START)
  t.ok(l.functional, 'functional')
  t.same(l.points.map((p) => [p.dir, p.functional, p.findings]), [[CA_DIR, true, []]])
  t.equal(l.points[0]!.manifestExpires, Date.parse('2026-01-02T00:00:00Z'))
  t.equal(l.points[0]!.rsyncLagMs, 0)
  t.same(l.lastGoodFetch, { rrdp: START, rsync: START })
  t.same(alarms.last, [], 'nothing holds')
  t.equal(deps.store.all().length, 2, 'stored')
})

t.test('a file missing over rsync, then rsync unreachable: findings and conditions; healed: cleared', async (t) => {
  const { service, fetcher, alarms, clock } = setup(t, [caState('ca', 'ca', ca.keyId, CA_CERT)])
  const roa = [...FILES.keys()].find((u) => u.startsWith(CA_DIR) && u.endsWith('.roa'))!
  fetcher.gone.get('rsync')!.add(roa)
  await service.checkNow()
  const l = service.get('ca')!
  t.ok(l.points[0]!.findings.some((f) => f.kind === 'missing' && f.transport === 'rsync' && f.uri === roa), 'missing over rsync')
  t.ok(l.functional, 'RRDP still serves a valid manifest and CRL')
  t.same(alarms.last, [], 'one check is not yet an alarm (it may have raced a publication)')
  await service.checkNow()
  t.match(alarms.last, [{ kind: 'repository-check-failed', ca: 'ca', subject: 'ca', reason: new RegExp(`^rsync: `) }], 'the next check confirms it')
  fetcher.gone.get('rsync')!.clear()
  fetcher.down.add('rsync')
  await clock.advance(600_000)
  await service.checkNow()
  t.match(alarms.last, [{ kind: 'repository-check-failed', reason: 'rsync: unreachable: connection refused' }])
  t.same(service.get('ca')!.lastGoodFetch, { rrdp: START + 600_000, rsync: START }, 'the last good rsync fetch stays')
  fetcher.down.clear()
  await service.checkNow()
  t.same(alarms.last, [], 'cleared')
})

t.test('the schedule: every check_seconds, one check after a burst of publications, nothing after stop', async (t) => {
  const { service, fetcher, clock } = setup(t, [caState('ca', 'ca', ca.keyId, CA_CERT)])
  service.start()
  const checks = () => fetcher.calls.filter((c) => c.startsWith('rrdp')).length
  await clock.advance(44_000)
  t.equal(checks(), 0, 'the first check comes after_publish_seconds after start')
  await clock.advance(1_000)
  t.equal(checks(), 1)
  service.published()
  service.published()
  await clock.advance(10_000)
  service.published()
  await clock.advance(35_000)
  t.equal(checks(), 2, 'a burst of publications: one check after_publish_seconds after the first')
  await clock.advance(600_000 - 90_000)
  t.equal(checks(), 3, 'every check_seconds')
  await service.stop()
  service.published()
  await clock.advance(3 * 600_000)
  t.equal(checks(), 3, 'stopped')
})

t.test('after a long check, the check a publication asks for waits 19 times as long (checks take at most 5 % of the time)', async (t) => {
  const { service, fetcher, clock } = setup(t, [caState('ca', 'ca', ca.keyId, CA_CERT)])
  service.start()
  const checks = () => fetcher.calls.filter((c) => c.startsWith('rrdp')).length
  await clock.advance(45_000)
  t.equal(checks(), 1, 'the first check, quick')
  fetcher.slowMs = 10_000
  await service.checkNow()
  t.equal(checks(), 2, 'a check that took 10 to 20 s')
  fetcher.slowMs = 0
  service.published()
  await clock.advance(46_000)
  t.equal(checks(), 2, 'not after_publish_seconds after the publication')
  await clock.advance(19 * 20_000)
  t.equal(checks(), 3, 'but within 19 times the last check')
})

t.test('only the leader checks; a follower and a restart show what was stored', async (t) => {
  let leading = false
  const { service, fetcher, dir, alarms } = setup(t, [caState('ca', 'ca', ca.keyId, CA_CERT)], { leading: () => leading })
  await service.checkNow()
  t.same(fetcher.calls, [], 'a follower fetches nothing')
  t.equal(alarms.reports, 0, 'and reports nothing')
  leading = true
  await service.checkNow()
  t.ok(service.get('ca')!.functional)
  // Another instance on the same database (a follower, or this one restarted) shows the stored state.
  const other = setup(t, [caState('ca', 'ca', ca.keyId, CA_CERT)], { leading: () => false, dbFile: join(dir, 'svcd.db') })
  t.equal(other.service.get('ca')?.checkedAt, START, 'the leader\'s check, read from the store')
  t.same(other.fetcher.calls, [])
})

t.test('a delegated child publishing elsewhere: non-functional since kept across checks and a restart, revokeAt, back', async (t) => {
  const kid = { handle: 'kid', idCert: '', resources: { asn: '', ipv4: '', ipv6: '' }, issued: { [ca.keyId]: { keyId: ca.keyId, className: 'ta', der: toBase64(CA_CERT), uri: '', serial: '2', notAfter: '2036-01-01T00:00:00Z', resources: { asn: '', ipv4: '', ipv6: '' }, signedBy: ta.keyId } } }
  const states = [caState('ta', 'ta', ta.keyId, TA_CERT, { kid })]
  const { service, fetcher, alarms, clock, dir } = setup(t, states)
  await service.checkNow()
  t.same(service.get('ta')!.children.map((c) => [c.child, c.point.dir, c.point.functional]), [['kid', CA_DIR, true]], 'seen through its SIA, functional')
  t.ok(fetcher.calls.includes(`rsync ${CA_DIR}`), 'its caRepository fetched over rsync')
  fetcher.down.add('rrdp')
  fetcher.down.add('rsync')
  await clock.advance(600_000)
  await service.checkNow()
  const since = clock.now()
  const c = service.get('ta')!.children[0]!
  t.equal(c.nonFunctionalSince, since)
  t.equal(c.revokeAt, since + 90 * 24 * HOUR)
  t.notOk(alarms.last.some((x) => x.kind === 'child-nonfunctional'), 'not yet: one check')
  await clock.advance(1_000)
  await service.checkNow()
  t.match(alarms.last.find((x) => x.kind === 'child-nonfunctional'), { subject: 'ta/kid', ca: 'ta', reason: /unreachable.*90-day policy would revoke it at/ })
  await service.stop()
  // A restart: a new service over the same database keeps the outage's start.
  const again = setup(t, states, { dbFile: join(dir, 'svcd.db') })
  again.fetcher.down.add('rrdp')
  again.fetcher.down.add('rsync')
  await again.clock.advance(2 * 600_000)
  await again.service.checkNow()
  t.equal(again.service.get('ta')!.children[0]!.nonFunctionalSince, since, 'kept across the restart')
  again.fetcher.down.clear()
  await again.service.checkNow()
  const back = again.service.get('ta')!.children[0]!
  t.ok(back.point.functional)
  t.equal(back.nonFunctionalSince, undefined)
  t.notOk(again.alarms.last.some((x) => x.kind === 'child-nonfunctional'), 'cleared')
})

t.test('a check that fails is counted and logged, never thrown out of the timer', async (t) => {
  const lines: string[] = []
  const log = { ...silentLogger(), warn: (msg: string) => void lines.push(msg) } as Logger
  const { service, deps, clock } = setup(t, [caState('ca', 'ca', ca.keyId, CA_CERT)], { log })
  deps.objects.summaries = () => {
    throw new Error('the store is gone')
  }
  service.start()
  await clock.advance(45_000)
  t.same(service.stats().checks, { ok: 0, failed: 1 })
  t.same(lines, ['liveness check failed'])
})

t.test('a check that found something wrong is followed by another after_publish_seconds later; a clean one is not', async (t) => {
  const { service, fetcher, clock } = setup(t, [caState('ca', 'ca', ca.keyId, CA_CERT)])
  const checks = () => fetcher.calls.filter((c) => c.startsWith('rrdp')).length
  fetcher.down.add('rsync')
  service.start()
  await clock.advance(45_000)
  t.equal(checks(), 1, 'the first check: rsync unreachable')
  await clock.advance(45_000)
  t.equal(checks(), 2, 'looked at again after_publish_seconds later')
  fetcher.down.clear()
  await clock.advance(45_000)
  t.equal(checks(), 3, 'and again: now clean')
  await clock.advance(45_000)
  t.equal(checks(), 3, 'clean: the next check is at check_seconds')
})

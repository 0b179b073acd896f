/**
 * The publication server's two services (app/pubd/publisher-service.ts and output-service.ts) alone, with fakes for
 * exactly their collaborators: a store in memory, RRDP and rsync outputs and an rsyncd that record their calls, a
 * codec with only an identity certificate, a fixed time and a fake clock. Checks the JSON API methods the /api/v1/pubd
 * routes call, and how the output service drives its outputs: start, a publish kicking RRDP then rsync, stop, and a
 * follower's poll copying the leader's serials.
 */
import t from 'tap'
import type { MessageCodec } from '../../../src/app/pubd/message-codec.js'
import type { RrdpOutput, RsyncOutput, RsyncServer } from '../../../src/app/pubd/outputs.js'
import { OutputService } from '../../../src/app/pubd/output-service.js'
import { PublisherService } from '../../../src/app/pubd/publisher-service.js'
import { systemClock } from '../../../src/clock.js'
import { AppError } from '../../../src/errors.js'
import { silentLogger } from '../../../src/log.js'
import { createIdCert } from '../../../src/protocol/id-cert.js'
import { encodePublisherRequest } from '../../../src/protocol/idexchange.js'
import type { ContentChange } from '../../../src/pubd/content.js'
import type { Publisher } from '../../../src/pubd/publishers.js'
import type { QuotaSettings } from '../../../src/pubd/quota.js'
import type { PublicationStore } from '../../../src/store/interfaces.js'
import { toBase64 } from '../../../src/util/base64.js'
import type { Clock } from '../../../src/util/clock.js'
import { FakeClock } from '../../helpers/fake-clock.js'
import { testKey } from '../../helpers/keys.js'

const T = new Date('2026-05-01T12:00:00Z')
const idCert = createIdCert(testKey(), T)
const ourCert = createIdCert(testKey(), T)

/** The store methods the service uses, over two maps. */
function memoryStore(): PublicationStore {
  const publishers = new Map<string, Publisher>()
  const objects = new Map<string, Map<string, { hash: string; content: Uint8Array }>>()
  const held = (p: string) => objects.get(p) ?? new Map()
  let seq = 0
  const usage = (hs: string[]) => ({ objects: hs.reduce((n, h) => n + held(h).size, 0), bytes: hs.reduce((n, h) => n + [...held(h).values()].reduce((m, o) => m + o.content.length, 0), 0) })
  const store: Partial<PublicationStore> = {
    publishers: () => [...publishers.values()],
    publisher: (h) => publishers.get(h),
    addPublisher: (p) => void publishers.set(p.handle, p),
    removePublisher: (h) => (publishers.delete(h), held(h).size),
    objectHash: (p, uri) => held(p).get(uri)?.hash,
    objectsUnder: (p, dir) => [...held(p).keys()].filter((u) => u.startsWith(dir)),
    listObjects: (p) => [...held(p)].map(([uri, o]) => ({ uri, hash: o.hash, size: o.content.length })),
    objectsWithContent: (p) => [...held(p)].map(([uri, o]) => ({ uri, hash: o.hash, size: o.content.length, content: o.content })),
    applyChanges: (p: string, changes: readonly ContentChange[], now: Date) => {
      const m = held(p)
      for (const c of changes) c.type === 'publish' ? m.set(c.uri, { hash: c.hash, content: c.content }) : m.delete(c.uri)
      objects.set(p, m)
      publishers.get(p)!.lastPublish = now.toISOString()
      return changes.length ? ++seq : undefined
    },
    objectSize: (p, uri) => held(p).get(uri)?.content.length,
    quotaUsage: (p) => ({ publisher: usage([p]), selfService: usage([...publishers.values()].filter((x) => x.selfService).map((x) => x.handle)) }),
    totalUsage: () => usage([...publishers.keys()]),
    rrdpState: () => ({ session: '2f0e7a2c-0000-4000-8000-000000000001', serial: 1, snapshotPath: '', snapshotHash: '', snapshotSize: 0, updated: T.toISOString() }),
  }
  return store as PublicationStore
}

/** Outputs and rsyncd that record what the service asked of them. */
function outputs() {
  const calls: string[] = []
  let serial = 0
  const rrdp: RrdpOutput = {
    init: async () => void calls.push('rrdp.init'),
    cycle: async () => (calls.push('rrdp.cycle'), { serial: ++serial, elements: 1, snapshotBytes: 10, incremental: true, consumed: [serial] }),
    resetSession: async () => (calls.push('rrdp.resetSession'), []),
    notificationUri: () => 'https://localhost/rrdp/notification.xml',
    mirror: async () => (calls.push('rrdp.mirror'), false),
    served: () => ({ session: '2f0e7a2c-0000-4000-8000-000000000001', serial }),
    settled: async () => undefined,
    file: () => undefined,
  }
  const rsync: RsyncOutput = {
    init: () => void calls.push('rsync.init'),
    cycle: async () => (calls.push('rsync.cycle'), { files: 1, written: 1, linked: 0, failed: [] }),
    save: () => void calls.push('rsync.save'),
    currentTree: () => '/data/repo/rsync/trees/t1',
    holds: () => false,
  }
  const daemon: RsyncServer = { start: (path) => (calls.push(`daemon.start ${path}`), true), stop: async () => void calls.push('daemon.stop') }
  return { calls, rrdp, rsync, daemon }
}

/** The label of the AppError `f` throws, or undefined when it returns. */
function labelOf(f: () => unknown): string | undefined {
  try {
    f()
  } catch (e) {
    return e instanceof AppError ? e.label : String(e)
  }
  return undefined
}

interface Build {
  now?: () => Date
  quotas?: QuotaSettings
  store?: PublicationStore
  o?: ReturnType<typeof outputs>
  clock?: Clock
  cluster?: { leading: () => boolean; pollMs: number }
  outputLagMaxSeconds?: number
  /** Told after each RRDP serial (the liveness check after a publication). */
  written?: () => void
}

/** Both services over one store, as composePublication wires them: the publisher side tells the output side. */
function build(b: Build = {}) {
  const o = b.o ?? outputs()
  const store = b.store ?? memoryStore()
  const now = b.now ?? (() => T)
  const log = silentLogger()
  const config = { rrdpIntervalSeconds: 0, ...(b.outputLagMaxSeconds ? { outputLagMaxSeconds: b.outputLagMaxSeconds } : {}) }
  const out = new OutputService({ store, rrdp: o.rrdp, rsync: o.rsync, daemon: o.daemon, clock: b.clock ?? systemClock, now, log, config, ...(b.cluster ? { cluster: b.cluster } : {}), ...(b.written ? { written: b.written } : {}) })
  const codec = { idCert: ourCert } as MessageCodec
  const pubConfig = { serviceUri: 'https://localhost/', rsyncBaseUri: 'rsync://localhost/repo/', rrdpBaseUri: 'https://localhost/rrdp/', ...(b.quotas ? { quotas: b.quotas } : {}) }
  const pub = new PublisherService({ store, output: out, codec, now, log, config: pubConfig })
  return { pub, out, calls: o.calls }
}

function service(now = () => T, quotas?: QuotaSettings) {
  return build({ now, ...(quotas ? { quotas } : {}) })
}

t.test('the JSON API: add, list, show, response, stale, remove', async (t) => {
  let now = T
  const { pub } = service(() => now)
  const response = pub.pubdPublisherAdd({ xml: encodePublisherRequest({ publisherHandle: 'alice', idCert }) })
  t.same(response, {
    publisher_handle: 'alice',
    id_cert: toBase64(ourCert),
    service_uri: 'https://localhost/rfc8181/alice/',
    repo_info: { sia_base: 'rsync://localhost/repo/alice/', rrdp_notification_uri: 'https://localhost/rrdp/notification.xml' },
    tag: null,
  }, 'an RFC 8183 repository response for the new publisher')
  t.same(pub.pubdPublisherResponse('alice'), response, 'and the same again later')
  t.match(pub.pubdPublisherResponseXml('alice'), /<repository_response [^>]*publisher_handle="alice"/, 'also as XML')
  t.equal(labelOf(() => pub.pubdPublisherAdd({ xml: encodePublisherRequest({ publisherHandle: 'alice', idCert }) })), 'pub-duplicate')
  t.equal(labelOf(() => pub.pubdPublisherAdd({ xml: '<not-a-request/>' })), 'pub-request-invalid-xml')
  t.same(pub.pubdPublishers(), { publishers: [{ handle: 'alice' }] })

  t.equal(pub.publish('alice', { type: 'delta', pdus: [{ type: 'publish', uri: 'rsync://localhost/repo/alice/a.roa', content: new Uint8Array([1]) }] }).type, 'success')
  const shown = pub.pubdPublisherShow('alice')
  t.same(shown.current_files, [{ uri: 'rsync://localhost/repo/alice/a.roa', base64: 'AQ==' }], 'show lists the current files')
  t.equal(shown.base_uri, 'rsync://localhost/repo/alice/')

  now = new Date(T.getTime() + 3600_000)
  t.same(pub.pubdStale(3599), { publishers: [{ handle: 'alice' }] }, 'stale: nothing published for an hour')
  t.same(pub.pubdStale(3600), { publishers: [] }, 'not stale within the hour')

  t.equal(labelOf(() => pub.pubdPublisherShow('bob')), 'pub-unknown')
  t.equal(labelOf(() => pub.pubdPublisherShow('a/b')), 'api-invalid-path-handle')
  pub.pubdPublisherRemove('alice')
  t.same(pub.pubdPublishers(), { publishers: [] }, 'removed')
  t.equal(labelOf(() => pub.pubdPublisherRemove('alice')), 'pub-unknown')
})

t.test('start, a publish that reaches RRDP then rsync, session reset, stop', async (t) => {
  let written = 0
  const { pub, out, calls } = build({ written: () => written++ })
  await out.start()
  await out.flushed()
  t.same(calls.slice(0, 3), ['rrdp.init', 'rsync.init', 'daemon.start /data/repo/rsync/trees/t1'], 'outputs brought in line, rsyncd serves the current tree')
  pub.publisherAdd({ publisherHandle: 'alice', idCert })
  calls.length = 0
  const reply = pub.publish('alice', { type: 'delta', pdus: [{ type: 'publish', uri: 'rsync://localhost/repo/alice/a.roa', content: new Uint8Array([1]) }] })
  t.same(reply, { type: 'success' })
  await out.flushed()
  t.same(calls, ['rrdp.cycle', 'rsync.cycle'], 'an RRDP serial, then the rsync tree')
  t.equal(written, 2, 'each serial written is told (the liveness check after a publication): the one at start, the publish')
  const refused = pub.publish('alice', { type: 'delta', pdus: [{ type: 'publish', uri: 'rsync://localhost/repo/bob/a.roa', content: new Uint8Array([1]) }] })
  t.match(refused, { type: 'error_reply', errors: [{ code: 'permission_failure' }] }, 'outside the jail: permission_failure, by the table')
  await out.pubdSessionReset()
  t.equal(calls.at(-1), 'rrdp.resetSession')
  t.same(out.outputProblems(), [], 'no output problem')
  calls.length = 0
  await out.stop()
  t.same(calls, ['rsync.save', 'daemon.stop'], 'stop saves the tree listing and stops rsyncd')
})

t.test('an acknowledged change missing from RRDP or the rsync tree after the bound is a problem until it is there (issue 22, defect 2)', async (t) => {
  let now = T.getTime()
  const o = outputs()
  const gates = { rrdp: Promise.resolve(), rsync: Promise.resolve() }
  let open = { rrdp: () => undefined as void, rsync: () => undefined as void }
  const close = (output: 'rrdp' | 'rsync') => (gates[output] = new Promise<void>((r) => (open = { ...open, [output]: r })))
  const store = memoryStore()
  let pending: number[] = []
  const applied = store.applyChanges.bind(store)
  store.applyChanges = (p, changes, at, replay) => {
    const seq = applied(p, changes, at, replay)
    if (seq !== undefined) pending.push(seq)
    return seq
  }
  o.rrdp.cycle = async () => {
    const consumed = pending
    pending = []
    await gates.rrdp
    return { serial: 2, elements: 1, snapshotBytes: 10, incremental: true, consumed }
  }
  let trees = 0
  let treesBegun = 0
  o.rsync.cycle = async () => {
    treesBegun++
    await gates.rsync
    trees++
    return { files: 1, written: 1, linked: 0, failed: [] }
  }
  const { pub, out } = build({ o, store, now: () => new Date(now), outputLagMaxSeconds: 60 })
  await out.start()
  await out.flushed()
  pub.publisherAdd({ publisherHandle: 'alice', idCert })
  const roa = (n: number) => ({ type: 'delta' as const, pdus: [{ type: 'publish' as const, uri: `rsync://localhost/repo/alice/${n}.roa`, content: new Uint8Array([n]) }] })
  const labels = () => out.outputProblems().map((p) => p.label)
  const until = async (what: string, ok: () => boolean) => {
    const end = Date.now() + 10_000
    while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
    t.ok(ok(), what)
  }

  close('rsync') // the rsync tree takes long (a tree of a large repository on a loaded machine)
  const acked = new Date(now).toISOString()
  const built = trees
  t.same(pub.publish('alice', roa(1)), { type: 'success' })
  await until('the RRDP serial is written, the rsync tree is being built', () => pending.length === 0 && treesBegun === built + 1)
  now += 59_000
  t.same(labels(), [], 'within the bound: no problem')
  now += 2_000
  const [lag] = out.outputProblems(true)
  t.match(lag, { label: 'sys-rsync-lag', args: { accepted: acked, bound: '60' } }, 'past the bound: the rsync tree lags, with when the missing change was accepted')
  t.match(lag!.msg, /does not hold a change accepted at .*, more than 60 s ago/)
  open.rsync()
  await until('the tree is built', () => trees === built + 1)
  await out.flushed()
  t.same(labels(), [], 'the tree holds it: the problem is gone')

  close('rrdp') // now RRDP is slow: both outputs lack the change
  t.same(pub.publish('alice', roa(2)), { type: 'success' })
  await until('the serial is being written', () => pending.length === 0)
  now += 61_000
  t.same(labels(), ['sys-rrdp-lag', 'sys-rsync-lag'], 'a change in neither output after the bound: both lag')
  open.rrdp()
  await out.flushed()
  t.same(labels(), [], 'both caught up')
  await out.stop()
})

t.test('issue 22: the in-process path of local CAs goes through the quota; the operator takes over a self-service handle', async (t) => {
  const quotas: QuotaSettings = { publisher: { objects: 2, bytes: 100, objectBytes: 60 }, total: { objects: 1000, bytes: 10_000 }, selfService: { objects: 1, bytes: 10, objectBytes: 10 }, selfServiceTotal: { objects: 10, bytes: 100 } }
  const { pub } = service(() => T, quotas)
  pub.publisherAdd({ publisherHandle: 'ca1', idCert })
  const obj = (name: string, n: number) => ({ type: 'publish' as const, uri: `rsync://localhost/repo/ca1/${name}`, content: new Uint8Array(n) })
  t.same(pub.publish('ca1', { type: 'delta', pdus: [obj('a.roa', 50), obj('b.roa', 50)] }), { type: 'success' }, 'two objects, 100 bytes: at the quota')
  const refused = pub.publish('ca1', { type: 'delta', pdus: [obj('c.roa', 1)] })
  t.match(refused, { type: 'error_reply', errors: [{ code: 'other_error', text: /publisher 'ca1' would hold 3 objects, more than its quota of 2/ }] }, 'a third: refused, other_error')
  t.same(pub.pubdPublisherShow('ca1').current_files.map((f) => f.uri.slice(-5)), ['a.roa', 'b.roa'], 'nothing changed')
  t.match(pub.pubdPublisherShow('ca1'), { self_service: false, quota: { objects: 2, bytes: 100, object_bytes: 60 } })
  t.equal(pub.rfc8181Limit('ca1'), Math.ceil(400 / 3) + 2 * 1024 + 64 * 1024, 'the message limit follows the quota')

  pub.pubdPublisherAdd({ json: { publisher_handle: 'anon', id_cert: toBase64(idCert) } }, { selfService: true })
  t.equal(pub.findPublisher('anon')?.selfService, true, 'a self-service publisher is flagged')
  t.match(pub.publish('anon', { type: 'delta', pdus: [{ type: 'publish', uri: 'rsync://localhost/repo/anon/x.roa', content: new Uint8Array(11) }] }), { type: 'error_reply' }, 'and held to the self-service quota')
  t.equal(labelOf(() => pub.pubdPublisherAdd({ json: { publisher_handle: 'anon', id_cert: toBase64(idCert) } }, { selfService: true })), 'pub-duplicate', 'another self-service registration of the handle: refused')
  pub.publisherAdd({ publisherHandle: 'anon', idCert })
  t.equal(pub.findPublisher('anon')?.selfService, undefined, "the operator's registration (svcc add of a CA named anon) takes the handle over")
})

t.test('on the fake clock: a follower copies the leader\'s serial at each poll, and becomes the one that writes when it leads', async (t) => {
  const clock = new FakeClock(T.getTime())
  let leading = false
  const { pub, out, calls } = build({ clock, now: () => clock.date(), cluster: { leading: () => leading, pollMs: 1000 } })
  await out.start()
  await clock.advance(0)
  t.same(calls.slice(0, 3), ['rsync.init', 'daemon.start /data/repo/rsync/trees/t1', 'rrdp.mirror'], 'a follower does not init RRDP: it copies')
  calls.length = 0
  await clock.advance(3000)
  t.equal(calls.filter((c) => c === 'rrdp.mirror').length, 3, 'one copy per poll interval, on the injected clock')
  t.notOk(calls.includes('rrdp.cycle'), 'never a serial of its own')
  const refused = await out.pubdSessionReset().then(() => undefined, (e: unknown) => (e instanceof AppError ? e.label : String(e)))
  t.equal(refused, 'sys-not-leader', 'only the leader resets the session')

  leading = true
  out.leadershipChanged()
  pub.publisherAdd({ publisherHandle: 'alice', idCert })
  calls.length = 0
  t.same(pub.publish('alice', { type: 'delta', pdus: [{ type: 'publish', uri: 'rsync://localhost/repo/alice/a.roa', content: new Uint8Array([1]) }] }), { type: 'success' })
  await clock.advance(0)
  t.same(calls.slice(0, 3), ['rrdp.mirror', 'rrdp.init', 'rrdp.cycle'], "leading: the previous leader's serial copied, the files brought in line with the database, then a serial")
  await out.stop()
  calls.length = 0
  await clock.advance(5000)
  t.same(calls, [], 'stopped: the poll is cleared')
})

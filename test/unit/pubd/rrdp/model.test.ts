/**
 * The RRDP model (src/pubd/rrdp/model.ts), pure: sessions, file names, the elements of a delta, the next serial, the
 * notification's content, and restore detection, without a disk or a database (RFC 8182, RFC 9697).
 */
import t from 'tap'
import { encodeNotification } from '../../../../src/protocol/rrdp.js'
import { deltaElements, fileUri, firstSerial, floorCounts, isServedName, nextSerial, notificationHead, notificationOf, referencedFiles, restoreReason, serialDir, servedKey, sessionId, type RrdpDeltaInfo, type RrdpState } from '../../../../src/pubd/rrdp/model.js'

const BASE = 'https://localhost/rrdp/'
const S = '11111111-1111-4111-8111-111111111111'
const T = new Date('2026-05-01T12:00:00Z')
const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill)
/** A SHA-256 hex digest (64 digits) made of one digit, as encodeNotification checks digests. */
const H = (digit: string) => digit.repeat(64)

t.test('sessions and file names: version 4 UUIDs, a random directory per serial, only RRDP names served', async (t) => {
  t.equal(sessionId(bytes(16, 0xff)), 'ffffffff-ffff-4fff-bfff-ffffffffffff', 'the version and variant bits are set (RFC 9562 §5.4)')
  t.equal(sessionId(bytes(16, 0)), '00000000-0000-4000-8000-000000000000')
  t.throws(() => sessionId(bytes(8, 1)), 'a session id needs 16 random bytes')
  t.equal(serialDir(S, 7, Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8])), `${S}/7/0102030405060708`)
  t.ok(isServedName(`${serialDir(S, 7, bytes(8, 0xab))}/snapshot.xml`), 'a snapshot the writer names')
  t.ok(isServedName(`${serialDir(S, 1, bytes(8, 0))}/delta.xml`), 'a delta')
  t.ok(isServedName('notification.xml'))
  for (const bad of ['../svcd.db', `${S}/0/0000000000000000/delta.xml`, `${S}/1/00000000000000/delta.xml`, `${S}/1/0000000000000000/delta.xml.tmp`, 'notification.xml.tmp', `${S}/1/0000000000000000/../../x`]) t.notOk(isServedName(bad), `not served: ${bad}`)
  t.equal(fileUri(BASE, 'a\\b/c.xml'), `${BASE}a/b/c.xml`, "URIs use '/'")
})

t.test('the elements of a delta: the net change per URI since the last serial', async (t) => {
  const objects = new Map([
    ['rsync://x/new.roa', { hash: 'n1', content: bytes(1, 1) }],
    ['rsync://x/replaced.roa', { hash: 'r2', content: bytes(1, 2) }],
    ['rsync://x/same.roa', { hash: 's1', content: bytes(1, 3) }],
  ])
  const before = new Map<string, string | null>([
    ['rsync://x/new.roa', null],
    ['rsync://x/replaced.roa', 'r1'],
    ['rsync://x/same.roa', 's1'], // replaced and then put back: no change
    ['rsync://x/gone.roa', 'g1'],
    ['rsync://x/brief.roa', null], // published and withdrawn between two serials: nothing
  ])
  const elements = deltaElements({ object: (uri) => objects.get(uri) }, before)
  t.same(elements, [
    { type: 'publish', uri: 'rsync://x/new.roa', content: bytes(1, 1) },
    { type: 'publish', uri: 'rsync://x/replaced.roa', hash: 'r1', content: bytes(1, 2) },
    { type: 'withdraw', uri: 'rsync://x/gone.roa', hash: 'g1' },
  ])
  t.same(floorCounts(3, elements), { before: 3, after: 3 }, 'one added, one withdrawn: the safety floor compares 3 with 3')
  t.same(floorCounts(10, [{ type: 'withdraw', uri: 'a', hash: 'h' }, { type: 'withdraw', uri: 'b', hash: 'h' }]), { before: 12, after: 10 })
})

t.test('the next serial: its state and delta, the deltas retention drops, and the notification naming them', async (t) => {
  const previous: RrdpState = { session: S, serial: 4, snapshotPath: `${S}/4/aa/snapshot.xml`, snapshotHash: H('0'), snapshotSize: 100, updated: '2026-05-01T11:00:00.000Z' }
  const older = (serial: number, size: number): RrdpDeltaInfo => ({ serial, path: `${S}/${serial}/aa/delta.xml`, hash: H(String(serial)), size, time: '2026-05-01T11:00:00.000Z' })
  const written = { snapshot: { path: `${S}/5/bb/snapshot.xml`, hash: H('a'), size: 100 }, delta: { path: `${S}/5/bb/delta.xml`, hash: H('5'), size: 30 } }
  const retention = { minNr: 2, minSeconds: 0, maxNr: 3, maxSeconds: 7200 }
  const next = nextSerial(previous, written, [older(4, 30), older(3, 30), older(2, 30)], retention, T)
  t.same(next.state, { session: S, serial: 5, snapshotPath: written.snapshot.path, snapshotHash: H('a'), snapshotSize: 100, updated: T.toISOString() })
  t.same(next.delta, { serial: 5, path: written.delta.path, hash: H('5'), size: 30, time: T.toISOString() })
  t.same(next.keep.map((d) => d.serial), [5, 4, 3], 'at most maxNr, and never more bytes than the snapshot')
  t.same(next.drop, [2])
  t.equal(servedKey(next.state), `${S}/5`)
  t.same([...referencedFiles(next.state, next.keep)].sort(), [`${S}/3/aa/delta.xml`, `${S}/3/aa/delta.xml.gz`, `${S}/4/aa/delta.xml`, `${S}/4/aa/delta.xml.gz`, `${S}/5/bb/delta.xml`, `${S}/5/bb/delta.xml.gz`, `${S}/5/bb/snapshot.xml`, `${S}/5/bb/snapshot.xml.gz`])

  const n = notificationOf(next.state, next.keep, BASE)
  t.same(n, {
    sessionId: S,
    serial: 5,
    snapshot: { uri: `${BASE}${S}/5/bb/snapshot.xml`, hash: H('a') },
    deltas: [5, 4, 3].map((s) => ({ serial: s, uri: `${BASE}${S}/${s}/${s === 5 ? 'bb' : 'aa'}/delta.xml`, hash: H(String(s)) })),
  })
  t.same(notificationHead(encodeNotification(n).slice(0, 1024)), { session: S, serial: 5 }, 'what a restart reads back from the notification it wrote')
  const first = firstSerial(S, { path: `${S}/1/cc/snapshot.xml`, hash: H('f'), size: 9 }, T)
  t.same(notificationOf(first, [], BASE).deltas, [], 'a new session: serial 1, a snapshot, no deltas (RFC 8182 §3.3.2)')
  t.equal(first.serial, 1)
})

t.test('restore detection: the database behind what was served starts a new session (RFC 9697)', async (t) => {
  const state = { session: S, serial: 5 }
  t.equal(restoreReason(state, [], []), undefined, 'nothing served yet')
  t.equal(restoreReason(state, [{ session: S, serial: 5 }], ['1', '5']), undefined, 'the same serial')
  t.equal(restoreReason(state, [{ session: S, serial: 4 }], []), undefined, 'an older serial (a crash before the notification was replaced)')
  t.equal(restoreReason(state, [], ['5', '6']), undefined, 'the next serial written but never recorded')
  t.match(restoreReason(state, [], ['6', '7']), /serial 7 was written, the database is at 5/)
  t.match(restoreReason(state, [{ session: S, serial: 9 }], []), /served serial 9, the database is at 5/)
  t.match(restoreReason(state, [{ session: '22222222-2222-4222-8222-222222222222', serial: 1 }], []), /served session 22222222/)
  t.equal(restoreReason(state, [{ session: '22222222-2222-4222-8222-222222222222', serial: 1 }, { session: S, serial: 5 }], []), undefined, 'one of the two copies (plain, gzip) names the session: not a restore')
  t.equal(notificationHead('<notification version="1">'), undefined, 'an unreadable head is no evidence')
})

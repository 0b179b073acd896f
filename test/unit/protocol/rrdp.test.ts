/**
 * src/protocol/rrdp.ts (RFC 8182): fixtures decode (or are refused: wrong namespace, DTD/XXE, billion laughs), the
 * empty-publish policy, our documents validate against the schema and round-trip, chunked encoding, encoder speed.
 */
import t from 'tap'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  decodeDelta,
  decodeNotification,
  decodeSnapshot,
  encodeDelta,
  encodeDeltaChunks,
  encodeNotification,
  encodeSnapshot,
  encodeSnapshotChunks,
  encodeSnapshotElement,
  RRDP_NS,
  SNAPSHOT_TAIL,
  snapshotHead,
  type Delta,
  type Notification,
  type Snapshot,
} from '../../../src/protocol/rrdp.js'
import { validateWithSchema, xmllintMissing } from '../../helpers/xmllint.js'

const SHARED = fileURLToPath(new URL('../../../../shared/fixtures/', import.meta.url))
const noShared = existsSync(SHARED) ? false : `shared fixtures not found at ${SHARED}: real-world fixture tests skipped`
const noXmllint = xmllintMissing()
const SESSION = 'cd0c701d-ff09-4e95-8f2a-fa24de875fb5'
const HASH = '09e110c0350a673334a3d75a9cc81ddf47fb4b05693e47c383c45f92fa2ade62'
const BYTES = Uint8Array.from({ length: 300 }, (_, i) => (i * 11) % 256)

function rrdp(path: string): Buffer {
  return readFileSync(`${SHARED}rrdp/${path}`)
}

function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex')
}

t.test('every real-world notification, snapshot and delta decodes and round-trips', { skip: noShared }, async (t) => {
  const notifications = ['fort/notification-ripe-2019.xml', 'krill-benchmark-2023/notification.xml', 'ripencc-2019/notification.xml', 'ripencc-pubserver/notification-valid.xml', 'rpki-client-regress/notification.xml']
  for (const f of notifications) {
    const n = decodeNotification(rrdp(f))
    t.same(decodeNotification(encodeNotification(n)), { ...n, deltas: [...n.deltas].sort((a, b) => b.serial - a.serial) }, `${f}: ${n.deltas.length} deltas`)
  }
  const snapshots = ['krill-benchmark-2023/snapshot.xml', 'ripencc-2019/snapshot-1742-trimmed.xml', 'ripencc-pubserver/valid-snapshot.xml', 'ripencc-validator3/snapshot1-with-xml-comment.xml', 'rpki-client-regress/snapshot.xml']
  for (const f of snapshots) {
    const s = decodeSnapshot(rrdp(f))
    t.same(decodeSnapshot(encodeSnapshot(s)), s, `${f}: ${s.publishes.length} objects`)
  }
  for (const f of ['krill-benchmark-2023/delta.xml', 'ripencc-2019/delta-1739.xml', 'rpki-client-regress/delta.xml']) {
    const d = decodeDelta(rrdp(f))
    t.same(decodeDelta(encodeDelta(d)), d, `${f}: ${d.elements.length} elements`)
  }
})

t.test('tolerated: redeclared namespace, comments, attribute order, UPPERCASE hashes', { skip: noShared }, async (t) => {
  const redeclared = decodeSnapshot(rrdp('rpki-client-regress/snapshot.xml'))
  t.equal(redeclared.serial, 28483, 'serial,version,session_id order; xmlns on every <publish>')
  t.ok(redeclared.publishes[0].content.length > 0)
  t.equal(decodeSnapshot(rrdp('ripencc-validator3/snapshot1-with-xml-comment.xml')).serial, 1, 'comment before the root')
  const ripe = decodeNotification(rrdp('ripencc-2019/notification.xml'))
  t.equal(ripe.snapshot.hash, 'c047e305fe71f2936720948e129a14c0819ded9cdecf31cfaf02c71200eb6f7c', 'uppercase hash normalised')
  t.equal(ripe.deltas[0].serial, 1742, 'deltas on one line, no whitespace between them')
  const mixed = decodeDelta(rrdp('krill-benchmark-2023/delta.xml'))
  t.ok(mixed.elements.some((e) => e.type === 'publish' && e.hash === undefined) && mixed.elements.some((e) => e.type === 'publish' && e.hash), 'new and replacing publishes')
  t.ok(decodeDelta(rrdp('rpki-client-regress/delta.xml')).elements.some((e) => e.type === 'withdraw'), 'withdraw')
})

t.test('Krill hashes match: the notification names the snapshot and delta by SHA-256', { skip: noShared }, async (t) => {
  const n = decodeNotification(rrdp('krill-benchmark-2023/notification.xml'))
  t.equal(sha256(rrdp('krill-benchmark-2023/snapshot.xml')), n.snapshot.hash)
  t.equal(sha256(rrdp('krill-benchmark-2023/delta.xml')), n.deltas[0].hash)
})

t.test('empty <publish> content decodes to a zero-length object (policy)', { skip: noShared }, async (t) => {
  const s = decodeSnapshot(rrdp('ripencc-2019/snapshot-1742-trimmed.xml'))
  const empty = s.publishes.filter((p) => p.content.length === 0).map((p) => p.uri)
  t.equal(empty.length, 2, 'two publishes with empty content')
  t.ok(empty.some((u) => u.endsWith('/0LX7cWNLtPI0HF9qCVTuIpUvxEY.roa')), 'the self-closing <publish .../>')
  t.equal(s.publishes.length, 277, 'the rest of the snapshot is kept')
  t.same(decodeSnapshot(encodeSnapshot(s)).publishes.filter((p) => p.content.length === 0).length, 2, 'kept through encode/decode')
})

t.test('refused: foreign namespaces, DTD/XXE, billion laughs', { skip: noShared }, async (t) => {
  t.throws(() => decodeDelta(rrdp('ripencc-validator3/delta1-uppercase-HTTP-namespace.xml')), {
    message: 'RFC 8182 §3.5.3: <delta> is in namespace "HTTP://www.ripe.net/rpki/rrdp", not the RRDP namespace http://www.ripe.net/rpki/rrdp',
  })
  t.throws(() => decodeNotification(rrdp('rpki-client-regress/notification_xmlns.xml')), { message: /namespace "http:\/\/www.example.com\/rpki\/rrdp", not the RRDP namespace/ })
  t.throws(() => decodeNotification(rrdp('rpki-client-regress/xxe.xml')), { name: 'DecodeError', message: /DOCTYPE declaration is not allowed/ })
  t.throws(() => decodeNotification(rrdp('rpki-client-regress/billion_lol.xml')), { name: 'DecodeError', message: /DOCTYPE declaration is not allowed/ })
})

t.test('malformed documents are refused with the RFC 8182 rule', async (t) => {
  const doc = (name: string, attrs: string, body = '') => `<${name} xmlns="${RRDP_NS}" ${attrs}>${body}</${name}>`
  const head = `version="1" session_id="${SESSION}"`
  t.throws(() => decodeSnapshot(doc('snapshot', `version="2" session_id="${SESSION}" serial="1"`)), { message: /RFC 8182 §3\.5\.2: <snapshot> version "2" is not supported/ })
  t.throws(() => decodeSnapshot(doc('snapshot', `version="1" session_id="nope" serial="1"`)), { message: /session_id "nope" is not a UUID/ })
  t.throws(() => decodeSnapshot(doc('snapshot', `${head} serial="0"`)), { message: /serial "0" is not a positive integer/ })
  t.throws(() => decodeSnapshot(doc('snapshot', `${head} serial="99999999999999999999"`)), { message: /serial 99999999999999999999 is too large/ })
  t.throws(() => decodeSnapshot(doc('delta', `${head} serial="1"`)), { message: /expected an RRDP <snapshot>, got <delta>/ })
  t.throws(() => decodeDelta(doc('delta', `${head} serial="1"`)), { message: /RFC 8182 §3\.5\.3: <delta> must contain at least one/ })
  t.throws(() => decodeDelta(doc('delta', `${head} serial="1"`, '<withdraw uri="rsync://x/a"/>')), { message: /<withdraw> has no hash attribute/ })
  t.throws(() => decodeDelta(doc('delta', `${head} serial="1"`, '<withdraw uri="rsync://x/a" hash="abcd"/>')), { message: /must have 64 hex digits/ })
  t.throws(() => decodeNotification(doc('notification', `${head} serial="1"`)), { message: /exactly one <snapshot>, found 0/ })
  const big = decodeNotification(doc('notification', `${head} serial="18446744073709551615"`, `<snapshot uri="https://x/s.xml" hash="${HASH}"/>`))
  t.equal(big.serial, 18446744073709551615n, 'a notification serial above 2^53 is a bigint')
})

const NOTIFICATION: Notification = {
  sessionId: SESSION,
  serial: 3,
  snapshot: { uri: 'https://localhost:3000/rrdp/s/3/abc/snapshot.xml', hash: HASH.toUpperCase() },
  deltas: [
    { serial: 2, uri: 'https://localhost:3000/rrdp/s/2/abc/delta.xml', hash: HASH },
    { serial: 3, uri: 'https://localhost:3000/rrdp/s/3/abc/delta.xml', hash: HASH },
  ],
}
const SNAPSHOT: Snapshot = { sessionId: SESSION, serial: 3, publishes: [{ uri: 'rsync://localhost/repo/ca/a&b.roa', content: BYTES }, { uri: 'rsync://localhost/repo/ca/c.mft', content: BYTES }] }
const DELTA: Delta = {
  sessionId: SESSION,
  serial: 3,
  elements: [
    { type: 'publish', uri: 'rsync://localhost/repo/ca/new.roa', content: BYTES },
    { type: 'publish', uri: 'rsync://localhost/repo/ca/c.mft', hash: HASH, content: BYTES },
    { type: 'withdraw', uri: 'rsync://localhost/repo/ca/old.roa', hash: HASH },
  ],
}

t.test('canonical encoding', async (t) => {
  t.equal(
    encodeNotification(NOTIFICATION),
    `<notification xmlns="${RRDP_NS}" version="1" session_id="${SESSION}" serial="3">\n` +
      `  <snapshot uri="${NOTIFICATION.snapshot.uri}" hash="${HASH}"/>\n` +
      `  <delta serial="3" uri="${NOTIFICATION.deltas[1].uri}" hash="${HASH}"/>\n` +
      `  <delta serial="2" uri="${NOTIFICATION.deltas[0].uri}" hash="${HASH}"/>\n` +
      '</notification>\n',
  )
  const b64 = Buffer.from(BYTES).toString('base64')
  t.equal(
    encodeSnapshot(SNAPSHOT),
    `<snapshot xmlns="${RRDP_NS}" version="1" session_id="${SESSION}" serial="3">\n  <publish uri="rsync://localhost/repo/ca/a&amp;b.roa">${b64}</publish>\n  <publish uri="rsync://localhost/repo/ca/c.mft">${b64}</publish>\n</snapshot>\n`,
  )
  t.throws(() => encodeDelta({ ...DELTA, elements: [] }), { name: 'InspectionError', message: /at least one publish or withdraw/ })
  t.throws(() => encodeSnapshot({ ...SNAPSHOT, sessionId: 'x' }), { name: 'InspectionError', message: /not a UUID/ })
  t.throws(() => encodeNotification({ ...NOTIFICATION, snapshot: { uri: 'https://x', hash: 'abc' } }), { name: 'InspectionError', message: /not a SHA-256/ })
})

t.test('chunked encoders produce the same bytes in bounded chunks', async (t) => {
  const many: Snapshot = { ...SNAPSHOT, publishes: Array.from({ length: 500 }, (_, i) => ({ uri: `rsync://localhost/repo/ca/${i}.roa`, content: BYTES })) }
  const chunks = [...encodeSnapshotChunks(many, { chunkBytes: 16 * 1024 })]
  t.ok(chunks.length > 5, `${chunks.length} chunks`)
  t.ok(chunks.every((c) => c.length < 17 * 1024), 'each chunk about chunkBytes')
  t.equal(Buffer.concat(chunks).toString('utf8'), encodeSnapshot(many))
  function* lazy() {
    yield* DELTA.elements
  }
  t.equal(Buffer.concat([...encodeDeltaChunks({ ...DELTA, elements: lazy() })]).toString('utf8'), encodeDelta(DELTA), 'any iterable source')
})

t.test('snapshot pieces: head + elements + tail is the snapshot, and onElement says where each element is', async (t) => {
  const many: Snapshot = { ...SNAPSHOT, publishes: Array.from({ length: 300 }, (_, i) => ({ uri: `rsync://localhost/repo/ca/${i}&${i}.roa`, content: Buffer.alloc(i * 7, i) })) }
  const places: [string, number, number][] = []
  const whole = Buffer.concat([...encodeSnapshotChunks(many, { chunkBytes: 8 * 1024, onElement: (uri, offset, length) => places.push([uri, offset, length]) })])
  const pieces = [Buffer.from(snapshotHead(many)), ...many.publishes.map((p) => encodeSnapshotElement(p.uri, p.content)), Buffer.from(SNAPSHOT_TAIL)]
  t.ok(Buffer.concat(pieces).equals(whole), 'the same bytes')
  t.same(places.map((p) => p[0]), many.publishes.map((p) => p.uri), 'every element, in order')
  t.ok(places.every(([uri, offset, length], i) => whole.subarray(offset, offset + length).equals(encodeSnapshotElement(uri, many.publishes[i].content))), 'each place holds exactly its element, across chunk boundaries')
  t.throws(() => snapshotHead({ sessionId: 'x', serial: 1 }), { name: 'InspectionError', message: /not a UUID/ })
})

t.test('everything we emit validates against the RFC 8182 schema and round-trips', { skip: noXmllint }, async (t) => {
  const docs: [string, string, () => unknown][] = [
    ['notification', encodeNotification(NOTIFICATION), () => decodeNotification(encodeNotification(NOTIFICATION))],
    ['snapshot', encodeSnapshot(SNAPSHOT), () => decodeSnapshot(encodeSnapshot(SNAPSHOT))],
    ['empty snapshot', encodeSnapshot({ ...SNAPSHOT, publishes: [] }), () => decodeSnapshot(encodeSnapshot({ ...SNAPSHOT, publishes: [] }))],
    ['delta', encodeDelta(DELTA), () => decodeDelta(encodeDelta(DELTA))],
  ]
  for (const [name, xml] of docs) {
    const v = validateWithSchema(xml, 'rfc8182')
    t.ok(v.ok, `${name} validates: ${v.output}`)
  }
  t.same(docs[0][2](), { ...NOTIFICATION, snapshot: { ...NOTIFICATION.snapshot, hash: HASH }, deltas: [NOTIFICATION.deltas[1], NOTIFICATION.deltas[0]] })
  t.same(docs[1][2](), SNAPSHOT)
  t.same(docs[3][2](), DELTA)
})

t.test('a snapshot of 100,000 objects of 2 KB encodes in chunks (its speed is measured by make bench)', async (t) => {
  const objects = Array.from({ length: 100_000 }, (_, i) => ({ uri: `rsync://localhost/repo/ca-${i % 97}/0/${i.toString(16).padStart(40, '0')}.roa`, content: Buffer.alloc(2048, i % 251) }))
  const source = { sessionId: SESSION, serial: 42, publishes: objects }
  const start = performance.now()
  let bytes = 0
  let chunks = 0
  for (const chunk of encodeSnapshotChunks(source)) {
    bytes += chunk.length
    chunks++
  }
  const ms = performance.now() - start
  t.ok(bytes > 270_000_000, `${(bytes / 1048576).toFixed(0)} MiB in ${chunks} chunks`)
  t.comment(`encoded in ${ms.toFixed(0)} ms`)
})

/**
 * The RRDP fetcher's choices (src/app/liveness/rrdp-fetcher.ts) against a loopback HTTPS server serving RRDP documents
 * written by protocol/rrdp.ts: deltas from the kept serial; the snapshot when the session changed, when a delta is not
 * listed, or when a delta does not apply to what is kept; a wrong delta hash is an error; a cross-origin snapshot URI
 * is refused; a server that never answers is cut off by the deadline.
 */
import t, { type Test } from 'tap'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { RrdpFetcher } from '../../../src/app/liveness/rrdp-fetcher.js'
import { systemClock } from '../../../src/clock.js'
import { sha256Hex } from '../../../src/crypto/digest.js'
import { type DeltaElement, encodeDelta, encodeNotification, encodeSnapshot } from '../../../src/protocol/rrdp.js'
import { generateTlsCertificate } from '../../../src/tls-cert.js'

const SESSION = '9df4b597-af9e-4dca-bdda-719cce2c4e28'
const OTHER = '2d8b8c63-54ac-4a12-a2d1-3b33f8b3b7cc'
const b = (s: string) => new TextEncoder().encode(s)
const U = (n: string) => `rsync://example.net/repo/ca/${n}`

/** A repository on a loopback server: its documents are set by the test; `hang` makes it never answer. */
async function server(t: Test) {
  const docs = new Map<string, string>()
  let hang = false
  const { certPem, keyPem } = generateTlsCertificate(new Date(), ['localhost'])
  const s = https.createServer({ cert: certPem, key: keyPem }, (req, res) => {
    if (hang) return
    const doc = docs.get(req.url ?? '')
    if (doc === undefined) {
      res.statusCode = 404
      return res.end()
    }
    res.end(doc)
  })
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  t.teardown(() => {
    s.closeAllConnections()
    s.close()
  })
  const base = `https://localhost:${(s.address() as AddressInfo).port}`
  const state = { session: SESSION, serial: 1, files: new Map<string, Uint8Array>(), deltas: [] as { serial: number; uri: string; hash: string }[] }
  const publishNotification = () => {
    const snap = encodeSnapshot({ sessionId: state.session, serial: state.serial, publishes: [...state.files].map(([uri, content]) => ({ uri, content })) })
    docs.set(`/snap-${state.session}-${state.serial}.xml`, snap)
    docs.set('/notification.xml', encodeNotification({ sessionId: state.session, serial: state.serial, snapshot: { uri: `${base}/snap-${state.session}-${state.serial}.xml`, hash: sha256Hex(b(snap)) }, deltas: state.deltas }))
  }
  return {
    base, docs, state, publishNotification, setHang: (h: boolean) => void (hang = h),
    /** Apply `elements` as the next serial, with a delta file (listed unless `unlisted`). */
    change(elements: DeltaElement[], o: { unlisted?: boolean; wrongHash?: boolean } = {}) {
      state.serial++
      for (const e of elements) if (e.type === 'withdraw') state.files.delete(e.uri)
      else state.files.set(e.uri, e.content)
      const xml = encodeDelta({ sessionId: state.session, serial: state.serial, elements })
      docs.set(`/delta-${state.serial}.xml`, xml)
      if (!o.unlisted) state.deltas.push({ serial: state.serial, uri: `${base}/delta-${state.serial}.xml`, hash: o.wrongHash ? '0'.repeat(64) : sha256Hex(b(xml)) })
      publishNotification()
    },
  }
}

t.test('deltas when they can be used, the snapshot when they cannot', async (t) => {
  const s = await server(t)
  s.state.files.set(U('a.roa'), b('a1'))
  s.state.files.set(U('b.roa'), b('b1'))
  s.publishNotification()
  const f = new RrdpFetcher({ timeoutMs: 5_000, maxBytes: 1 << 20, clock: systemClock })
  const src = `${s.base}/notification.xml`
  const names = (r: { files: ReadonlyMap<string, Uint8Array> }) => [...r.files].map(([u, c]) => `${u.slice(U('').length)}=${new TextDecoder().decode(c)}`).sort()

  t.same(names(await f.fetch(src)), ['a.roa=a1', 'b.roa=b1'], 'the snapshot')
  t.same(f.stats, { requests: 2, bytes: f.stats.bytes, snapshots: 1, deltas: 0 })

  s.change([{ type: 'publish', uri: U('a.roa'), hash: sha256Hex(b('a1')), content: b('a2') }, { type: 'withdraw', uri: U('b.roa'), hash: sha256Hex(b('b1')) }])
  s.change([{ type: 'publish', uri: U('c.roa'), content: b('c1') }])
  const r = await f.fetch(src)
  t.same(names(r), ['a.roa=a2', 'c.roa=c1'], 'two deltas applied')
  t.match(r, { session: SESSION, serial: 3 })
  t.match(f.stats, { snapshots: 1, deltas: 2, requests: 5 })

  t.same(names(await f.fetch(src)), ['a.roa=a2', 'c.roa=c1'], 'nothing new: the notification only')
  t.match(f.stats, { snapshots: 1, deltas: 2, requests: 6 })

  // A source no longer checked is forgotten: its next fetch reads the snapshot again.
  f.retain(new Set([src]))
  t.same(names(await f.fetch(src)), ['a.roa=a2', 'c.roa=c1'], 'kept while it is checked')
  t.match(f.stats, { snapshots: 1, requests: 7 })
  f.retain(new Set())
  t.same(names(await f.fetch(src)), ['a.roa=a2', 'c.roa=c1'], 'forgotten: read again')
  t.match(f.stats, { snapshots: 2, deltas: 2, requests: 9 })

  s.change([{ type: 'publish', uri: U('d.roa'), content: b('d1') }], { unlisted: true })
  t.same(names(await f.fetch(src)), ['a.roa=a2', 'c.roa=c1', 'd.roa=d1'], 'a delta not listed: the snapshot')
  t.match(f.stats, { snapshots: 3, deltas: 2 })

  // A delta whose replaced object is not what the fetcher kept (the server's history and ours differ).
  s.state.files.set(U('a.roa'), b('a-silently'))
  s.change([{ type: 'publish', uri: U('a.roa'), hash: sha256Hex(b('a-silently')), content: b('a3') }])
  t.same(names(await f.fetch(src)), ['a.roa=a3', 'c.roa=c1', 'd.roa=d1'], 'a delta that does not apply: the snapshot')
  t.match(f.stats, { snapshots: 4 })

  s.state.session = OTHER
  s.state.deltas = []
  s.publishNotification()
  const other = await f.fetch(src)
  t.match(other, { session: OTHER, serial: s.state.serial }, 'a new session: the snapshot')
  t.match(f.stats, { snapshots: 5 })

  s.change([{ type: 'publish', uri: U('e.roa'), content: b('e1') }], { wrongHash: true })
  t.match(await f.fetch(src), { error: `hash mismatch for delta ${s.state.serial}`, files: new Map() }, 'a wrong delta hash: an error')
})

t.test('a snapshot on another origin is refused; a server that never answers is cut off', async (t) => {
  const s = await server(t)
  s.state.files.set(U('a.roa'), b('a1'))
  s.publishNotification()
  const src = `${s.base}/notification.xml`
  const snap = s.docs.get('/notification.xml')!.replace(/uri="https:\/\/localhost:\d+/, 'uri="https://127.0.0.2:1')
  s.docs.set('/notification.xml', snap)
  const f = new RrdpFetcher({ timeoutMs: 1_000, maxBytes: 1 << 20, clock: systemClock })
  t.match(await f.fetch(src), { error: /not on the notification's origin/ })
  s.setHang(true)
  const started = Date.now()
  t.match(await f.fetch(src), { error: 'unreachable: no complete answer within 1 s', files: new Map() })
  t.ok(Date.now() - started < 5_000, `cut off after ${Date.now() - started} ms`)
})

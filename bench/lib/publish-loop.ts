/**
 * Sustained RFC 8181 publishing for the `publish-load` and `cluster` benches: publishers added to an svcd, each
 * replacing its own object over CMS-wrapped RFC 8181/HTTPS with one request in flight, and a watcher of the
 * notification on disk that notes when each serial appeared and what it published (for the publication delay).
 */
import { createHash, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { encodePublicationQuery, type PublicationQuery, type PublicationReply } from '../../src/protocol/publication.js'
import { decodeDelta, decodeSnapshot } from '../../src/protocol/rrdp.js'
import type { TestPublisher } from '../../test/helpers/publisher.js'
import { type BenchDaemon, notificationOnDisk } from './daemon.js'

export const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

/** Send one query to `d`'s RFC 8181 endpoint for `p` (any instance of a cluster accepts it) and verify the reply. */
export async function sendTo(p: TestPublisher, d: BenchDaemon, q: PublicationQuery): Promise<PublicationReply> {
  const cms = await p.signer.sign(encodePublicationQuery(q), new Date())
  return p.reply(await p.post(cms, 'application/rpki-publication', `${d.url}rfc8181/${p.handle}/`))
}

/** Add the publishers through `ds[0]` and publish each one's first object (`bytes` long) through instance i mod n. */
export async function addPublishers(ds: BenchDaemon[], pubs: TestPublisher[], bytes: number): Promise<Map<TestPublisher, string>> {
  for (const p of pubs) {
    await ds[0]!.api('POST', '/api/v1/pubd/publishers', p.requestXml())
    const xml = await ds[0]!.request('GET', `/api/v1/pubd/publishers/${p.handle}/response.xml`)
    if (xml.status !== 200) throw new Error(`response.xml for ${p.handle}: HTTP ${xml.status}`)
    p.useResponse(xml.text)
  }
  const last = new Map<TestPublisher, string>()
  await Promise.all(pubs.map(async (p, i) => {
    const content = new Uint8Array(randomBytes(bytes))
    const r = await sendTo(p, ds[i % ds.length]!, { type: 'delta', pdus: [{ type: 'publish', uri: `${p.response!.siaBase}object.roa`, content }] })
    if (r.type !== 'success') throw new Error(`first publish of ${p.handle}: ${JSON.stringify(r)}`)
    last.set(p, sha(content))
  }))
  return last
}

export interface LoopResult {
  /** Content hash → when its success reply came (performance.now()). */
  acked: Map<string, number>
  latencies: number[]
  errors: number
  errorSamples: string[]
}

/**
 * Until `end` (performance.now()), each publisher replaces its object (`last`: its current hash, updated) with a new
 * one of `bytes` through `target(p, i)`, one request in flight each.
 */
export async function replaceLoop(pubs: TestPublisher[], target: (p: TestPublisher, i: number) => BenchDaemon, last: Map<TestPublisher, string>, end: number, bytes: number): Promise<LoopResult> {
  const r: LoopResult = { acked: new Map(), latencies: [], errors: 0, errorSamples: [] }
  const failed = (why: string) => {
    r.errors++
    if (r.errorSamples.length < 3) r.errorSamples.push(why.slice(0, 300))
  }
  await Promise.all(pubs.map(async (p, i) => {
    const d = target(p, i)
    const uri = `${p.response!.siaBase}object.roa`
    while (performance.now() < end) {
      const content = new Uint8Array(randomBytes(bytes))
      const t = performance.now()
      try {
        const reply = await sendTo(p, d, { type: 'delta', pdus: [{ type: 'publish', uri, hash: last.get(p)!, content }] })
        r.latencies.push(performance.now() - t)
        if (reply.type !== 'success') {
          failed(JSON.stringify(reply))
          continue
        }
        const h = sha(content)
        last.set(p, h)
        r.acked.set(h, performance.now())
      } catch (e) {
        failed(String(e))
      }
    }
  }))
  return r
}

/**
 * Polls an instance's notification.xml on disk (what it serves) every `everyMs`: when each serial first appeared and,
 * with `decode`, the content hashes each new delta published (with the serial and the time it was seen).
 */
export class SerialWatcher {
  readonly seen = new Map<number, number>()
  readonly published = new Map<string, { serial: number; at: number }>()
  private last = 0
  private readonly timer: NodeJS.Timeout

  constructor(private readonly rrdpDir: string, private readonly decode: boolean, everyMs = 20) {
    this.last = Number(notificationOnDisk(rrdpDir)?.notification.serial ?? 0)
    this.timer = setInterval(() => this.poll(), everyMs)
  }

  stop(): void {
    clearInterval(this.timer)
    this.poll()
  }

  poll(): void {
    const at = performance.now()
    let n
    try {
      n = notificationOnDisk(this.rrdpDir)
    } catch {
      return // being replaced
    }
    if (!n) return
    const serial = Number(n.notification.serial)
    for (let s = this.last + 1; s <= serial; s++) {
      this.seen.set(s, at)
      if (!this.decode) continue
      // A delta larger than the snapshot is left out of the notification (RFC 8182 §3.3.2); with few small objects
      // all replaced at once that happens: the snapshot of the current serial then shows what it published.
      const d = n.notification.deltas.find((x) => x.serial === s)
      let objects: Uint8Array[]
      try {
        if (d) objects = decodeDelta(readFileSync(n.path(d.uri))).elements.flatMap((e) => (e.type === 'publish' ? [e.content] : []))
        else if (s === serial) objects = decodeSnapshot(readFileSync(n.path(n.notification.snapshot.uri))).publishes.map((o) => o.content)
        else continue
      } catch {
        continue // retention removed it already
      }
      for (const c of objects) {
        const h = sha(c)
        if (!this.published.has(h)) this.published.set(h, { serial: s, at })
      }
    }
    this.last = Math.max(this.last, serial)
  }
}

/** The publication delays: each acknowledged hash that `w` (with `decode`) saw published, reply → that serial. */
export function publishDelays(acked: Map<string, number>, w: SerialWatcher): number[] {
  const out: number[] = []
  for (const [h, t] of acked) {
    const pub = w.published.get(h)
    if (pub) out.push(pub.at - t) // a hash replaced again before the next serial never reaches RRDP
  }
  return out
}

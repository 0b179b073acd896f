/**
 * Parents benchmark (issue 28 §4, `make bench BENCH=parents`): many parents and many children.
 *
 * 1. One CA ("multi") with N parents (quick 20, full 100; BENCH_PARENTS_N), each a CA under testbed in the same svcd,
 *    asked over RFC 6492 HTTPS on 127.0.0.1 (not the in-process path of a parent in this svcd: CMS both ways, as with
 *    parents elsewhere), and one more parent behind a loopback relay. "Sync with all parents" (POST
 *    /api/v1/cas/multi/sync/parents), timed until every live parent's status shows a new successful exchange: first
 *    with the relay forwarding (N + 1 live parents), then with the relay accepting and never answering (one dead
 *    parent, N live). Target: the dead parent delays the others by at most 10 % (median of the rounds); and the svcd
 *    CPU per parent sync (both sides of the exchange run in this svcd).
 * 2. One parent ("wide") with M children (quick 200, full 10,000; BENCH_PARENTS_CHILDREN), and the same at M / 10:
 *    lightweight children (one identity certificate shared by all, registered through the API), then a refresh of all
 *    children: each sends an RFC 6492 list over HTTPS (16 at once). Time and svcd CPU per child for the registration
 *    and for the refresh, and the growth exponent of the refresh between the two sizes (1 is linear).
 */
import { tcpRelay } from '../test/helpers/relay.js'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import type { AddParentJson, ChildRequestJson, ParentResponseJson, ParentStatusJson } from '../src/api/cas.js'
import { createIdCert } from '../src/protocol/id-cert.js'
import { decodeProvisioning, encodeProvisioning } from '../src/protocol/provisioning.js'
import { MessageSigner, unwrapMessage } from '../src/protocol/signed-message.js'
import { fromBase64, toBase64 } from '../src/util/base64.js'
import { httpsRequest } from '../test/helpers/daemon.js'
import { testKey } from '../test/helpers/keys.js'
import { addChildCa, startTestbed, waitCertified } from './cas.bench.js'
import { type BenchDaemon, sleep } from './lib/daemon.js'
import { atMost, type BenchContext, median, ms, num } from './lib/report.js'

const load = () => loadavg()[0]!.toFixed(1)

const relay = tcpRelay

/** Run `fn(i)` for i < n, `width` at a time. */
async function pool(n: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) await fn(next++)
  }))
}

const net24 = (i: number) => `10.${(i >> 8) & 255}.${i & 255}`

//------------ 1. A CA with N parents, one dead ------------------------------------------------------------------------

async function manyParents(ctx: BenchContext, d: BenchDaemon, n: number): Promise<void> {
  const names = [...Array.from({ length: n }, (_, i) => `par-${String(i).padStart(3, '0')}`), 'par-dead']
  let t0 = performance.now()
  await pool(names.length, 8, async (i) => {
    await addChildCa(d, names[i]!, { asn: '', ipv4: `${net24(i)}.0/24`, ipv6: '' })
    await waitCertified(d, names[i]!, 900_000, 250)
  })
  ctx.log(`  ${num(names.length)} parent CAs under testbed certified in ${ms(performance.now() - t0)}`)
  await d.api('POST', '/api/v1/cas', { handle: 'multi' })
  const req = await d.api<ChildRequestJson>('GET', '/api/v1/cas/multi/child_request.json')
  const r = await relay(d.port)
  try {
    t0 = performance.now()
    for (const [i, p] of names.entries()) {
      const resp = await d.api<ParentResponseJson>('POST', `/api/v1/cas/${p}/children`, { handle: 'multi', resources: { asn: '', ipv4: `${net24(i)}.0/25`, ipv6: '' }, id_cert: req.id_cert })
      const port = p === 'par-dead' ? r.port : d.port
      const response = { ...resp, service_uri: resp.service_uri.replace(`https://localhost:${d.port}/`, `https://127.0.0.1:${port}/`) }
      await d.api('POST', '/api/v1/cas/multi/parents', { handle: p, response } satisfies AddParentJson)
    }
    const statuses = () => d.api<Record<string, ParentStatusJson>>('GET', '/api/v1/cas/multi/parents')
    for (;;) {
      const s = await statuses()
      if (names.every((p) => s[p]?.last_exchange?.result === 'Success' && s[p].classes.length > 0)) break
      if (performance.now() - t0 > 900_000) throw new Error('multi was not certified by all its parents')
      await sleep(250)
    }
    ctx.log(`  multi added ${num(names.length)} parents and was certified by each in ${ms(performance.now() - t0)}`)
    await d.idle({ windowMs: 1000, timeoutMs: 300_000 })

    /** One sync with all parents: time until each of `live` shows a new successful exchange, and svcd's CPU by then. */
    const round = async (live: string[]) => {
      await sleep(1100) // the status timestamps are in seconds: the last round's are then older than this one's start
      const since = Math.floor(Date.now() / 1000)
      const cpu0 = d.cpuSeconds()
      const start = performance.now()
      const answered = d.request('POST', '/api/v1/cas/multi/sync/parents').catch(() => undefined)
      for (;;) {
        const s = await statuses()
        const fresh = live.filter((p) => s[p]?.last_exchange?.result === 'Success' && s[p]!.last_exchange!.timestamp >= since).length
        if (fresh === live.length) break
        if (performance.now() - start > 600_000) throw new Error(`${fresh} of ${live.length} parents answered within 10 minutes`)
        await sleep(50)
      }
      return { ms: performance.now() - start, cpu: d.cpuSeconds() - cpu0, answered }
    }
    const rounds = 3
    const base: { ms: number; cpu: number }[] = []
    for (let i = 0; i < rounds; i++) {
      const x = await round(names)
      await x.answered
      base.push(x)
      ctx.log(`  all ${num(names.length)} parents live, round ${i + 1}: ${ms(x.ms)}, svcd CPU ${x.cpu.toFixed(2)} s (load ${load()})`)
    }
    r.hang()
    const dead: { ms: number; cpu: number }[] = []
    const live = names.filter((p) => p !== 'par-dead')
    for (let i = 0; i < rounds; i++) {
      const x = await round(live)
      dead.push(x)
      ctx.log(`  one parent dead (accepts, never answers), round ${i + 1}: the other ${num(live.length)} in ${ms(x.ms)}, svcd CPU ${x.cpu.toFixed(2)} s (load ${load()})`)
    }
    const baseMs = median(base.map((x) => x.ms))
    const deadMs = median(dead.map((x) => x.ms))
    const cpuPerSync = median(base.map((x) => x.cpu)) / names.length
    ctx.row(`parents: sync with ${num(n + 1)} parents, all live (median of ${rounds})`, baseMs, ms(baseMs), undefined, { limit: `svcd CPU ${(cpuPerSync * 1000).toFixed(1)} ms per parent sync (both sides of RFC 6492 in this svcd); load ${load()}` })
    const ratio = deadMs / baseMs
    ctx.row(`parents: the other ${num(n)} with one parent dead, vs all live`, ratio, `${ratio.toFixed(2)}× (${ms(deadMs)})`, atMost(1.1, '≤ 1.1×'), { note: 'wall time, median of the rounds; the dead parent holds one of timing.parent_sync_concurrency slots' })
    ctx.row(`parents: svcd CPU per parent sync (${num(n + 1)} parents)`, cpuPerSync * 1000, `${(cpuPerSync * 1000).toFixed(1)} ms`, undefined, { note: 'list over CMS/HTTPS, answered by a CA of the same svcd; with the status polls of the bench' })
    const cpuPerLiveSync = median(dead.map((x) => x.cpu)) / live.length
    ctx.row(`parents: svcd CPU per live parent sync, one dead vs all live`, cpuPerLiveSync / cpuPerSync, `${(cpuPerLiveSync / cpuPerSync).toFixed(2)}× (${(cpuPerLiveSync * 1000).toFixed(1)} ms)`, undefined, { note: 'CPU time: not distorted by the load of the machine as the wall time is' })
  } finally {
    await r.close() // the dead parent's syncs fail now, and the sync calls waiting for them answer
  }
}

//------------ 2. A parent with M children ---------------------------------------------------------------------------

/** Children that share one identity (a key and certificate each would cost a key generation per child). */
function lightweightChildren() {
  const idKey = testKey()
  const idCert = createIdCert(idKey, new Date())
  const signer = new MessageSigner({ idKey, idCert })
  signer.useEeKey(testKey(), new Date())
  return { idCert, signer }
}

async function manyChildren(ctx: BenchContext, d: BenchDaemon, parent: string, m: number, ids: ReturnType<typeof lightweightChildren>): Promise<{ addCpu: number; listMs: number; listCpu: number }> {
  await addChildCa(d, parent, { asn: '', ipv4: parent === 'wide-small' ? '10.200.0.0/16' : '10.128.0.0/10', ipv6: '' })
  await waitCertified(d, parent, 900_000, 250)
  const responses: ParentResponseJson[] = []
  let cpu0 = d.cpuSeconds()
  let t0 = performance.now()
  const base = parent === 'wide-small' ? 200 << 16 : 128 << 16
  await pool(m, 8, async (i) => {
    const a = base + i
    const ipv4 = `10.${(a >> 16) & 255}.${(a >> 8) & 255}.${a & 255}/32`
    responses[i] = await d.api<ParentResponseJson>('POST', `/api/v1/cas/${parent}/children`, { handle: `kid-${i}`, resources: { asn: '', ipv4, ipv6: '' }, id_cert: toBase64(ids.idCert) })
  })
  const addMs = performance.now() - t0
  const addCpu = d.cpuSeconds() - cpu0
  ctx.log(`  ${parent}: ${num(m)} children added through the API in ${ms(addMs)}, svcd CPU ${addCpu.toFixed(1)} s (${((addCpu * 1000) / m).toFixed(2)} ms per child; load ${load()})`)
  await d.idle({ windowMs: 1000, timeoutMs: 600_000 })
  const parentId = fromBase64(responses[0]!.id_cert)
  cpu0 = d.cpuSeconds()
  t0 = performance.now()
  await pool(m, 16, async (i) => {
    const r = responses[i]!
    const cms = await ids.signer.sign(encodeProvisioning({ sender: r.child_handle, recipient: r.parent_handle, payload: { type: 'list' } }), new Date())
    const res = await httpsRequest(r.service_uri, { method: 'POST', headers: { 'Content-Type': 'application/rpki-updown' }, body: Buffer.from(cms) })
    if (res.status !== 200) throw new Error(`list of ${r.child_handle}: HTTP ${res.status} ${res.body.slice(0, 200)}`)
    const reply = decodeProvisioning(unwrapMessage(new Uint8Array(res.raw), { idCert: parentId, now: new Date() }).xml).payload
    if (reply.type !== 'list_response' || reply.classes.length !== 1) throw new Error(`list of ${r.child_handle}: ${JSON.stringify(reply).slice(0, 300)}`)
  })
  const listMs = performance.now() - t0
  const listCpu = d.cpuSeconds() - cpu0
  ctx.log(`  ${parent}: a refresh of all ${num(m)} children (RFC 6492 list, 16 at once) in ${ms(listMs)}, svcd CPU ${listCpu.toFixed(2)} s (${((listCpu * 1000) / m).toFixed(2)} ms per child; load ${load()})`)
  return { addCpu, listMs, listCpu }
}

export async function runParentsBench(ctx: BenchContext): Promise<void> {
  const n = Number(process.env.BENCH_PARENTS_N) || (ctx.quick ? 20 : 100)
  const m = Number(process.env.BENCH_PARENTS_CHILDREN) || (ctx.quick ? 200 : 10_000)
  ctx.log(`a CA with ${num(n)} parents plus one that goes dead; a parent with ${num(m / 10)} and with ${num(m)} children`)
  const d = await startTestbed({ sections: '[timing]\nparent_request_timeout_seconds = 3600\n' })
  try {
    await manyParents(ctx, d, n)
    const ids = lightweightChildren()
    const small = await manyChildren(ctx, d, 'wide-small', Math.max(1, Math.round(m / 10)), ids)
    const big = await manyChildren(ctx, d, 'wide', m, ids)
    const ratio = big.listCpu / small.listCpu
    const exponent = Math.log(ratio) / Math.log(m / Math.round(m / 10))
    ctx.row(`parents: refresh of ${num(m)} children (list), svcd CPU per child`, (big.listCpu * 1000) / m, `${((big.listCpu * 1000) / m).toFixed(2)} ms`, undefined, { limit: `${ms(big.listMs)} wall for all; load ${load()}` })
    ctx.row(`parents: growth of the children's refresh CPU, ${num(m / 10)} → ${num(m)} children`, exponent, `exponent ${exponent.toFixed(2)} (${ratio.toFixed(1)}× for 10×)`, atMost(1.2, 'exponent ≤ 1.2 (linear: 1)'))
    const addRatio = big.addCpu / small.addCpu
    ctx.row(`parents: growth of adding children through the API, ${num(m / 10)} → ${num(m)}`, Math.log(addRatio) / Math.log(10), `exponent ${(Math.log(addRatio) / Math.log(10)).toFixed(2)} (${((big.addCpu * 1000) / m).toFixed(2)} ms CPU per child at ${num(m)})`, undefined)
  } finally {
    await d.dispose()
  }
}

/**
 * Issue 28 §4: a CA with several parents, one that accepts and never answers and one that refuses connections. A
 * sync with all parents (POST …/sync/parents) brings the live parents' new entitlements while the hung one still waits for its answer;
 * the refused one fails at once, and `svcc parents statuses` shows its error with its label. Every parent is asked
 * over HTTPS on loopback (127.0.0.1, not the in-process path of a parent in the same svcd), the hung and the refused
 * one through relays that forward to svcd while the parents are added, then stop answering or close.
 *
 *   testbed ── p1, p2, p3 (CAs in this svcd)
 *   testbed, p1 ── kid (live)     p2 ─ relay that hangs ─ kid     p3 ─ relay that closes ─ kid
 */
import { tcpRelay } from '../helpers/relay.js'
import t from 'tap'
import { caObjects, connect, repoDaemon, waitFor } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'

async function relay(t: { teardown(fn: () => unknown): void }, target: number) {
  const r = await tcpRelay(target)
  t.teardown(r.close)
  return r
}

type Statuses = Record<string, { last_exchange: { timestamp: number; result: 'Success' | { Failure: { label: string; msg: string } } } | null; all_resources: { ipv4: string }; classes: unknown[] }>

t.test('one hung and one refused parent do not hold up the live parents of a CA', async (t) => {
  // The hung parent's request outlives the test: only a hang is bounded by the request timeout.
  const d = await repoDaemon(t, { extra: '[timing]\nparent_request_timeout_seconds = 3600\n' })
  for (const ca of ['p1', 'p2', 'p3', 'kid']) await d.cli(['add', '-c', ca])
  for (const [i, ca] of ['p1', 'p2', 'p3'].entries()) await connect(d, 'testbed', d, ca, { ipv4: `10.${i + 1}.0.0/16` })
  await waitFor('p1, p2 and p3 certified', async () => (await Promise.all(['p1', 'p2', 'p3'].map((ca) => caObjects(d, ca)))).every((o) => o.active > 0), 120_000)

  const request = d.file('kid-req.xml', await d.cli(['parents', 'request', '-c', 'kid']))
  const hung = await relay(t, d.port)
  const refused = await relay(t, d.port)
  const add = async (parent: string, ipv4: string, port: number) => {
    const response = await d.cli(['children', 'add', '-c', parent, '--child', 'kid', '--request', request, '-4', ipv4])
    const viaLoopback = response.replaceAll(`https://localhost:${d.port}/`, `https://127.0.0.1:${port}/`)
    t.not(viaLoopback, response, `${parent} is asked at 127.0.0.1:${port}`)
    await d.cli(['parents', 'add', '-c', 'kid', '-p', parent, '-r', d.file(`kid-${parent}.xml`, viaLoopback)])
  }
  await add('testbed', '10.100.0.0/16', d.port)
  await add('p1', '10.1.1.0/24', d.port)
  await add('p2', '10.2.1.0/24', hung.port)
  await add('p3', '10.3.1.0/24', refused.port)
  const statuses = async (): Promise<Statuses> => JSON.parse(await d.cli(['parents', 'statuses', '-c', 'kid', '-f', 'json']))
  const before = await waitFor('kid certified by its four parents', async () => {
    const s = await statuses()
    return ['testbed', 'p1', 'p2', 'p3'].every((p) => s[p]?.last_exchange?.result === 'Success' && s[p].classes.length > 0) && s
  }, 120_000)

  hung.hang()
  await refused.close()
  // New entitlements at the live parents: kid learns of them only by asking (its parents are not in-process ones).
  await d.cli(['children', 'update', '-c', 'testbed', '--child', 'kid', '-4', '10.100.0.0/16, 10.102.0.0/16'])
  await d.cli(['children', 'update', '-c', 'p1', '--child', 'kid', '-4', '10.1.1.0/24, 10.1.3.0/24'])
  // Sync with all parents now: the answer waits for the hung parent, the syncs with the others must not.
  const syncAll = httpsRequest(`${d.url}api/v1/cas/kid/sync/parents`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}` } }).catch(() => undefined)
  const after = await waitFor('the live parents answered and the refused one failed', async () => {
    const s = await statuses()
    const failed = typeof s.p3?.last_exchange?.result === 'object'
    return s.testbed?.all_resources.ipv4.includes('10.102.0.0/16') && s.p1?.all_resources.ipv4.includes('10.1.3.0/24') && failed && s
  }, 120_000)
  t.ok(hung.hung() >= 1, `the hung parent holds ${hung.hung()} request(s) unanswered meanwhile`)
  t.same(after.p2!.last_exchange, before.p2!.last_exchange, "the hung parent's last exchange is still the one before: its sync is pending")
  t.match(after.p3!.last_exchange!.result, { Failure: { label: 'ca-parent-sync', msg: /cannot reach https:\/\/127\.0\.0\.1/ } }, 'the refused parent failed at once')
  t.match(await d.cli(['parents', 'statuses', '-c', 'kid']), /^p3: .* failure \(ca-parent-sync\): cannot reach/m, 'svcc shows the failure with its label')
  await hung.close() // the hung parent's connection ends: its sync fails, and the call answers
  t.match(await syncAll, { status: 200 }, 'sync with all parents answered once the last of them ended')
})

/**
 * TAK (RFC 9691) and the trust anchor's key roll end to end (issue 13 item 4): rpki-client 9.7 accepts the TAK (its
 * `taks` count) and the relying parties validate the tree with no warning, over RRDP only and rsync only, before the
 * roll, during it (current TAL), after activation and after the old key is retired (the successor's TAL, fetched from
 * /ta/ta-next.tal during the roll), with the VRPs unchanged.
 *
 *   ta (key 1 → key 2) ── testbed ── ca1 (ROAs)
 */
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { httpsGet } from '../helpers/daemon.js'
import { rpMissing, validate } from '../helpers/rp.js'

const VRPS = ['AS65000,10.0.0.0/24,24', 'AS65001,2001:db8::/48,56']
const OLD_KEY_SECONDS = 60

async function taState(d: RepoDaemon): Promise<{ state: string; current: { key_id: string }; next?: { key_id: string } }> {
  return JSON.parse(await d.cli(['ta', 'keyroll', 'show', '-f', 'json']))
}

t.test('TAK accepted before, during and after a TA key roll; the tree validates from the successor TAL', { skip: rpMissing() }, async (t) => {
  const d = await repoDaemon(t, { extra: `ta_keyroll_old_key_seconds = ${OLD_KEY_SECONDS}\n`, logLevel: 'info' })
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d1.txt', 'A: 10.0.0.0/24 => 65000\nA: 2001:db8::/48-56 => 65001\n')])
  const taks = (u: string[]) => u.filter((x) => x.endsWith('.tak')).length
  await waitPublished(d, (u) => u.filter((x) => x.endsWith('.roa')).length === 2 && taks(u) === 1)
  const check = async (step: string, talUrl: string) => {
    for (const transport of ['rrdp', 'rsync'] as const) {
      const r = await validate({ talUrl, tlsCert: d.tlsCert, vrps: VRPS, transport })
      t.equal(r.code, 0, `${step}: VRPs unchanged, ${transport} only, no warnings\n${r.lines}`)
      t.equal(r.taks, 1, `${step}: rpki-client accepts the TAK (${transport})`)
    }
  }
  await check('before the roll', d.talUrl)

  await d.cli(['ta', 'keyroll', 'init'])
  const k2 = (await taState(d)).next!.key_id
  await waitPublished(d, (u) => taks(u) === 2 && u.some((x) => x.endsWith(`/ta-${k2}.cer`)))
  const nextTal = await httpsGet(`${d.url}ta/ta-next.tal`)
  t.equal(nextTal.status, 200, 'the successor TAL is served during the roll')
  await check('during the roll (the current TAL; its TAK names the successor)', d.talUrl)

  await d.cli(['ta', 'keyroll', 'activate'])
  t.equal((await taState(d)).current.key_id, k2)
  t.equal((await httpsGet(d.talUrl)).body, nextTal.body, '/ta/ta.tal is now the TAL the successor had')
  await waitPublished(d, (u) => u.filter((x) => x.endsWith('.roa')).length === 2 && u.some((x) => x.endsWith(`/0/${k2}.mft`)))
  await check('after activation, the old key still published', `${d.url}ta/ta.tal`)

  await waitFor('the old key to be retired', async () => (await taState(d)).state === 'active', (OLD_KEY_SECONDS + 60) * 1000)
  await waitPublished(d, (u) => taks(u) === 1 && !u.some((x) => x.endsWith('/ta.cer')))
  await check('after the old key is retired', `${d.url}ta/ta.tal`)
  const hist = await d.cli(['history', '-c', 'ta'])
  t.match(hist, /Initialise a trust anchor key roll/)
  t.match(hist, /Activate the successor trust anchor key/)
  t.match(hist, /Retire the previous trust anchor key/)
})

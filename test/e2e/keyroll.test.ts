/**
 * RFC 6489 key roll end to end (issue 6), relying parties validating over RRDP only and rsync only after init,
 * after activate and after the old key is gone, with the VRPs unchanged throughout:
 *
 *   ta ── testbed ── ca1 (rolls its key; ROAs) ── ca2 (child: certificate re-issued under the new key; ROA)
 */
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { rpMissing, validate } from '../helpers/rp.js'

const VRPS = ['AS65000,10.0.0.0/24,24', 'AS65001,2001:db8::/48,56', 'AS65002,10.1.0.0/24,24']

async function keys(d: RepoDaemon, ca: string): Promise<{ state: string; keys: string[] }> {
  const rc = JSON.parse(await d.cli(['show', '-c', ca, '-f', 'json'])).resource_classes['0']
  const [state, k] = Object.entries(rc.keys as Record<string, Record<string, { key_id: string }>>)[0]
  return { state, keys: Object.values(k).map((x) => x.key_id) }
}

t.test('init, activate, finish: no gap for relying parties', { skip: rpMissing() }, async (t) => {
  const d = await repoDaemon(t)
  for (const ca of ['ca1', 'ca2']) await d.cli(['add', '-c', ca])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  await waitFor('ca1 active', async () => (await keys(d, 'ca1')).state === 'active')
  await connect(d, 'ca1', d, 'ca2', { asn: 'AS65002', ipv4: '10.1.0.0/16' })
  await waitFor('ca2 active', async () => (await keys(d, 'ca2')).state === 'active')
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d1.txt', 'A: 10.0.0.0/24 => 65000\nA: 2001:db8::/48-56 => 65001\n')])
  await d.cli(['roas', 'update', '-c', 'ca2', '--delta', d.file('d2.txt', 'A: 10.1.0.0/24 => 65002\n')])
  const roaCount = (uris: string[]) => uris.filter((u) => u.endsWith('.roa')).length
  await waitPublished(d, (u) => roaCount(u) === 3)
  const check = async (step: string) => {
    for (const transport of ['rrdp', 'rsync'] as const) {
      const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: VRPS, transport })
      t.equal(r.code, 0, `${step}: VRPs unchanged, ${transport} only, no warnings\n${r.lines}`)
    }
  }
  await check('before the roll')
  const before = await keys(d, 'ca1')

  await d.cli(['keyroll', 'init', '-c', 'ca1'])
  const rolling = await waitFor('the new key to be certified', async () => {
    const k = await keys(d, 'ca1')
    return k.state === 'roll_new' ? k : undefined
  })
  t.equal(rolling.keys.length, 2)
  const newKey = rolling.keys.find((k) => !before.keys.includes(k))!
  const newUris = await waitPublished(d, (u) => u.some((x) => x.endsWith(`/ca1/0/${newKey}.mft`)))
  t.same(newUris.filter((u) => u.includes(`/ca1/0/${newKey}`)).map((u) => u.split('/').pop()).sort(), [`${newKey}.crl`, `${newKey}.mft`], 'the new key publishes only a manifest and a CRL')
  await check('after init')

  await d.cli(['keyroll', 'activate', '-c', 'ca1'])
  await waitFor('the roll to finish', async () => (await keys(d, 'ca1')).state === 'active')
  t.same((await keys(d, 'ca1')).keys, [newKey], 'the new key is current, the old one revoked')
  const done = await waitPublished(d, (u) => !u.some((x) => x.includes(`/ca1/0/${before.keys[0]}`)) && roaCount(u) === 3)
  t.ok(done.some((u) => u.endsWith(`/ca1/0/${newKey}.mft`)))
  await check('after activate and finish')
  const hist = await d.cli(['history', '-c', 'ca1'])
  t.match(hist, /Initialise key roll/)
  t.match(hist, /Activate new keys/)
})

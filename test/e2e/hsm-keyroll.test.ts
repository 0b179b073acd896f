/**
 * Keys that move between signers by key roll, end to end (issue 25 item 3): a CA rolls from the software signer into a
 * SoftHSM2 token and back, and rpki-client validates over RRDP only and rsync only before init, after init, after
 * activate and once the old key is gone, with the VRP set identical at every step; then the trust anchor rolls into the
 * token (RFC 9691) and rpki-client still validates through the TAL svcd serves.
 *
 *   ta (soft → hsm) ── testbed ── ca1 (soft → hsm → soft; ROAs) ── ca2 (child: re-issued under each new key; ROA)
 */
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { rpMissing, validate } from '../helpers/rp.js'
import { softHsm } from '../helpers/softhsm.js'

const VRPS = ['AS65000,10.0.0.0/24,24', 'AS65001,2001:db8::/48,56', 'AS65002,10.1.0.0/24,24']

interface KeysJson { resource_classes: { name: string; key_state: string; keys: { key_id: string; signer?: string; state: string }[] }[] }
const rc0 = async (d: RepoDaemon, ca: string) => (JSON.parse(await d.cli(['keyroll', 'show', '-c', ca, '-f', 'json'])) as KeysJson).resource_classes.find((rc) => rc.name === '0')!
const roaCount = (uris: string[]) => uris.filter((u) => u.endsWith('.roa')).length

t.test('a CA rolls into the HSM and back, the TA into the HSM: no VRP ever disappears', { skip: rpMissing() }, async (t) => {
  const hsm = softHsm(t, { label: 'e2e-roll' })
  const toml = `default_signer = "soft"\n[[signers]]\ntype = "OpenSSL"\nname = "soft"\n\n${hsm.signerToml('hsm')}`
  const d = await repoDaemon(t, { toml, env: hsm.env })
  for (const ca of ['ca1', 'ca2']) await d.cli(['add', '-c', ca])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  await waitFor('ca1 active', async () => (await rc0(d, 'ca1')).key_state === 'active')
  await connect(d, 'ca1', d, 'ca2', { asn: 'AS65002', ipv4: '10.1.0.0/16' })
  await waitFor('ca2 active', async () => (await rc0(d, 'ca2')).key_state === 'active')
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d1.txt', 'A: 10.0.0.0/24 => 65000\nA: 2001:db8::/48-56 => 65001\n')])
  await d.cli(['roas', 'update', '-c', 'ca2', '--delta', d.file('d2.txt', 'A: 10.1.0.0/24 => 65002\n')])
  await waitPublished(d, (u) => roaCount(u) === 3)
  const check = async (step: string) => {
    for (const transport of ['rrdp', 'rsync'] as const) {
      const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: VRPS, transport })
      t.equal(r.code, 0, `${step}: the same VRPs, ${transport} only, no warnings\n${r.lines}`)
    }
  }
  await check('before the rolls')

  for (const signer of ['hsm', 'soft']) {
    const old = (await rc0(d, 'ca1')).keys[0]!
    t.not(old.signer, signer)
    await d.cli(['keyroll', 'init', '-c', 'ca1', '--signer', signer])
    const fresh = await waitFor(`the new ${signer} key certified`, async () => {
      const rc = await rc0(d, 'ca1')
      return rc.key_state === 'roll_new' ? rc.keys.find((k) => k.state === 'new') : undefined
    })
    t.equal(fresh.signer, signer, `the new key is in ${signer}`)
    await waitPublished(d, (u) => u.some((x) => x.endsWith(`/ca1/0/${fresh.key_id}.mft`)))
    await check(`${signer}: after init`)
    await d.cli(['keyroll', 'activate', '-c', 'ca1'])
    await waitPublished(d, (u) => roaCount(u) === 3 && u.some((x) => x.endsWith(`/ca1/0/${fresh.key_id}.mft`)))
    await check(`${signer}: after activate`)
    await waitFor('the roll to finish', async () => (await rc0(d, 'ca1')).key_state === 'active')
    await waitPublished(d, (u) => !u.some((x) => x.includes(`/ca1/0/${old.key_id}`)) && roaCount(u) === 3)
    t.same((await rc0(d, 'ca1')).keys.map((k) => [k.key_id, k.signer]), [[fresh.key_id, signer]])
    await check(`${signer}: the old key gone`)
  }

  // The trust anchor into the token: rpki-client follows the TAL svcd serves.
  await d.cli(['ta', 'keyroll', 'init', '--signer', 'hsm'])
  const next = (JSON.parse(await d.cli(['ta', 'keyroll', 'show', '-f', 'json'])) as { next: { key_id: string; signer?: string } }).next
  t.equal(next.signer, 'hsm')
  await check('TA successor published')
  await d.cli(['ta', 'keyroll', 'activate'])
  const ta = JSON.parse(await d.cli(['ta', 'keyroll', 'show', '-f', 'json'])) as { current: { key_id: string; signer?: string } }
  t.same([ta.current.key_id, ta.current.signer], [next.key_id, 'hsm'])
  await waitPublished(d, (u) => roaCount(u) === 3)
  await check('TA key in the token')
})

/**
 * Keys that move by key roll (issue 25 items 3 and 6) on a real svcd with two signers: the software one ("soft", the
 * default) and a SoftHSM2 token ("hsm"). `svcc keyroll init --signer hsm` makes the new key in the token, `show`,
 * `keyroll show` and `signers` name each key's signer, /metrics counts per signer; then the CA rolls back to the
 * software signer. Refusals (an unknown signer: 400; the token away: 503) change nothing.
 *
 *   ta ── testbed ── ca1 (soft → hsm → soft; ROAs)
 */
import t, { type Test } from 'tap'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js'
import { softHsm } from '../helpers/softhsm.js'

interface KeysJson { handle: string; resource_classes: { name: string; key_state: string; keys: { key_id: string; signer?: string; state: string; cert: { not_after: string } | null }[] }[] }
interface SignersJson { signers: { name: string; type: string; handle: string | null; default: boolean; one_off: boolean; token_label?: string; keys: number; available: boolean; problem: { label: string } | null; operations: { sign: number; keygen: number } }[] }

const keysOf = async (d: RepoDaemon, ca: string) => JSON.parse(await d.cli(['keyroll', 'show', '-c', ca, '-f', 'json'])) as KeysJson
const signers = async (d: RepoDaemon) => JSON.parse(await d.cli(['signers', '-f', 'json'])) as SignersJson
const rc0 = (k: KeysJson) => k.resource_classes.find((rc) => rc.name === '0')!

async function metrics(d: RepoDaemon) {
  const r = await httpsRequest(`${d.url}metrics`, { headers: { Authorization: `Bearer ${d.token}` } })
  if (r.status !== 200) throw new Error(`GET /metrics: ${r.status}`)
  return parsePrometheusText(r.body)
}

/** Roll ca1 into `signer` and finish: answers the new key id. */
async function rollInto(t: Test, d: RepoDaemon, signer: string): Promise<string> {
  const before = rc0(await keysOf(d, 'ca1')).keys.map((k) => k.key_id)
  await d.cli(['keyroll', 'init', '-c', 'ca1', '--signer', signer])
  const rolling = await waitFor('the new key certified', async () => {
    const rc = rc0(await keysOf(d, 'ca1'))
    return rc.key_state === 'roll_new' ? rc : undefined
  })
  const fresh = rolling.keys.find((k) => k.state === 'new')!
  t.equal(fresh.signer, signer, `the new key is in ${signer}`)
  t.ok(fresh.cert?.not_after, 'certified by the parent')
  const shown = JSON.parse(await d.cli(['show', '-c', 'ca1', '-f', 'json'])).resource_classes['0'].keys.roll_new
  t.equal(shown.new_key.signer, signer, 'svcc show: the new key with its signer')
  t.equal(shown.active_key.key_id, before[0])
  t.match(await d.cli(['keyroll', 'show', '-c', 'ca1']), new RegExp(`new +${fresh.key_id}  signer ${signer} `), 'text report')
  await d.cli(['keyroll', 'activate', '-c', 'ca1'])
  await waitFor('the roll to finish', async () => rc0(await keysOf(d, 'ca1')).key_state === 'active')
  const after = rc0(await keysOf(d, 'ca1'))
  t.same(after.keys.map((k) => [k.key_id, k.signer, k.state]), [[fresh.key_id, signer, 'active']], 'only the new key is left')
  await waitPublished(d, (u) => !u.some((x) => x.includes(`/ca1/0/${before[0]}`)) && u.some((x) => x.endsWith(`/ca1/0/${fresh.key_id}.mft`)) && u.filter((x) => x.includes('/ca1/0/') && x.endsWith('.roa')).length === 2)
  return fresh.key_id
}

t.test('a CA rolls its keys into the token and back; each key shows its signer', async (t) => {
  const hsm = softHsm(t, { label: 'keyroll' })
  const toml = `default_signer = "soft"\n[[signers]]\ntype = "OpenSSL"\nname = "soft"\n\n${hsm.signerToml('hsm', 'check_seconds = 1\nretry_seconds = 1\nmax_retry_seconds = 2')}`
  const d = await repoDaemon(t, { toml, env: hsm.env })
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  await waitFor('ca1 active', async () => rc0(await keysOf(d, 'ca1')).key_state === 'active')
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d1.txt', 'A: 10.0.0.0/24 => 65000\nA: 2001:db8::/48-56 => 65001\n')])
  await waitPublished(d, (u) => u.filter((x) => x.includes('/ca1/0/') && x.endsWith('.roa')).length === 2)
  const first = rc0(await keysOf(d, 'ca1')).keys[0]!
  t.equal(first.signer, 'soft', 'the first key is in the default signer')

  // svcc signers: both, with their roles; the token's label, never its PIN.
  const list = await signers(d)
  t.same(list.signers.map((s) => [s.name, s.type, s.default, s.available]), [['soft', 'OpenSSL', true, true], ['hsm', 'PKCS#11', false, true]])
  const hsmRow = list.signers[1]!
  t.equal(hsmRow.token_label, 'keyroll')
  t.equal(hsmRow.keys, 0, 'nothing in the token yet')
  t.ok(hsmRow.handle, 'the handle kept in the token')
  const text = await d.cli(['signers'])
  t.match(text, /^soft \(OpenSSL; default, one-off\) handle openssl, \d+ keys, available$/m)
  t.notMatch(JSON.stringify(list) + text, new RegExp(hsm.pin), 'the PIN is never shown')

  // Refusals change nothing: an unknown signer (400), a bad body, the token away (503).
  const show0 = await keysOf(d, 'ca1')
  const unknown = await d.run(['keyroll', 'init', '-c', 'ca1', '--signer', 'nope'])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /signer-unknown/)
  const bad = await httpsRequest(`${d.url}api/v1/cas/ca1/keys/roll_init`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: '{"signer":7}' })
  t.equal(bad.status, 400)
  t.equal(JSON.parse(bad.body).label, 'api-invalid-body')
  const api = await d.run(['keyroll', 'init', '-c', 'ca1', '--signer', 'hsm', '--api'])
  t.match(api.stdout, /^POST \S+\/api\/v1\/cas\/ca1\/keys\/roll_init\n[^]*"signer": "hsm"/, '--api shows the body')
  hsm.away()
  await waitFor('the token to be missed', async () => (await signers(d)).signers[1]!.available === false)
  const away = await httpsRequest(`${d.url}api/v1/cas/ca1/keys/roll_init`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: '{"signer":"hsm"}' })
  t.equal(away.status, 503)
  t.match(JSON.parse(away.body).label, /^sys-signer-/)
  t.equal(sampleValue(await metrics(d), 'svc_signer_available', { signer: 'hsm' }), 0, 'svc_signer_available 0 meanwhile')
  hsm.back()
  await waitFor('the token back', async () => (await signers(d)).signers[1]!.available === true)
  t.same(await keysOf(d, 'ca1'), show0, 'nothing changed by the refusals')

  // Software → token → software.
  const inHsm = await rollInto(t, d, 'hsm')
  const m = await metrics(d)
  t.equal(sampleValue(m, 'svc_signer_keys', { signer: 'hsm' }), 1, 'svc_signer_keys: one key in the token')
  t.ok((sampleValue(m, 'svc_signer_operations_total', { signer: 'hsm', operation: 'sign' }) ?? 0) > 0, 'signatures made in the token')
  t.ok((sampleValue(m, 'svc_signer_operations_total', { signer: 'hsm', operation: 'keygen' }) ?? 0) >= 1, 'the key generated in the token')
  t.equal(sampleValue(m, 'svc_signer_available', { signer: 'soft' }), 1)
  t.ok(sampleValue(m, 'svc_signer_errors_total', { signer: 'soft', operation: 'sign' }) !== undefined, 'error counters for every signer')
  t.equal((await signers(d)).signers[1]!.keys, 1)
  const back = await rollInto(t, d, 'soft')
  t.not(back, inHsm)
  const hist = await d.cli(['history', '-c', 'ca1'])
  t.match(hist, /new keys in signer 'hsm'/, 'the history names the signer')
  t.match(hist, /new keys in signer 'soft'/)
  // Krill's call without a body still rolls into the default signer.
  const plain = await httpsRequest(`${d.url}api/v1/cas/ca1/keys/roll_init`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}` } })
  t.equal(plain.status, 200)
  const rolling = await waitFor('a new key', async () => rc0(await keysOf(d, 'ca1')).keys.find((k) => k.state === 'new'))
  t.equal(rolling.signer, 'soft', 'without a body: default_signer')
})

t.test('the TA rolls into the token (svcc ta keyroll init --signer)', async (t) => {
  const hsm = softHsm(t, { label: 'ta-roll' })
  const toml = `default_signer = "soft"\n[[signers]]\ntype = "OpenSSL"\nname = "soft"\n\n${hsm.signerToml('hsm')}`
  const d = await repoDaemon(t, { toml, env: hsm.env })
  const show = async () => JSON.parse(await d.cli(['ta', 'keyroll', 'show', '-f', 'json'])) as { state: string; current: { key_id: string; signer?: string }; next?: { key_id: string; signer?: string } }
  t.equal((await show()).current.signer, 'soft')
  const unknown = await d.run(['ta', 'keyroll', 'init', '--signer', 'nope'])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /signer-unknown/)
  t.equal((await show()).state, 'active', 'nothing changed')
  await d.cli(['ta', 'keyroll', 'init', '--signer', 'hsm'])
  const rolling = await show()
  t.equal(rolling.next?.signer, 'hsm', 'the successor key is in the token')
  t.match(await d.cli(['ta', 'keyroll', 'show']), new RegExp(`Successor key: ${rolling.next!.key_id}\\n  signer: hsm\\n`))
  await d.cli(['ta', 'keyroll', 'activate'])
  const after = await show()
  t.equal(after.current.key_id, rolling.next!.key_id)
  t.equal(after.current.signer, 'hsm')
  // testbed is a normal CA: its RFC 6489 roll takes --signer too.
  await d.cli(['keyroll', 'init', '-c', 'testbed', '--signer', 'hsm'])
  const tb = await waitFor('testbed new key', async () => rc0(await keysOf(d, 'testbed')).keys.find((k) => k.state === 'new' && k.cert))
  t.equal(tb.signer, 'hsm')
  await d.cli(['keyroll', 'activate', '-c', 'testbed'])
  await waitFor('testbed roll finished', async () => rc0(await keysOf(d, 'testbed')).key_state === 'active')
  t.equal(rc0(await keysOf(d, 'testbed')).keys[0]!.signer, 'hsm')
})

/**
 * The embedded trust anchor's key roll through svcc and the API (issue 13 item 4, RFC 9691): `svcc ta keyroll
 * show|init|activate` (text, JSON, --api), the TAK objects in RRDP and rsync, the successor's TAL and certificate served
 * without a token, refusals with their labels and exit code 1 with nothing changed, the history, the state across a
 * restart, and the old key retired after `[testbed] ta_keyroll_old_key_seconds`.
 *
 *   ta (key 1 → key 2) ── testbed
 */
import t from 'tap'
import { decodeCert } from '../../src/objects/cert.js'
import { decodeTal } from '../../src/objects/tal.js'
import { keyIdentifier } from '../../src/crypto/key-id.js'
import { toHex } from '../../src/util/hex.js'
import { repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'

const keyId = (spki: Uint8Array) => toHex(keyIdentifier(spki)).toUpperCase()
const get = (d: RepoDaemon, path: string, auth = false) => httpsRequest(`${d.url}${path}`, { binary: true, ...(auth ? { headers: { Authorization: `Bearer ${d.token}` } } : {}) })
const talKey = async (d: RepoDaemon, path: string) => keyId(decodeTal(new Uint8Array((await get(d, path)).raw)).spki)
const taks = (uris: string[]) => uris.filter((u) => u.endsWith('.tak')).map((u) => u.split('/').pop()!).sort()
const show = async (d: RepoDaemon) => JSON.parse(await d.cli(['ta', 'keyroll', 'show', '-f', 'json'])) as { state: string; current: { key_id: string; uris: string[]; tal_uri?: string }; next?: { key_id: string; tal_uri?: string }; old?: { key_id: string; retire_at: string } }

t.test('TA key roll: show, init, activate, retire; refusals change nothing; the state survives a restart', async (t) => {
  const extra = 'ta_keyroll_old_key_seconds = 15\n'
  let d = await repoDaemon(t, { extra, logLevel: 'info' })
  const before = await show(d)
  t.equal(before.state, 'active')
  t.equal(before.current.tal_uri, `${d.url}ta/ta.tal`)
  t.same(before.current.uris, [`${d.url}ta/ta.cer`, `${d.rsyncBase}ta/ta.cer`], 'https, then rsync (as in the TAL)')
  const k1 = before.current.key_id
  t.equal(await talKey(d, 'ta/ta.tal'), k1)
  t.match(await d.cli(['ta', 'keyroll', 'show']), new RegExp(`^State: active\\nCurrent key: ${k1}\\n`), 'text report')
  t.same(taks(await waitPublished(d, (u) => taks(u).length === 1)), [`${k1}.tak`], 'a TAK naming the current key at all times')

  // Refusals before init: exit code 1 with the label; nothing changed (keys, published files; the history records the refusal).
  const files0 = await waitPublished(d, () => true)
  const noInit = await d.run(['ta', 'keyroll', 'activate'])
  t.equal(noInit.code, 1, 'activate without init: exit code 1')
  t.match(noInit.stderr, /key-roll-disallowed/)
  t.match(noInit.stderr, /no TA key roll is in progress/)
  const rfc6489 = await d.run(['keyroll', 'init', '-c', 'ta'])
  t.equal(rfc6489.code, 1)
  t.match(rfc6489.stderr, /svcc ta keyroll init/, 'the RFC 6489 roll points at the TA key roll')
  t.equal((await d.run(['ta', 'keyroll', 'init', 'extra'])).code, 2, 'a stray argument: usage error')
  t.equal((await d.run(['ta', 'keyroll', 'init', '--bogus'])).code, 2, 'an unknown option: usage error')
  const withBody = await httpsRequest(`${d.url}api/v1/ta/keyroll/init`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: '{"x":1}' })
  t.equal(withBody.status, 400)
  t.equal(JSON.parse(withBody.body).label, 'api-invalid-body', 'the body may only name a signer (issue 25)')
  t.equal((await httpsRequest(`${d.url}api/v1/ta/keyroll/init`, { method: 'POST' })).status, 401, 'the API needs the token')
  t.equal((await get(d, 'ta/ta-next.tal')).status, 404, 'no successor TAL before init')
  t.same(await show(d), before, 'the keys unchanged')
  t.same(await waitPublished(d, () => true), files0, 'the published files unchanged')
  const api = await d.run(['ta', 'keyroll', 'init', '--api'])
  t.equal(api.code, 0)
  t.match(api.stdout, /POST .*\/api\/v1\/ta\/keyroll\/init/, '--api prints the call')
  t.same(await show(d), before, '--api sends nothing')

  // init: a successor with its own certificate and TAL; each key's TAK names the other.
  await d.cli(['ta', 'keyroll', 'init'])
  const rolling = await show(d)
  t.equal(rolling.state, 'roll_new')
  const k2 = rolling.next!.key_id
  t.not(k2, k1)
  t.equal(rolling.next!.tal_uri, `${d.url}ta/ta-next.tal`)
  t.equal(await talKey(d, 'ta/ta-next.tal'), k2, 'the successor TAL, public')
  const cert2 = await get(d, `ta/ta-${k2}.cer`)
  t.equal(cert2.status, 200, "the successor's certificate, public")
  t.equal(keyId(decodeCert(new Uint8Array(cert2.raw)).spki), k2)
  t.equal(keyId(decodeCert(new Uint8Array((await get(d, 'ta/ta.cer')).raw)).spki), k1, 'ta.cer is still the current key')
  t.equal(await talKey(d, 'ta/ta.tal'), k1, 'ta.tal is still the current key')
  for (const p of [`ta/ta-${k2.toLowerCase()}.cer`, 'ta/ta-0000000000000000000000000000000000000000.cer', 'ta/ta-x.cer']) t.equal((await get(d, p)).status, 404, `${p}: 404`)
  for (const p of ['ta/TA-NEXT.TAL', 'ta/notes.txt', `ta/ta-${k2}.key`]) t.equal((await get(d, p)).status, 401, `${p}: not public`)
  const during = await waitPublished(d, (u) => taks(u).length === 2 && u.some((x) => x.endsWith(`ta/ta-${k2}.cer`)))
  t.same(taks(during), [`${k1}.tak`, `${k2}.tak`].sort(), 'a TAK under each key')
  const twice = await d.run(['ta', 'keyroll', 'init'])
  t.equal(twice.code, 1, 'init twice: exit code 1')
  t.match(twice.stderr, /key-roll-disallowed/)
  t.same(await show(d), rolling, 'nothing changed')
  t.match(await d.cli(['history', '-c', 'ta']), /Initialise a trust anchor key roll/)

  // The roll survives a restart.
  await d.stop()
  d = await repoDaemon(t, { extra, logLevel: 'info', dataDir: d.dataDir, ports: { port: d.port, rsync: d.rsyncPort } })
  t.same(await show(d), rolling, 'the same keys after a restart')
  t.equal(await talKey(d, 'ta/ta-next.tal'), k2)

  // activate: the successor is current; the old key stays published, then is retired.
  await d.cli(['ta', 'keyroll', 'activate'])
  const again = await d.run(['ta', 'keyroll', 'init'])
  t.equal(again.code, 1, 'no new roll while the old key is published')
  t.match(again.stderr, /still published/)
  const active = await show(d)
  t.equal(active.state, 'roll_old')
  t.equal(active.current.key_id, k2)
  t.equal(active.old!.key_id, k1)
  t.equal(await talKey(d, 'ta/ta.tal'), k2, 'the served TAL is the new one')
  t.equal((await get(d, 'ta/ta-next.tal')).status, 404, 'no successor any more')
  t.equal(keyId(decodeCert(new Uint8Array((await get(d, 'ta/ta.cer')).raw)).spki), k1, "ta.cer stays the old key's while it is published")
  const retired = await waitFor('the old key to be retired', async () => ((await show(d)).state === 'active' ? show(d) : undefined), 30_000)
  t.equal(retired.current.key_id, k2)
  const after = await waitPublished(d, (u) => taks(u).length === 1 && !u.some((x) => x.includes(k1)))
  t.same(taks(after), [`${k2}.tak`], "the old key's TAK, manifest, CRL and certificate withdrawn")
  t.equal((await get(d, 'ta/ta.cer')).status, 404)
  const hist = await d.cli(['history', '-c', 'ta'])
  t.match(hist, /Activate the successor trust anchor key/)
  t.match(hist, /Retire the previous trust anchor key/)
})

t.test('without the testbed there is no trust anchor to roll', async (t) => {
  const d = await repoDaemon(t, { testbed: false, logLevel: 'info' })
  for (const args of [['ta', 'keyroll', 'show'], ['ta', 'keyroll', 'init'], ['ta', 'keyroll', 'activate']]) {
    const r = await d.run(args)
    t.equal(r.code, 1, `${args.join(' ')}: exit code 1`)
    t.match(r.stderr, /ca-unknown/)
  }
  t.equal((await get(d, 'ta/ta-next.tal')).status, 404)
})

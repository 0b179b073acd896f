/**
 * BGPsec router keys through svcc and the API (issue 13 item 2, krill-reference.md §1.1 "BGPsec"): add from a PEM and
 * a DER request, list (text and JSON), remove; every refusal a labelled error with exit code 1 and nothing changed;
 * `--api`; the history; the router certificate published and withdrawn in RRDP and rsync.
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8)
 */
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { pem, routerCsr, routerKey } from '../helpers/router.js'

t.test('router keys: add, list, refusals, remove; published and withdrawn', async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  const routers = (uris: string[]) => uris.filter((u) => /\/ROUTER-[0-9A-F]{8}-[0-9A-F]{40}\.cer$/.test(u)).map((u) => u.split('/').pop()!)
  const derFile = (name: string, der: Uint8Array) => {
    const p = d.file(name, '')
    writeFileSync(p, der)
    return p
  }

  const k1 = routerKey()
  const k2 = routerKey()
  t.equal(await d.cli(['bgpsec', 'list', '-c', 'ca1']), '', 'none at first')
  await d.cli(['bgpsec', 'add', '-c', 'ca1', '--asn', 'AS65000', '--csr', d.file('r1.pem', pem(routerCsr(k1)))])
  await d.cli(['bgpsec', 'add', '-c', 'ca1', '--asn', '65001', '--csr', derFile('r2.der', routerCsr(k2))])
  t.equal((await d.cli(['bgpsec', 'list', '-c', 'ca1'])).trim(), `AS65000 ${k1.keyId}\nAS65001 ${k2.keyId}`)
  const listed = JSON.parse(await d.cli(['bgpsec', 'list', '-c', 'ca1', '-f', 'json']))
  t.match(listed, [{ asn: 65000, key_identifier: k1.keyId }, { asn: 65001, key_identifier: k2.keyId }], "Krill's JSON")
  t.equal(Buffer.from(listed[1].csr, 'base64').length > 100, true, 'the request, base64 DER')
  const published = await waitPublished(d, (u) => routers(u).length === 2)
  t.same(routers(published).sort(), [`ROUTER-0000FDE8-${k1.keyId}.cer`, `ROUTER-0000FDE9-${k2.keyId}.cer`].sort())

  // Refusals: exit code 1 with the label; definitions and published files unchanged.
  const listBefore = await d.cli(['bgpsec', 'list', '-c', 'ca1', '-f', 'json'])
  const filesBefore = await waitPublished(d, () => true)
  const refusals: [string[], string][] = [
    [['bgpsec', 'add', '--asn', 'AS65002', '--csr', d.file('garbage.der', 'not a request')], 'ca-bgpsec-csr-invalid'],
    [['bgpsec', 'add', '--asn', 'AS65002', '--csr', derFile('p384.der', routerCsr(routerKey('P-384')))], 'ca-bgpsec-csr-invalid'],
    [['bgpsec', 'add', '--asn', 'AS65002', '--csr', derFile('forged.der', routerCsr(routerKey(), { signer: k1.privateKey }))], 'ca-bgpsec-invalidly-signed'],
    [['bgpsec', 'add', '--asn', 'AS64000', '--csr', derFile('r3.der', routerCsr(routerKey()))], 'ca-bgpsec-not-entitled'],
    [['bgpsec', 'remove', '--asn', 'AS65002', '--key', k1.keyId], 'ca-bgpsec-unknown'],
  ]
  for (const [args, label] of refusals) {
    const r = await d.run([...args, '-c', 'ca1'])
    t.equal(r.code, 1, `${args.slice(0, 4).join(' ')}: exit code 1`)
    t.match(r.stderr, label, `${args.slice(0, 4).join(' ')}: ${label}`)
  }
  const api = (body: unknown) => httpsRequest(`${d.url}api/v1/cas/ca1/bgpsec`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  t.equal(JSON.parse((await api({ add: [], remove: ['ROUTER-65000'] })).body).label, 'api-invalid-body')
  t.equal(JSON.parse((await api({ add: [{ asn: -1, csr: 'AAAA' }], remove: [] })).body).label, 'api-invalid-body')
  const usage = await d.run(['bgpsec', 'remove', '-c', 'ca1', '--asn', 'AS65000', '--key', 'xyz'])
  t.equal(usage.code, 2, 'a key that is no key identifier is a usage error')
  t.equal((await d.run(['bgpsec', 'add', '-c', 'ca1', '--asn', 'AS65000', '--csr', '/nonexistent'])).code, 2, 'an unreadable file is a usage error')
  t.equal(await d.cli(['bgpsec', 'list', '-c', 'ca1', '-f', 'json']), listBefore, 'definitions unchanged')
  t.same(await waitPublished(d, () => true), filesBefore, 'published files unchanged')

  const printed = await d.cli(['bgpsec', 'remove', '-c', 'ca1', '--asn', 'AS65000', '--key', k1.keyId.toLowerCase(), '--api'])
  t.match(printed, /^POST https:\/\/\S+\/api\/v1\/cas\/ca1\/bgpsec\n/)
  t.same(JSON.parse(printed.slice(printed.indexOf('{'))), { add: [], remove: [`ROUTER-0000FDE8-${k1.keyId}`] })

  await d.cli(['bgpsec', 'remove', '-c', 'ca1', '--asn', 'AS65000', '--key', k1.keyId.toLowerCase()])
  t.equal((await d.cli(['bgpsec', 'list', '-c', 'ca1'])).trim(), `AS65001 ${k2.keyId}`)
  const after = await waitPublished(d, (u) => routers(u).length === 1)
  t.same(routers(after), [`ROUTER-0000FDE9-${k2.keyId}.cer`], 'withdrawn')

  const lines = (await d.cli(['history', '-c', 'ca1'])).trim().split('\n').map((l) => l.split('::'))
  const ok = lines.filter((p) => /BGPsec/.test(p[1]!) && p[3]!.startsWith('OK')).map((p) => p[1])
  t.same(ok, ['Update BGPsec router keys: add a router key for AS65000', 'Update BGPsec router keys: add a router key for AS65001', `Update BGPsec router keys: remove 'ROUTER-0000FDE8-${k1.keyId}'`])
  t.equal(lines.filter((p) => /BGPsec/.test(p[1]!) && !p[3]!.startsWith('OK')).length, refusals.length, 'refusals recorded as errors (bad bodies never reach the CA)')
  const key = lines.find((p) => /remove 'ROUTER/.test(p[1]!) && p[3]!.startsWith('OK'))![2]!
  t.match(await d.cli(['action', '-c', 'ca1', '--key', key]), `removed router key ROUTER-0000FDE8-${k1.keyId}`)
})

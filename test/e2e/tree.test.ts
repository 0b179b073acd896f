/**
 * A deeper tree (issue 5), validated by all three relying parties over RRDP and rsync:
 *
 *   ta ── testbed ─┬─ ca1 (10.0.0.0/8, AS65000-65099) ── ca2 (10.1.0.0/16, AS65010)
 *                  └─ ca3 (192.168.0.0/16)             ── multi: parents ca1 (10.2.0.0/16) and ca3 (192.168.1.0/24)
 */
import t from 'tap'
import { caObjects, connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { rpMissing, validate } from '../helpers/rp.js'
import { validateWithSchema, xmllintMissing } from '../helpers/xmllint.js'

t.test('three levels and a CA with two parents', { skip: rpMissing() }, async (t) => {
  const d = await repoDaemon(t)
  for (const ca of ['ca1', 'ca2', 'ca3', 'multi']) await d.cli(['add', '-c', ca])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65099', ipv4: '10.0.0.0/8' })
  await connect(d, 'testbed', d, 'ca3', { ipv4: '192.168.0.0/16' })
  await waitFor('ca1 and ca3 certified', async () => (await caObjects(d, 'ca1')).active === 1 && (await caObjects(d, 'ca3')).active === 1)
  await connect(d, 'ca1', d, 'ca2', { asn: 'AS65010', ipv4: '10.1.0.0/16' })
  await connect(d, 'ca1', d, 'multi', { ipv4: '10.2.0.0/16' })
  await connect(d, 'ca3', d, 'multi', { ipv4: '192.168.1.0/24' })
  await waitFor('ca2 and multi certified', async () => (await caObjects(d, 'ca2')).active === 1 && (await caObjects(d, 'multi')).active === 2)

  const multi = JSON.parse(await d.cli(['show', '-c', 'multi', '-f', 'json']))
  t.same(multi.parents.map((p: { handle: string }) => p.handle), ['ca1', 'ca3'])
  t.equal(multi.resources.ipv4, '10.2.0.0/16, 192.168.1.0/24', 'resources from both parents')

  await d.cli(['roas', 'update', '-c', 'ca2', '--delta', d.file('d2.txt', 'A: 10.1.0.0/16-24 => 65010\n')])
  await d.cli(['roas', 'update', '-c', 'multi', '--delta', d.file('dm.txt', 'A: 10.2.0.0/16 => 65020\nA: 192.168.1.0/24 => 65021\n')])
  const tooMuch = await d.run(['roas', 'update', '-c', 'ca2', '--delta', d.file('bad.txt', 'A: 10.2.0.0/16 => 65010\n')])
  t.equal(tooMuch.code, 1, 'a ROA for a prefix ca2 does not hold is refused')
  t.match(tooMuch.stderr, /ca-roa-delta-error/)
  t.match(tooMuch.stderr, /line 1: A: 10\.2\.0\.0\/16 => 65010: the CA does not hold this prefix/, 'the text names the line and why')
  await waitPublished(d, (uris) => uris.filter((u) => /\/(ca2|multi)\//.test(u) && u.endsWith('.roa')).length === 3)

  const vrps = ['AS65010,10.1.0.0/16,24', 'AS65020,10.2.0.0/16,16', 'AS65021,192.168.1.0/24,24']
  for (const transport of ['rrdp', 'rsync'] as const) {
    const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps, transport })
    t.equal(r.code, 0, `the whole tree validates, ${transport} only\n${r.lines}`)
  }
})

t.test('RFC 8183 documents svcc prints validate against the RFC 8183 schema', { skip: xmllintMissing() }, async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  const childRequest = await d.cli(['parents', 'request', '-c', 'ca1'])
  const publisherRequest = await d.cli(['repo', 'request', '-c', 'ca1'])
  const parentResponse = await d.cli(['children', 'add', '-c', 'testbed', '--child', 'ca1', '--request', d.file('r.xml', childRequest), '-4', '10.0.0.0/8'])
  const repositoryResponse = await d.cli(['publishers', 'response', '-p', 'ca1'])
  for (const [name, xml] of Object.entries({ childRequest, publisherRequest, parentResponse, repositoryResponse })) {
    const v = validateWithSchema(xml, 'rfc8183')
    t.ok(v.ok, `${name} validates: ${v.output}`)
  }
  t.equal(await d.cli(['children', 'response', '-c', 'testbed', '--child', 'ca1']), parentResponse)
  // The JSON forms (Krill's id/*_request.json): the same handle and identity certificate.
  const childJson = JSON.parse(await d.cli(['parents', 'request', '-c', 'ca1', '-f', 'json']))
  t.same(JSON.parse(await d.cli(['repo', 'request', '-c', 'ca1', '-f', 'json'])), { publisher_handle: 'ca1', id_cert: childJson.id_cert, tag: null })
})

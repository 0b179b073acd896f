/**
 * ASPA management through svcc and the API (issue 13 item 1, krill-reference.md §1.1 "ASPA"): add, list (text and
 * JSON), update, remove and DELETE; every refusal a labelled error with exit code 1 and nothing changed (definitions,
 * published files); `--api`; the history with what changed; the ASPA object published and withdrawn in RRDP and rsync.
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8)
 */
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'

t.test('ASPA definitions: add, update, refusals, remove; published and withdrawn', async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  const api = (path: string, method = 'GET', body?: string) => httpsRequest(`${d.url}api/v1/cas/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body } : {}) })
  const asa = (uris: string[]) => uris.filter((u) => u.endsWith('.asa')).map((u) => u.split('/').slice(-3).join('/'))

  t.equal(await d.cli(['aspas', 'list', '-c', 'ca1']), '', 'none at first')
  await d.cli(['aspas', 'add', '-c', 'ca1', '--aspa', 'AS65000 => AS65002, AS65001'])
  t.equal((await d.cli(['aspas', 'list', '-c', 'ca1'])).trim(), 'AS65000 => AS65001, AS65002', 'providers ascending')
  t.same(JSON.parse(await d.cli(['aspas', 'list', '-c', 'ca1', '-f', 'json'])), [{ customer: 65000, providers: [65001, 65002] }], "Krill's JSON")
  const published = await waitPublished(d, (u) => asa(u).length === 1)
  t.same(asa(published), ['ca1/0/AS65000.asa'], 'one ASPA object, named after the customer')

  await d.cli(['aspas', 'update', '-c', 'ca1', '--customer', 'AS65000', '--add', 'AS65005', '--remove', 'AS65001'])
  t.equal((await d.cli(['aspas', 'list', '-c', 'ca1'])).trim(), 'AS65000 => AS65002, AS65005')

  // Refusals: exit code 1 with the label, the definitions and the published files unchanged.
  const listBefore = await d.cli(['aspas', 'list', '-c', 'ca1', '-f', 'json'])
  const filesBefore = await waitPublished(d, () => true)
  const refusals: [string[], string][] = [
    [['aspas', 'add', '--aspa', 'AS64000 => AS65001'], 'ca-aspa-not-entitled'],
    [['aspas', 'add', '--aspa', 'AS65001 => AS65001, AS65002'], 'ca-aspa-customer-as-provider'],
    [['aspas', 'add', '--aspa', 'AS65001 => AS65002, AS65002'], 'ca-aspa-provider-duplicates'],
    [['aspas', 'add', '--aspa', 'AS65001 =>'], 'ca-aspa-provider-as-empty'],
    [['aspas', 'add', '--aspa', 'AS65001 => AS0, AS65002'], 'ca-aspa-provider-as0'],
    [['aspas', 'remove', '--customer', 'AS65009'], 'ca-aspa-unknown-customer-as'],
    [['aspas', 'update', '--customer', 'AS65000', '--add', 'AS65000'], 'ca-aspa-customer-as-provider'],
    [['aspas', 'update', '--customer', 'AS65009', '--remove', 'AS65001'], 'ca-aspa-unknown-customer-as'],
    [['aspas', 'update', '--customer', 'AS65000', '--add', 'AS0'], 'ca-aspa-provider-as0'],
  ]
  for (const [args, label] of refusals) {
    const r = await d.run([...args, '-c', 'ca1'])
    t.equal(r.code, 1, `${args.join(' ')}: exit code 1`)
    t.match(r.stderr, label, `${args.join(' ')}: ${label}`)
  }
  const json = await d.run(['aspas', 'add', '-c', 'ca1', '--aspa', 'AS64000 => AS65001', '-f', 'json'])
  t.match(JSON.parse(json.stderr), { label: 'ca-aspa-not-entitled', args: { ca: 'ca1', customer: 'AS64000' } }, 'the error body with --format json')
  const dup = await api('ca1/aspas', 'POST', JSON.stringify({ add_or_replace: [{ customer: 65001, providers: [65002] }, { customer: 65001, providers: [65003] }], remove: [] }))
  t.equal(dup.status, 400)
  t.equal(JSON.parse(dup.body).label, 'ca-aspa-customer-as-duplicate')
  const badBody = await api('ca1/aspas', 'POST', JSON.stringify({ add_or_replace: [{ customer: 'AS65001', providers: [65002] }], remove: [] }))
  t.equal(JSON.parse(badBody.body).label, 'api-invalid-body')
  t.equal(JSON.parse((await api('ca1/aspas', 'POST', JSON.stringify({ add_or_replace: [], remove: [4294967296] }))).body).label, 'api-invalid-body', 'ASNs are 32 bits')
  t.equal(JSON.parse((await api('ca1/aspas/as/nonsense', 'DELETE')).body).label, 'api-invalid-path')
  const unknownCa = await api('nope/aspas')
  t.equal(unknownCa.status, 404)
  t.equal(JSON.parse(unknownCa.body).label, 'ca-unknown')
  const usage = await d.run(['aspas', 'add', '-c', 'ca1', '--aspa', 'AS65000 AS65001'])
  t.equal(usage.code, 2, 'text that is no definition is a usage error')
  t.equal(await d.cli(['aspas', 'list', '-c', 'ca1', '-f', 'json']), listBefore, 'definitions unchanged')
  t.same(await waitPublished(d, () => true), filesBefore, 'published files unchanged')

  // --api prints the call without sending it.
  const printed = await d.cli(['aspas', 'update', '-c', 'ca1', '--customer', 'AS65000', '--add', 'AS65007', '--api'])
  t.match(printed, /^POST https:\/\/\S+\/api\/v1\/cas\/ca1\/aspas\/as\/AS65000\n/)
  t.same(JSON.parse(printed.slice(printed.indexOf('{'))), { added: [65007], removed: [] })
  t.equal(await d.cli(['aspas', 'list', '-c', 'ca1', '-f', 'json']), listBefore, 'not sent')

  // The providers update on a new customer creates it; DELETE removes it; remove takes the last one away.
  const created = await api('ca1/aspas/as/65003', 'POST', JSON.stringify({ added: [65001], removed: [] }))
  t.equal(created.status, 200)
  t.same(JSON.parse(await d.cli(['aspas', 'list', '-c', 'ca1', '-f', 'json'])), [{ customer: 65000, providers: [65002, 65005] }, { customer: 65003, providers: [65001] }])
  await waitPublished(d, (u) => asa(u).length === 2)
  t.equal((await api('ca1/aspas/as/AS65003', 'DELETE')).status, 200)
  await d.cli(['aspas', 'remove', '-c', 'ca1', '--customer', 'AS65000'])
  t.equal(await d.cli(['aspas', 'list', '-c', 'ca1']), '')
  const gone = await waitPublished(d, (u) => asa(u).length === 0)
  t.ok(gone.some((u) => u.includes('/ca1/0/') && u.endsWith('.mft')), 'the manifest stays')

  // The history says what changed, refusals included.
  const lines = (await d.cli(['history', '-c', 'ca1'])).trim().split('\n').map((l) => l.split('::'))
  const aspaLines = lines.filter((p) => /ASPA/.test(p[1]!)).map((p) => [p[1], p[3]!.startsWith('OK') ? 'OK' : 'ERROR'])
  t.same(aspaLines.filter(([, ok]) => ok === 'OK'), [
    ["Update ASPAs: add or replace 'AS65000 => AS65002, AS65001'", 'OK'],
    ['Update ASPA providers of AS65000: add AS65005, remove AS65001', 'OK'],
    ['Update ASPA providers of AS65003: add AS65001, remove none', 'OK'],
    ["Update ASPAs: remove 'AS65003'", 'OK'],
    ["Update ASPAs: remove 'AS65000'", 'OK'],
  ], 'each change, with what changed')
  t.equal(aspaLines.filter(([, ok]) => ok === 'ERROR').length, refusals.length + 2, 'each refused command, as an error')
  const key = lines.find((p) => /Update ASPA providers of AS65000/.test(p[1]!))![2]!
  t.match(await d.cli(['action', '-c', 'ca1', '--key', key]), /updated ASPA AS65000 => AS65002, AS65005 \(added: AS65005; removed: AS65001\)/, 'the event, in svcc action')
})

/**
 * Bad input to the CA API and svcc (issue 5): each refused with the right status, label or exit code, and nothing
 * changes (the CA's details are the same before and after).
 */
import t from 'tap'
import { httpsRequest } from '../helpers/daemon.js'
import { repoDaemon } from '../helpers/cas.js'

t.test('unknown things, malformed documents, a response for another child, bad deltas', async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  const before = await d.cli(['show', '-c', 'ca1', '-f', 'json'])
  const api = (path: string, method = 'GET', body?: string) => httpsRequest(`${d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body } : {}) })

  const unknownCa = await api('cas/nope')
  t.equal(unknownCa.status, 404)
  t.same(JSON.parse(unknownCa.body), { label: 'ca-unknown', msg: "CA 'nope' is unknown", args: { ca: 'nope' } })
  t.equal(JSON.parse((await api('cas/ca1/children/nope')).body).label, 'ca-child-unknown')
  t.equal((await api('cas/ca1/children/nope')).status, 404)
  t.equal(JSON.parse((await api('cas/ca1/parents/nope')).body).label, 'ca-parent-unknown')
  t.equal((await api('cas/bad%2Fname')).status, 400)
  const dup = await d.run(['add', '-c', 'ca1'])
  t.equal(dup.code, 1)
  t.match(dup.stderr, /ca-duplicate/)
  const badName = await api('cas', 'POST', JSON.stringify({ handle: 'white space' }))
  t.equal(JSON.parse(badName.body).label, 'ca-handle-invalid')
  t.equal((await api('cas', 'POST', '{"handle":')).status, 400)
  t.equal(JSON.parse((await api('cas', 'POST', 'x'.repeat(300_000))).body).label, 'api-post-body-exceeds-limit')

  // Malformed XML, and a well-formed response that is meant for another child.
  const garbled = await d.run(['parents', 'add', '-c', 'ca1', '-p', 'testbed', '-r', d.file('garbled.xml', '<parent_response xmlns="http://www.hactrn.net/uris/rpki/rpki-setup/" version="1"')])
  t.equal(garbled.code, 2)
  t.match(garbled.stderr, /not a valid RFC 8183 parent response/)
  const rawXml = await httpsRequest(`${d.url}api/v1/cas/ca1/parents`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/xml' }, body: '<parent_response version="1"/>' })
  t.equal(JSON.parse(rawXml.body).label, 'ca-parent-response-invalid-xml')
  await d.cli(['add', '-c', 'other'])
  const forOther = await d.cli(['children', 'add', '-c', 'testbed', '--child', 'other', '--request', d.file('o.xml', await d.cli(['parents', 'request', '-c', 'other'])), '-4', '10.0.0.0/8'])
  const wrong = await d.run(['parents', 'add', '-c', 'ca1', '-p', 'testbed', '-r', d.file('wrong.xml', forOther)])
  t.equal(wrong.code, 1, 'a parent response for a different child is refused')
  t.match(wrong.stderr, /ca-parent-issue/)

  // ROA deltas: a syntax error names the line; a semantic problem lists every issue; nothing changes.
  const syntax = await d.run(['roas', 'update', '-c', 'ca1', '--delta', d.file('d.txt', '# fine\nA: 10.0.0.0/24 => 1\nX: nonsense\n')])
  t.equal(syntax.code, 2)
  t.match(syntax.stderr, /line 3/)
  const json = await d.run(['roas', 'update', '-c', 'ca1', '--delta', d.file('d2.txt', 'A: 10.0.0.0/24 => 1\n'), '-f', 'json'])
  t.equal(json.code, 1)
  t.match(JSON.parse(json.stderr), { label: 'ca-roa-delta-error', delta_error: { notheld: [{ asn: 1, prefix: '10.0.0.0/24' }] } })
  // In text, each refused line of the file and why (issue 12 item 7).
  const text = await d.run(['roas', 'update', '-c', 'ca1', '--delta', d.file('d3.txt', '# two problems\nA: 10.0.0.0/24 => 1\nA: 10.0.0.0/24-40 => 2\nR: 10.0.0.0/24 => 3\n')])
  t.equal(text.code, 1)
  t.equal(text.stderr, [
    'svcc: error: ROA delta rejected (ca-roa-delta-error):',
    '  line 4: R: 10.0.0.0/24 => 3: not configured, so it cannot be removed',
    '  line 3: A: 10.0.0.0/24-40 => 2: invalid max length: max length 40 of 10.0.0.0/24 is longer than 32, the size of an IPv4 address',
    '  line 2: A: 10.0.0.0/24 => 1: the CA does not hold this prefix',
    '',
  ].join('\n'))
  const badBody = await api('cas/ca1/routes', 'POST', JSON.stringify({ added: [{ asn: 'AS1', prefix: '10.0.0.0/8' }] }))
  t.equal(JSON.parse(badBody.body).label, 'api-invalid-body')

  t.equal(await d.cli(['show', '-c', 'ca1', '-f', 'json']), before, 'ca1 is unchanged')
  t.equal(await d.cli(['roas', 'list', '-c', 'ca1']), '')
})

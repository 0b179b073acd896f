/**
 * Identity certificates at every door (issue 10, defect 8b): `children add`, `children update`, `publishers add`,
 * `parents add` and `repo update` refuse an identity certificate that is expired, not yet valid, not a CA
 * certificate, badly self-signed, RSA-1024 or EC P-256, each with its door's label and the rule broken, and nothing
 * changes (children, publishers, parents and repository as before).
 *
 *   ta ── testbed ── ca1 (child entry only; its parent is never added)
 */
import t from 'tap'
import { repoDaemon, waitFor } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { badIdCerts } from '../helpers/bad-id-certs.js'

t.test('every door refuses each bad identity certificate and changes nothing', async (t) => {
  const d = await repoDaemon(t)
  await waitFor('testbed to be certified', async () => JSON.parse(await d.cli(['show', '-c', 'testbed', '-f', 'json'])).resource_classes['0']?.keys.active)
  await d.cli(['add', '-c', 'ca1'])
  const api = (path: string, method = 'GET', body?: unknown) =>
    httpsRequest(`${d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
  const childRequest = JSON.parse((await api('cas/ca1/id/child_request.json')).body)
  const parentResponse = JSON.parse((await api('cas/testbed/children', 'POST', { handle: 'ca1', resources: { ipv4: '10.0.0.0/8' }, id_cert: childRequest.id_cert })).body)
  const repoResponse = JSON.parse((await api('pubd/publishers/ca1/response.json')).body)
  const state = async () => ({
    testbed: await d.cli(['show', '-c', 'testbed', '-f', 'json']),
    ca1child: await d.cli(['children', 'info', '-c', 'testbed', '--child', 'ca1', '-f', 'json']),
    ca1: await d.cli(['show', '-c', 'ca1', '-f', 'json']),
    parents: await d.cli(['parents', 'statuses', '-c', 'ca1', '-f', 'json']).catch(() => ''),
    repo: await d.cli(['repo', 'show', '-c', 'ca1', '-f', 'json']),
    publishers: await d.cli(['publishers', 'list', '-f', 'json']),
  })
  const before = await state()

  for (const bad of badIdCerts()) {
    const id_cert = Buffer.from(bad.der).toString('base64')
    const doors: [string, Promise<{ status: number; body: string }>, string][] = [
      ['children add', api('cas/testbed/children', 'POST', { handle: 'kid', resources: { ipv4: '10.1.0.0/16' }, id_cert }), 'ca-child-request-invalid-xml'],
      ['children update', api('cas/testbed/children/ca1', 'POST', { id_cert }), 'ca-child-request-invalid-xml'],
      ['publishers add', api('pubd/publishers', 'POST', { publisher_handle: 'pub1', id_cert }), 'pub-request-invalid-xml'],
      ['parents add', api('cas/ca1/parents', 'POST', { handle: 'testbed', response: { ...parentResponse, id_cert } }), 'ca-parent-response-invalid-xml'],
      ['repo update', api('cas/ca1/repo', 'POST', { repository_response: { ...repoResponse, id_cert } }), 'ca-repo-response-invalid-xml'],
    ]
    for (const [door, call, label] of doors) {
      const r = await call
      t.equal(r.status, 400, `${door}, ${bad.name}: 400`)
      t.match(JSON.parse(r.body), { label, msg: bad.rule }, `${door}, ${bad.name}: ${label} citing the rule`)
    }
  }
  t.same(await state(), before, 'children, publishers, parents and repository are unchanged')
})

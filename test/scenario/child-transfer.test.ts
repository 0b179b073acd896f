/**
 * Moving a delegated child between two svcd instances (issue 27 item 4, Krill's child export and import,
 * krill:tests/functional_delegated_ca_import.rs): parent1 exports `child`, parent2 in another svcd imports it and
 * certifies its current key again; the child adds parent2 (from parent2's parent response) and removes parent1;
 * parent1 removes the child; resources updated under parent2 reach the child. Through every step the child's ROAs
 * stay published under a certificate of one of its parents. Every refusal of an import leaves parent2 unchanged.
 *
 *   svcd A: ta ── testbed ── parent1 ── child ─ ─ ─ ┐ (moves)
 *   svcd B: ta ── testbed ── parent2 ◄─ ─ ─ ─ ─ ─ ─ ┘
 *
 * and the same within one svcd: ta ── testbed ── parent1 ── child ─ ─ ► parent2 (under testbed too).
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { caObjects, connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { readRrdp } from '../helpers/repo.js'
import { keyIdentifier, keyIdHex } from '../../src/crypto/key-id.js'
import { fromBase64 } from '../../src/util/base64.js'

const PARENT_RES = { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' }

/** One API call with the admin token; the body as given (a string is sent as is). */
async function api(d: RepoDaemon, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const r = await httpsRequest(`${d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) })
  return { status: r.status, json: r.body ? JSON.parse(r.body) : undefined }
}

/** The certificates a CA publishes for its children (file names, upper-case key ids), as RRDP shows them now. */
async function childCerts(d: RepoDaemon, ca: string): Promise<string[]> {
  const v = await readRrdp(d.url)
  return [...v.objects.keys()].filter((u) => u.includes(`/${ca}/`) && u.endsWith('.cer')).map((u) => u.slice(u.lastIndexOf('/') + 1, -4).toUpperCase()).sort()
}

/** The child's certified keys by class (from `show`), upper-case. */
async function childKeys(d: RepoDaemon): Promise<string[]> {
  const info = JSON.parse(await d.cli(['show', '-c', 'child', '-f', 'json']))
  const classes = Object.values(info.resource_classes as Record<string, { keys: Record<string, Record<string, { key_id: string; incoming_cert: unknown }>> }>)
  return classes.flatMap((c) => Object.values(c.keys).flatMap((k) => Object.values(k))).filter((k) => k.incoming_cert).map((k) => k.key_id.toUpperCase()).sort()
}

t.test('a child moves from parent1 in svcd A to parent2 in svcd B without losing a ROA', async (t) => {
  const a = await repoDaemon(t)
  const b = await repoDaemon(t)
  for (const ca of ['parent1', 'child']) await a.cli(['add', '-c', ca])
  await b.cli(['add', '-c', 'parent2'])
  await connect(a, 'testbed', a, 'parent1', PARENT_RES)
  await connect(b, 'testbed', b, 'parent2', PARENT_RES)
  await waitFor('parent1 and parent2 certified', async () => (await caObjects(a, 'parent1')).active === 1 && (await caObjects(b, 'parent2')).active === 1)
  await connect(a, 'parent1', a, 'child', { asn: 'AS65001', ipv4: '10.1.0.0/16' })
  await waitFor('child certified by parent1', async () => (await caObjects(a, 'child')).active === 1)
  await a.cli(['roas', 'update', '-c', 'child', '--add', '10.1.0.0/16-24 => 65001'])
  await waitPublished(a, (uris) => uris.some((u) => u.includes('/child/') && u.endsWith('.roa')))
  const [k1] = await childKeys(a)

  // Export: Krill's ImportChild, with the child's current key and SIA; to a file with svcc.
  const file = a.file('child.json', '')
  t.match(await a.cli(['children', 'export', '-c', 'parent1', '--child', 'child', '-o', file]), /Exported child 'child' of 'parent1'/)
  const exported = JSON.parse(readFileSync(file, 'utf8'))
  t.match(exported, { name: 'child', id_cert: String, resources: { asn: 'AS65001', ipv4: '10.1.0.0/16', ipv6: '' }, issued_cert: { ca_repository: /^rsync:\/\/.*\/child\/0\/$/, rpki_manifest: /^rsync:\/\/.*\/child\/0\/[0-9A-F]+\.mft$/, rpki_notify: /^https:\/\/.*notification\.xml$/, key: String } })
  t.equal(keyIdHex(keyIdentifier(fromBase64(exported.issued_cert.key))).toUpperCase(), k1, "the exported key is the child's current key")
  t.same((await api(a, 'GET', 'cas/parent1/children/child/export')).json, exported, 'the API answers the same JSON')
  t.equal((await api(a, 'GET', 'cas/parent1/children/nobody/export')).json.label, 'ca-child-unknown')

  // Every refusal: labelled, and parent2 unchanged (no child; the history records refused commands as errors only).
  const history = async () => (JSON.parse(await b.cli(['history', '-c', 'parent2', '-f', 'json'])).commands as { effect: object }[]).filter((c) => 'Ok' in c.effect).length
  const before = await history()
  const refusals: [string, string, unknown, number, string][] = [
    ['the name differs from the path', 'other', exported, 400, 'ca-child-import-handle-mismatch'],
    ['the body is no JSON', 'child', '{"name":', 400, 'api-json'],
    ['the body has no issued_cert', 'child', { name: 'child', id_cert: exported.id_cert, resources: exported.resources }, 400, 'api-invalid-body'],
    ['the key is no RSA key', 'child', { ...exported, issued_cert: { ...exported.issued_cert, key: 'AAAA' } }, 400, 'ca-child-import-invalid'],
    ['the manifest is outside the repository', 'child', { ...exported, issued_cert: { ...exported.issued_cert, rpki_manifest: 'rsync://elsewhere.example/repo/x.mft' } }, 400, 'ca-child-import-invalid'],
    ['the notify URI is no https URI', 'child', { ...exported, issued_cert: { ...exported.issued_cert, rpki_notify: 'http://localhost/notification.xml' } }, 400, 'ca-child-import-invalid'],
    ['the class name is not ours', 'child', { ...exported, issued_cert: { ...exported.issued_cert, class_name: 'lacnic' } }, 400, 'ca-child-import-invalid'],
    ['the resources are not held', 'child', { ...exported, resources: { asn: 'AS65001', ipv4: '11.0.0.0/16', ipv6: '' } }, 400, 'ca-child-resources-extra'],
    ['the resources are empty', 'child', { ...exported, resources: { asn: '', ipv4: '', ipv6: '' } }, 400, 'ca-child-resources-required'],
    ['the id certificate is bad', 'child', { ...exported, id_cert: exported.issued_cert.key }, 400, 'ca-child-request-invalid-xml'],
  ]
  for (const [why, path, body, status, label] of refusals) {
    const r = await api(b, 'POST', `cas/parent2/children/${path}/import`, body)
    t.equal(r.status, status, `${why}: ${status}`)
    t.equal(r.json?.label, label, `${why}: ${label}`)
  }
  t.equal((await api(b, 'POST', 'cas/nobody/children/child/import', exported)).json.label, 'ca-unknown')
  t.equal(await history(), before, 'no refusal changed parent2 (no successful command in its history)')
  t.same((await api(b, 'GET', 'cas/parent2/children')).json.children, [], 'parent2 has no child after the refusals')

  // Import with svcc: parent2 certifies the child's current key again, with its SIA; published by parent2 in B.
  t.equal(await b.cli(['children', 'import', '-c', 'parent2', '--file', file]), '')
  t.match(JSON.parse(await b.cli(['children', 'info', '-c', 'parent2', '--child', 'child', '-f', 'json'])), { state: 'active', entitled_resources: { asn: 'AS65001', ipv4: '10.1.0.0/16' } })
  await waitFor("parent2 publishes a certificate for the child's current key", async () => (await childCerts(b, 'parent2')).includes(k1!), 60_000)
  t.match(await b.cli(['history', '-c', 'parent2']), /Import child 'child'/)
  const again = await api(b, 'POST', 'cas/parent2/children/child/import', exported)
  t.equal(again.json.label, 'ca-child-duplicate', 'a second import: the child exists')
  const twin = await api(b, 'POST', 'cas/parent2/children/twin/import', { ...exported, name: 'twin' })
  t.equal(twin.json.label, 'ca-child-import-invalid', 'the key of another child')
  t.match(twin.json.msg, /already certified for child 'child'/)
  t.match(await a.cli(['children', 'export', '-c', 'parent1', '--child', 'child']), /"name": "child"/, 'without --output the JSON is printed')

  // The child adds parent2 from its parent response: a certificate for a new key there, beside the imported one.
  const resp = a.file('parent2.xml', await b.cli(['children', 'response', '-c', 'parent2', '--child', 'child']))
  await a.cli(['parents', 'add', '-c', 'child', '-p', 'parent2', '-r', resp])
  await waitFor('the child certified under both parents', async () => (await caObjects(a, 'child')).active === 2, 60_000)
  const keys = await childKeys(a)
  const k2 = keys.find((k) => k !== k1)!
  t.equal(keys.length, 2)
  await waitFor('parent2 certifies the new key', async () => (await childCerts(b, 'parent2')).includes(k2), 60_000)
  t.ok((await childCerts(b, 'parent2')).includes(k1!), 'and the imported key, which the child still holds under parent1')
  const both = await waitPublished(a, (uris) => uris.filter((u) => u.includes('/child/') && u.endsWith('.roa')).length === 2)
  t.ok(both.some((u) => u.includes('/child/0/')) && both.some((u) => u.includes('/child/1/')), 'the ROA is published under both keys')
  t.ok((await childCerts(a, 'parent1')).includes(k1!), 'parent1 still certifies the old key')

  // The child removes parent1: its old key is revoked there and at parent2, the ROA stays under the new key.
  await a.cli(['parents', 'remove', '-c', 'child', '-p', 'parent1'])
  await waitFor('parent2 no longer certifies the old key', async () => !(await childCerts(b, 'parent2')).includes(k1!), 60_000)
  const after = await waitPublished(a, (uris) => uris.filter((u) => u.includes('/child/') && u.endsWith('.roa')).length === 1)
  t.ok(after.some((u) => u.includes('/child/1/') && u.endsWith('.roa')), 'the ROA is published under the new key')
  await waitFor('parent1 no longer certifies the old key', async () => !(await childCerts(a, 'parent1')).includes(k1!), 60_000)
  t.ok((await childCerts(b, 'parent2')).includes(k2), 'parent2 certifies the new key')
  t.equal(JSON.parse(await a.cli(['issues', '-f', 'json'])).cas.child, undefined, 'the child has no issues')

  // parent1 removes the child; parent2 gives it more, which reaches the child at its next sync.
  await a.cli(['children', 'remove', '-c', 'parent1', '--child', 'child'])
  t.equal((await api(a, 'GET', 'cas/parent1/children/child')).status, 404)
  await b.cli(['children', 'update', '-c', 'parent2', '--child', 'child', '-a', 'AS65001', '-4', '10.1.0.0/16, 10.3.0.0/16'])
  t.equal((await api(a, 'POST', 'cas/child/sync/parents')).status, 200)
  await waitFor('the child holds the new resources', async () => /10\.3\.0\.0\/16/.test(await a.cli(['show', '-c', 'child'])), 60_000)
  await a.cli(['roas', 'update', '-c', 'child', '--add', '10.3.0.0/16 => 65001'])
  await waitPublished(a, (uris) => uris.filter((u) => u.includes('/child/1/') && u.endsWith('.roa')).length === 2)
  t.pass('a ROA for the new resources is published')
})

t.test('a child moves between two parents of the same svcd', async (t) => {
  const a = await repoDaemon(t)
  for (const ca of ['parent1', 'parent2', 'child']) await a.cli(['add', '-c', ca])
  await connect(a, 'testbed', a, 'parent1', PARENT_RES)
  await connect(a, 'testbed', a, 'parent2', PARENT_RES)
  await waitFor('parent1 and parent2 certified', async () => (await caObjects(a, 'parent1')).active === 1 && (await caObjects(a, 'parent2')).active === 1)
  await connect(a, 'parent1', a, 'child', { asn: 'AS65001', ipv4: '10.1.0.0/16' })
  await waitFor('child certified by parent1', async () => (await caObjects(a, 'child')).active === 1)
  await a.cli(['roas', 'update', '-c', 'child', '--add', '10.1.0.0/16 => 65001'])
  const [k1] = await childKeys(a)
  const exported = (await api(a, 'GET', 'cas/parent1/children/child/export')).json
  t.equal((await api(a, 'POST', 'cas/parent2/children/child/import', exported)).status, 200)
  await waitFor("parent2 certifies the child's key", async () => (await childCerts(a, 'parent2')).includes(k1!), 60_000)
  const resp = a.file('parent2.xml', await a.cli(['children', 'response', '-c', 'parent2', '--child', 'child']))
  await a.cli(['parents', 'add', '-c', 'child', '-p', 'parent2', '-r', resp])
  await waitPublished(a, (uris) => uris.filter((u) => u.includes('/child/') && u.endsWith('.roa')).length === 2)
  const k2 = (await childKeys(a)).find((k) => k !== k1)!
  await a.cli(['parents', 'remove', '-c', 'child', '-p', 'parent1'])
  const uris = await waitPublished(a, (u) => u.filter((x) => x.includes('/child/') && x.endsWith('.roa')).length === 1)
  t.ok(uris.some((u) => u.includes('/child/1/') && u.endsWith('.roa')), 'the ROA under the new key')
  await waitFor('only the new key is certified, by parent2', async () => {
    const [c1, c2] = [await childCerts(a, 'parent1'), await childCerts(a, 'parent2')]
    return !c1.includes(k1!) && !c2.includes(k1!) && c2.includes(k2)
  }, 60_000)
  t.same(await childKeys(a), [k2])
})

t.test('a child without a certificate is not exported; svcc checks an import file', async (t) => {
  const a = await repoDaemon(t)
  for (const ca of ['parent1', 'idle']) await a.cli(['add', '-c', ca])
  await connect(a, 'testbed', a, 'parent1', PARENT_RES)
  await waitFor('parent1 certified', async () => (await caObjects(a, 'parent1')).active === 1)
  const req = a.file('idle.xml', await a.cli(['parents', 'request', '-c', 'idle']))
  await a.cli(['children', 'add', '-c', 'parent1', '--child', 'idle', '--request', req, '-4', '10.3.0.0/16'])
  const r = await a.run(['children', 'export', '-c', 'parent1', '--child', 'idle'])
  t.equal(r.code, 1)
  t.match(r.stderr, /ca-child-export-unsupported/)
  t.match(r.stderr, /holds no certificate/)
  const bad = await a.run(['children', 'import', '-c', 'parent1', '--file', a.file('bad.json', '{"name":"x"}')])
  t.equal(bad.code, 2, 'svcc checks the file before sending it')
})

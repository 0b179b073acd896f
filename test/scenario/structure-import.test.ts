/**
 * Krill's CA structure import (POST /api/v1/bulk/cas/import, `svcc bulk import --file`; issue 27) into an empty svcd
 * with the embedded repository and no testbed: the shape of krill:tests/functional_ca_import.rs, with ASPAs (svcd's
 * addition). A bad structure is refused with one 400 listing every problem and nothing created; the import builds
 * the tree, certified and published; a second import is refused and changes nothing; deleting what it made empties
 * svcd again, and the import can be sent again.
 *
 *        ta
 *        |
 *      parent
 *      /    \
 *   child1  child2
 *      \    /
 *     grandchild (two parents)
 */
import t from 'tap'
import { repoDaemon, waitPublished } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { krillStructure } from '../helpers/structure.js'

t.test('structure import: refusals, the tree, a second import refused', async (t) => {
  const d = await repoDaemon(t, { testbed: false })
  const post = async (body: unknown) => {
    const r = await httpsRequest(`${d.url}api/v1/bulk/cas/import`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
    return { status: r.status, json: r.body ? JSON.parse(r.body) : undefined }
  }
  const list = async () => JSON.parse(await d.cli(['list', '-f', 'json'])).cas.map((c: { handle: string }) => c.handle).sort()
  const publishers = async () => JSON.parse(await d.cli(['publishers', 'list', '-f', 'json'])).publishers.map((p: { handle: string }) => p.handle).sort()

  // A bad structure: every problem in one 400, nothing created.
  const good = krillStructure(d)
  const cas = good.cas as Record<string, unknown>[]
  const bad = {
    ta: { ...(good.ta as object), ta_key_pem: '-----BEGIN PRIVATE KEY-----\nMIIsecret\n-----END PRIVATE KEY-----\n' },
    publication_server: { rrdp_base_uri: 'https://elsewhere.example/rrdp/', rsync_jail: d.rsyncBase },
    cas: [
      { handle: 'a', parent: { handle: 'b', resources: { asn: 'AS1' } } }, // b comes later, and b's parent is a: a cycle
      { handle: 'b', parent: { handle: 'a', resources: { asn: 'AS1' } } },
      cas[0],
      { ...cas[0] }, // 'parent' twice
      { handle: 'x', parent: { handle: 'nobody', resources: { asn: 'AS1' } } },
      { handle: 'y', parent: { handle: 'parent', resources: { asn: 'AS1-AS2', ipv4: '10.0.0.0/33' } } },
      { handle: 'z', parent: { handle: 'parent', resources: { asn: 'AS65000' } }, roas: [{ asn: 65000, prefix: '172.16.0.0/12' }], aspas: [{ customer: 65001, providers: [65001] }] },
    ],
  }
  const refused = await post(bad)
  t.equal(refused.status, 400)
  t.equal(refused.json.label, 'ca-import-invalid')
  const problems: string = refused.json.args.problems
  for (const p of [
    /cas\[0\] 'a': parent 'b' is listed after this CA/,
    /cycle: /,
    /cas\[3\] 'parent': the handle is listed twice/,
    /cas\[4\] 'x': parent 'nobody' is neither the trust anchor/,
    /cas\[5\] 'y' parent 'parent': invalid resources/,
    /cas\[6\] 'z' roas\[0\]: 172\.16\.0\.0\/12-12 => 65000 is outside the CA's resources/,
    /cas\[6\] 'z' aspas\[0\]: AS65001 cannot be its own provider/,
    /cas\[6\] 'z' aspas\[0\]: customer AS65001 is outside the CA's resources/,
    /ta\.ta_key_pem: svcd does not import an existing trust-anchor key/,
    /publication_server\.rrdp_base_uri: 'https:\/\/elsewhere\.example\/rrdp\/' is not svcd's/,
  ]) t.match(problems, p)
  t.notMatch(JSON.stringify(refused.json), /MIIsecret/, 'the key is never echoed')
  t.same(await list(), [], 'nothing was created')
  t.same(await publishers(), [], 'no publisher was registered')

  // The import, with svcc.
  const file = d.file('structure.json', JSON.stringify(good))
  t.match(await d.cli(['bulk', 'import', '--file', file, '--api']), /POST .*\/api\/v1\/bulk\/cas\/import/)
  await d.cli(['bulk', 'import', '--file', file])
  t.same(await list(), ['child1', 'child2', 'grandchild', 'parent', 'ta'])

  const show = async (ca: string) => JSON.parse(await d.cli(['show', '-c', ca, '-f', 'json']))
  const res = async (ca: string) => (await show(ca)).resources
  t.same(await res('parent'), { asn: 'AS65000-AS65535', ipv4: '10.0.0.0/8, 192.168.0.0/16', ipv6: 'fc00::/7' })
  t.same(await res('child1'), { asn: 'AS65000', ipv4: '192.168.0.0/16', ipv6: 'fc00::/56' })
  t.same(await res('child2'), { asn: 'AS65001', ipv4: '10.0.0.0/16', ipv6: '' })
  t.same(await res('grandchild'), { asn: 'AS65000-AS65001', ipv4: '10.0.0.0/24, 192.168.0.0/24', ipv6: '' })
  t.same((await show('grandchild')).parents.map((p: { handle: string }) => p.handle).sort(), ['child1', 'child2'])

  const roas = async (ca: string) => JSON.parse(await d.cli(['roas', 'list', '-c', ca, '-f', 'json'])).map((r: { asn: number; prefix: string; max_length: number; comment?: string | null }) => `${r.asn} ${r.prefix}-${r.max_length}${r.comment ? ` # ${r.comment}` : ''}`).sort()
  t.same(await roas('child1'), ['65000 192.168.0.0/23-24 # my precious route', '65000 fc00::/56-56', '65001 192.168.2.0/23-23'])
  t.same(await roas('grandchild'), ['65000 192.168.0.0/24-24', '65001 10.0.0.0/24-24'])
  t.same(await roas('child2'), [])
  const aspas = async (ca: string) => JSON.parse(await d.cli(['aspas', 'list', '-c', ca, '-f', 'json']))
  t.same(await aspas('child1'), [{ customer: 65000, providers: [65001, 65002] }])
  t.same(await aspas('grandchild'), [{ customer: 65001, providers: [65000] }])

  // Published objects per resource class: child1 holds the grandchild's certificate, 3 ROAs and an ASPA; child2 the
  // grandchild's other certificate; the grandchild one ROA in each of its two classes, and its ASPA.
  const perClass = async (ca: string) => Object.values((await show(ca)).resource_classes).map((rc) => (rc as { current_objects: string[] }).current_objects.map((o) => o.split('.').pop()).sort().join(' ')).sort()
  t.same(await perClass('child1'), ['asa cer crl mft roa roa roa'])
  t.same(await perClass('child2'), ['cer crl mft'])
  t.same(await perClass('grandchild'), ['asa crl mft roa', 'crl mft roa'], 'the ASPA goes in the class holding AS65001')
  t.same(await perClass('parent'), ['cer cer crl mft'])
  const uris = await waitPublished(d, (u) => u.filter((x) => x.endsWith('.roa')).length === 5 && u.filter((x) => x.endsWith('.asa')).length === 2)
  t.equal(uris.filter((u) => u.endsWith('.mft')).length, 6, 'one manifest per resource class: ta, parent, child1, child2, grandchild ×2')
  t.match((await httpsRequest(d.talUrl)).body, new RegExp(`^${d.url}ta/ta\\.cer\\n${d.rsyncBase}ta/ta\\.cer\\n\\nMII`), 'the TAL names the URIs of the structure')

  // A second import: refused, nothing changed.
  const again = await post(good)
  t.equal(again.status, 400)
  t.equal(again.json.label, 'ca-import-not-empty')
  t.match(again.json.msg, /has 5 CAs \(child1, child2, grandchild, parent, ta\)|has 5 CAs/)
  t.same(await list(), ['child1', 'child2', 'grandchild', 'parent', 'ta'])
  t.same(await roas('child1'), ['65000 192.168.0.0/23-24 # my precious route', '65000 fc00::/56-56', '65001 192.168.2.0/23-23'])
  const cli = await d.run(['bulk', 'import', '--file', file])
  t.equal(cli.code, 1)
  t.match(cli.stderr, /ca-import-not-empty/)

  // The clean-up a failed import asks for (delete what it created, the last first, ta last) empties svcd, and the
  // same import then goes through again.
  for (const ca of ['grandchild', 'child2', 'child1', 'parent', 'ta']) await d.cli(['delete', '-c', ca])
  t.same(await list(), [])
  t.same(await publishers(), [], 'the CAs took their publishers with them')
  await d.cli(['bulk', 'import', '--file', file])
  t.same(await list(), ['child1', 'child2', 'grandchild', 'parent', 'ta'])
  t.same(await res('grandchild'), { asn: 'AS65000-AS65001', ipv4: '10.0.0.0/24, 192.168.0.0/24', ipv6: '' })
  t.same(await roas('grandchild'), ['65000 192.168.0.0/24-24', '65001 10.0.0.0/24-24'])
})

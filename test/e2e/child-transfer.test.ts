/**
 * A delegated child moved between two svcd instances, as relying parties see it (issue 27 item 4, Krill's child
 * export and import): rpki-client validates the child's ROAs from svcd A's trust anchor and from svcd B's before the
 * move, after the import (parent2 certifies the child's current key too), while the child has both parents, after it
 * removed parent1, and after parent2 gave it more resources. No VRP of the child is missing at any of these points.
 *
 *   svcd A: ta ── testbed ── parent1 ── child (publishes in A) ─ ─ ┐ moves
 *   svcd B: ta ── testbed ── parent2 ◄─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─┘
 */
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { caObjects, connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest, tempDir } from '../helpers/daemon.js'
import { rpMissing, validate } from '../helpers/rp.js'

const PARENT_RES = { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' }
const VRP = 'AS65001,10.1.0.0/16,24'
const VRP2 = 'AS65001,10.3.0.0/16,16'

t.test("the child's VRPs stay valid through the move, from both trust anchors", { skip: rpMissing() }, async (t) => {
  const a = await repoDaemon(t)
  const b = await repoDaemon(t)
  // The child publishes in A: relying parties starting at B's trust anchor fetch from both daemons.
  const certs = join(tempDir(t), 'both.pem')
  writeFileSync(certs, readFileSync(a.tlsCert, 'utf8') + readFileSync(b.tlsCert, 'utf8'))
  const check = async (d: RepoDaemon, vrps: string[], when: string) => {
    const r = await validate({ talUrl: d.talUrl, tlsCert: certs, vrps, transport: 'rrdp', validators: ['rpki-client'] })
    t.equal(r.code, 0, `${when}: from ${d === a ? "A's" : "B's"} trust anchor rpki-client sees exactly ${vrps.join(' ')}\n${r.lines}`)
  }
  const childRoas = (uris: string[], dir?: string) => uris.filter((u) => u.includes(`/child/${dir ?? ''}`) && u.endsWith('.roa')).length

  for (const ca of ['parent1', 'child']) await a.cli(['add', '-c', ca])
  await b.cli(['add', '-c', 'parent2'])
  await connect(a, 'testbed', a, 'parent1', PARENT_RES)
  await connect(b, 'testbed', b, 'parent2', PARENT_RES)
  await waitFor('parent1 and parent2 certified', async () => (await caObjects(a, 'parent1')).active === 1 && (await caObjects(b, 'parent2')).active === 1)
  await connect(a, 'parent1', a, 'child', { asn: 'AS65001', ipv4: '10.1.0.0/16' })
  await waitFor('child certified by parent1', async () => (await caObjects(a, 'child')).active === 1)
  await a.cli(['roas', 'update', '-c', 'child', '--add', '10.1.0.0/16-24 => 65001'])
  await waitPublished(a, (uris) => childRoas(uris) === 1)
  await check(a, [VRP], 'before the move')

  // Export from parent1, import under parent2: parent2 certifies the child's current key, published in B.
  const file = a.file('child.json', '')
  await a.cli(['children', 'export', '-c', 'parent1', '--child', 'child', '-o', file])
  await b.cli(['children', 'import', '-c', 'parent2', '--file', file])
  await waitPublished(b, (uris) => uris.some((u) => u.includes('/parent2/') && u.endsWith('.cer')))
  await check(a, [VRP], 'after the import')
  await check(b, [VRP], 'after the import')

  // The child adds parent2: a new key certified there (the imported one too, until parent1 goes), the ROA under
  // both keys; both parents for a while.
  const resp = a.file('parent2.xml', await b.cli(['children', 'response', '-c', 'parent2', '--child', 'child']))
  await a.cli(['parents', 'add', '-c', 'child', '-p', 'parent2', '-r', resp])
  await waitFor('the child certified under both parents', async () => (await caObjects(a, 'child')).active === 2, 60_000)
  await waitPublished(a, (uris) => childRoas(uris) === 2)
  await waitPublished(b, (uris) => uris.filter((u) => u.includes('/parent2/') && u.endsWith('.cer')).length === 2)
  await check(a, [VRP], 'with both parents')
  await check(b, [VRP], 'with both parents')

  // The child removes parent1, and parent1 the child: only B's trust anchor leads to the child now.
  await a.cli(['parents', 'remove', '-c', 'child', '-p', 'parent1'])
  await a.cli(['children', 'remove', '-c', 'parent1', '--child', 'child'])
  await waitPublished(a, (uris) => childRoas(uris) === 1 && childRoas(uris, '1/') === 1 && !uris.some((u) => u.includes('/parent1/') && u.endsWith('.cer')))
  await waitPublished(b, (uris) => uris.filter((u) => u.includes('/parent2/') && u.endsWith('.cer')).length === 1)
  await check(b, [VRP], 'after the old parent is removed')

  // parent2 gives the child more; at its next sync the child holds it and a new ROA is valid.
  await b.cli(['children', 'update', '-c', 'parent2', '--child', 'child', '-a', 'AS65001', '-4', '10.1.0.0/16, 10.3.0.0/16'])
  const sync = await httpsRequest(`${a.url}api/v1/cas/child/sync/parents`, { method: 'POST', headers: { Authorization: `Bearer ${a.token}` } })
  t.equal(sync.status, 200)
  await waitFor('the child holds the new resources', async () => /10\.3\.0\.0\/16/.test(await a.cli(['show', '-c', 'child'])), 60_000)
  await a.cli(['roas', 'update', '-c', 'child', '--add', '10.3.0.0/16 => 65001'])
  await waitPublished(a, (uris) => childRoas(uris, '1/') === 2)
  await check(b, [VRP, VRP2], 'after new resources from parent2')
})

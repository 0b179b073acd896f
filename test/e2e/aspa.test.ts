/**
 * ASPAs end to end (issue 13 acceptance): rpki-client 9.7 validates the ASPAs svcd publishes (its `aspas` JSON key,
 * rp-validate --expect-aspa) and FORT 1.6.6 the rest of the tree, over RRDP only and rsync only with no warning,
 * through add, a providers update, a CA key roll, a resource shrink at the parent and a removal:
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8: a ROA, ASPAs for AS65000 and AS65003; rolls its key)
 */
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { readRrdp } from '../helpers/repo.js'
import { rpMissing, validate } from '../helpers/rp.js'

const VRPS = ['AS65000,10.0.0.0/24,24']

/** The ASPA objects in RRDP (uri → hash), once rsync shows the same files. */
async function aspaObjects(d: RepoDaemon): Promise<Map<string, string>> {
  await waitPublished(d, () => true)
  return new Map([...(await readRrdp(d.url)).objects].filter(([u]) => u.endsWith('.asa')))
}

/** Wait until the published ASPA objects differ from `before` and `cond` holds for them. */
async function republished(d: RepoDaemon, before: Map<string, string>, cond: (m: Map<string, string>) => boolean): Promise<Map<string, string>> {
  return waitFor('the ASPAs to be re-published', async () => {
    const now = await aspaObjects(d)
    const same = now.size === before.size && [...now].every(([u, h]) => before.get(u) === h)
    return !same && cond(now) ? now : undefined
  }, 60_000)
}

async function keyState(d: RepoDaemon): Promise<string> {
  return Object.keys(JSON.parse(await d.cli(['show', '-c', 'ca1', '-f', 'json'])).resource_classes['0'].keys)[0]!
}

t.test('ASPAs validated by rpki-client through add, update, key roll, shrink and remove', { skip: rpMissing() }, async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 active', async () => (await keyState(d)) === 'active')
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d.txt', 'A: 10.0.0.0/24 => 65000\n')])
  const check = async (step: string, aspas: string[]) => {
    for (const transport of ['rrdp', 'rsync'] as const) {
      const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: VRPS, aspas, transport, validators: ['rpki-client', 'fort'] })
      t.equal(r.code, 0, `${step}: ASPAs ${aspas.join('; ') || 'none'} and VRPs, ${transport} only, no warnings\n${r.lines}`)
    }
  }

  await d.cli(['aspas', 'add', '-c', 'ca1', '--aspa', 'AS65000 => AS65002, AS65001'])
  await d.cli(['aspas', 'add', '-c', 'ca1', '--aspa', 'AS65003 => AS65004'])
  let objects = await waitFor('two ASPAs', async () => {
    const m = await aspaObjects(d)
    return m.size === 2 && (await waitPublished(d, (u) => u.some((x) => x.endsWith('.roa')))) ? m : undefined
  })
  await check('after add', ['AS65000,AS65001 AS65002', 'AS65003,AS65004'])

  await d.cli(['aspas', 'update', '-c', 'ca1', '--customer', 'AS65000', '--add', 'AS65005', '--remove', 'AS65001'])
  objects = await republished(d, objects, (m) => m.size === 2)
  await check('after a providers update', ['AS65000,AS65002 AS65005', 'AS65003,AS65004'])

  await d.cli(['keyroll', 'init', '-c', 'ca1'])
  await waitFor('the new key certified', async () => (await keyState(d)) === 'roll_new')
  // The parent publishes the new key's certificate, ca1 then its manifest and CRL: over RRDP they may come in two
  // serials, so wait until both keys' manifests are in RRDP and the rsync tree.
  await waitPublished(d, (u) => u.filter((x) => /\/ca1\/0\/[0-9A-F]+\.mft$/.test(x)).length === 2)
  await check('during the key roll', ['AS65000,AS65002 AS65005', 'AS65003,AS65004'])
  await d.cli(['keyroll', 'activate', '-c', 'ca1'])
  await waitFor('the roll to finish', async () => (await keyState(d)) === 'active')
  objects = await republished(d, objects, (m) => m.size === 2)
  await check('after the key roll', ['AS65000,AS65002 AS65005', 'AS65003,AS65004'])

  await d.cli(['children', 'update', '-c', 'testbed', '--child', 'ca1', '-a', 'AS65000-65002', '-4', '10.0.0.0/8'])
  objects = await republished(d, objects, (m) => m.size === 1)
  t.ok([...objects.keys()][0]!.endsWith('/AS65000.asa'), 'the ASPA of AS65003, no longer held, is withdrawn')
  t.match(await d.cli(['aspas', 'list', '-c', 'ca1']), /AS65003 => AS65004/, 'its definition stays')
  await check('after a resource shrink at the parent', ['AS65000,AS65002 AS65005'])

  await d.cli(['aspas', 'remove', '-c', 'ca1', '--customer', 'AS65000'])
  await republished(d, objects, (m) => m.size === 0)
  await check('after remove', [])
})

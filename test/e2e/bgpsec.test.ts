/**
 * BGPsec router certificates end to end (issue 13 acceptance): rpki-client 9.7 reports exactly the router keys svcd
 * certified (`bgpsec_keys`), and FORT 1.6.6 validates the tree, over RRDP only and rsync only with no warning, through
 * add (a PEM and a DER request), a CA key roll, a resource shrink at the parent and a removal. FORT 1.6.6 cannot
 * report router keys: it recognises a router certificate ("Type: BGPsec EE") and skips it (the handling is commented
 * out in its cert validation), so its --output.bgpsec stays empty; the test checks that it classifies ours as such.
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8: a ROA; router keys for AS65000 and AS65003; rolls its key)
 */
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { readRrdp } from '../helpers/repo.js'
import { rpMissing, validate } from '../helpers/rp.js'
import { pem, routerCsr, routerKey } from '../helpers/router.js'

const VRPS = ['AS65000,10.0.0.0/24,24']

async function keyState(d: RepoDaemon): Promise<string> {
  return Object.keys(JSON.parse(await d.cli(['show', '-c', 'ca1', '-f', 'json'])).resource_classes['0'].keys)[0]!
}

/** The published router certificates' file names (RRDP and rsync agreeing). */
async function routerFiles(d: RepoDaemon, cond: (names: string[]) => boolean): Promise<string[]> {
  const uris = await waitPublished(d, (u) => cond(u.filter((x) => /\/ROUTER-[0-9A-F]{8}-[0-9A-F]{40}\.cer$/.test(x)).map((x) => x.split('/').slice(-3).join('/'))))
  return uris.filter((x) => /\/ROUTER-/.test(x)).map((x) => x.split('/').slice(-3).join('/'))
}

/** The published router certificates, uri → hash (RRDP, once rsync agrees). */
async function routerHashes(d: RepoDaemon): Promise<Map<string, string>> {
  await waitPublished(d, () => true)
  return new Map([...(await readRrdp(d.url)).objects].filter(([u]) => /\/ROUTER-/.test(u)))
}

t.test('router keys reported by rpki-client and FORT through add, key roll, shrink and remove', { skip: rpMissing() }, async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 active', async () => (await keyState(d)) === 'active')
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d.txt', 'A: 10.0.0.0/24 => 65000\n')])
  const check = async (step: string, keys: string[]) => {
    for (const transport of ['rrdp', 'rsync'] as const) {
      const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: VRPS, transport, validators: ['rpki-client', 'fort'], routerKeys: true })
      t.equal(r.code, 0, `${step}: ${transport} only, no warnings\n${r.lines}`)
      t.same(r.routerKeys?.['rpki-client'], keys, `${step}: rpki-client's router keys, ${transport} only`)
      t.same(r.routerKeys?.fort, [], `${step}: FORT 1.6.6 reports none (it skips BGPsec certificates)`)
    }
  }

  const k1 = routerKey()
  const k2 = routerKey()
  await d.cli(['bgpsec', 'add', '-c', 'ca1', '--asn', 'AS65000', '--csr', d.file('r1.csr', pem(routerCsr(k1)))])
  const der = d.file('r2.der', '')
  writeFileSync(der, routerCsr(k2))
  await d.cli(['bgpsec', 'add', '-c', 'ca1', '--asn', 'AS65003', '--csr', der])
  const both = [`AS65000,${k1.keyId}`, `AS65003,${k2.keyId}`].sort()
  let files = await routerFiles(d, (n) => n.length === 2)
  await check('after add', both)
  const fort = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: VRPS, transport: 'rrdp', validators: ['fort'], verbose: true })
  for (const k of [`ROUTER-0000FDE8-${k1.keyId}`, `ROUTER-0000FDEB-${k2.keyId}`]) t.match(fort.logs.fort, `${k}.cer: Type: BGPsec EE`, `FORT classifies ${k} as a router certificate`)
  t.notMatch(fort.logs.fort, /^\S+ \d+ [\d:]+ (ERR|WRN)/m, 'FORT: no error or warning')

  const before = await routerHashes(d)
  await d.cli(['keyroll', 'init', '-c', 'ca1'])
  await waitFor('the new key certified', async () => (await keyState(d)) === 'roll_new')
  await d.cli(['keyroll', 'activate', '-c', 'ca1'])
  await waitFor('the roll to finish', async () => (await keyState(d)) === 'active')
  await waitFor('the router certificates re-issued under the new key', async () => {
    const now = await routerHashes(d)
    return now.size === 2 && [...now].every(([u, h]) => before.get(u) !== h)
  })
  await check('after the key roll', both)

  await d.cli(['children', 'update', '-c', 'testbed', '--child', 'ca1', '-a', 'AS65000-65002', '-4', '10.0.0.0/8'])
  files = await routerFiles(d, (n) => n.length === 1)
  t.match(files[0], /ROUTER-0000FDE8-/, 'the certificate for AS65003, no longer held, is withdrawn')
  await check('after a resource shrink at the parent', [`AS65000,${k1.keyId}`])

  await d.cli(['bgpsec', 'remove', '-c', 'ca1', '--asn', 'AS65000', '--key', k1.keyId])
  await routerFiles(d, (n) => n.length === 0)
  await check('after remove', [])
})

/**
 * End to end through svcc only (issue 5), validated by rpki-client, FORT and OctoRPKI over RRDP only and rsync only:
 *
 *   ta (embedded TA, all resources)
 *    └─ testbed
 *        └─ ca1  AS65000-65010, 10.0.0.0/8, 2001:db8::/32   ROAs from a delta file; then some removed and
 *                                                          ca1's resources shrunk at the parent: the VRPs follow.
 */
import t from 'tap'
import { caObjects, connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { rpMissing, validate } from '../helpers/rp.js'

const skip = rpMissing()

t.test('ca1 under testbed: ROAs validate over RRDP and rsync, then follow removals and a shrink', { skip }, async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  await waitFor('ca1 to be certified', async () => (await caObjects(d, 'ca1')).active === 1)

  const delta = d.file('delta.txt', [
    '# ROAs for ca1',
    'A: 10.0.0.0/24 => 65000          # office, no max length',
    'A: 10.1.0.0/16-20 => 65001',
    '  A: 10.2.0.0/16 => AS65002      # indented, AS prefix',
    'A: 2001:db8::/48 => 65003',
    'A: 2001:db8:1::/48-56 => 65004   # IPv6 with max length',
    '',
  ].join('\n'))
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', delta])
  t.equal(await d.cli(['roas', 'list', '-c', 'ca1']), '10.0.0.0/24 => 65000\n10.1.0.0/16-20 => 65001\n10.2.0.0/16 => 65002\n2001:db8::/48 => 65003\n2001:db8:1::/48-56 => 65004\n')
  const roasJson = JSON.parse(await d.cli(['roas', 'list', '-c', 'ca1', '-f', 'json']))
  t.equal(roasJson[0].comment, 'office, no max length')
  await waitPublished(d, (uris) => uris.filter((u) => u.includes('/ca1/') && u.endsWith('.roa')).length === 5)

  const vrps = ['AS65000,10.0.0.0/24,24', 'AS65001,10.1.0.0/16,20', 'AS65002,10.2.0.0/16,16', 'AS65003,2001:db8::/48,48', 'AS65004,2001:db8:1::/48,56']
  for (const transport of ['rrdp', 'rsync'] as const) {
    const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps, transport })
    t.equal(r.code, 0, `all three validators, ${transport} only, no warnings, exact VRPs\n${r.lines}`)
  }

  // Remove two ROAs, and shrink ca1 at the parent: 10.2.0.0/16 is no longer held, so its ROA disappears.
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('delta2.txt', 'R: 10.0.0.0/24 => 65000\nR: 2001:db8::/48-48 => 65003\n')])
  await d.cli(['children', 'update', '-c', 'testbed', '--child', 'ca1', '-a', 'AS65000-65010', '-4', '10.0.0.0/15', '-6', '2001:db8::/32'])
  await waitFor('ca1 to hold the shrunk resources', async () => JSON.parse(await d.cli(['show', '-c', 'ca1', '-f', 'json'])).resources.ipv4 === '10.0.0.0/15')
  await waitPublished(d, (uris) => uris.filter((u) => u.includes('/ca1/') && u.endsWith('.roa')).length === 2)
  const after = ['AS65001,10.1.0.0/16,20', 'AS65004,2001:db8:1::/48,56']
  for (const transport of ['rrdp', 'rsync'] as const) {
    const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: after, transport })
    t.equal(r.code, 0, `VRPs follow the removals and the shrink, ${transport} only\n${r.lines}`)
  }
  t.match(await d.cli(['roas', 'list', '-c', 'ca1', '-f', 'json']), /"prefix": "10.2.0.0\/16"/, 'the configuration keeps the ROA whose prefix is no longer held')
  await d.cli(['children', 'update', '-c', 'testbed', '--child', 'ca1', '-a', 'AS65000-65010', '-4', '10.0.0.0/8', '-6', '2001:db8::/32'])
  await waitPublished(d, (uris) => uris.filter((u) => u.includes('/ca1/') && u.endsWith('.roa')).length === 3)
  t.pass('the ROA comes back when the resources return')
})

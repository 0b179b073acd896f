/**
 * Deleting CAs and the bulk operations (issues 5 and 6): a deleted parent revokes its child's certificate and
 * withdraws its objects; a deleted child tells its parent (best effort); bulk publish, refresh and sync work on
 * every CA and leave no issue.
 *
 *   ta ── testbed ── ca1 ── ca2
 */
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'

t.test('delete a CA in the middle of a tree, and bulk operations', async (t) => {
  const d = await repoDaemon(t)
  for (const ca of ['ca1', 'ca2']) await d.cli(['add', '-c', ca])
  await connect(d, 'testbed', d, 'ca1', { ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await connect(d, 'ca1', d, 'ca2', { ipv4: '10.1.0.0/16' })
  await waitFor('ca2 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca2'])))
  await d.cli(['roas', 'update', '-c', 'ca2', '--delta', d.file('d.txt', 'A: 10.1.0.0/24 => 65000\n')])
  await waitPublished(d, (u) => u.some((x) => x.includes('/ca2/') && x.endsWith('.roa')))

  for (const cmd of [['bulk', 'publish'], ['bulk', 'refresh'], ['bulk', 'sync']]) t.equal((await d.run(cmd)).code, 0, cmd.join(' '))
  t.equal(await d.cli(['issues']), 'no issues\n', 'no CA has an issue after the bulk operations')

  await d.cli(['delete', '-c', 'ca1'])
  t.notMatch(await d.cli(['list']), /\bca1\b/)
  const uris = await waitPublished(d, (u) => !u.some((x) => x.includes('/ca1/')))
  t.notOk(uris.some((u) => u.includes('/ca1/')), "ca1's objects are withdrawn, including ca2's certificate")
  t.notOk(uris.some((u) => u.includes('/testbed/') && u.endsWith('.cer')), 'ca1 asked testbed to revoke its key: testbed no longer publishes its certificate')
  t.match(await d.cli(['show', '-c', 'testbed']), /Children:\nca1/, 'the parent keeps the child entry until its operator removes it')
  const show = await d.run(['show', '-c', 'ca1'])
  t.equal(show.code, 1)
  t.match(show.stderr, /ca-unknown/)
  t.equal((await d.run(['publishers', 'show', '-p', 'ca1'])).code, 1, 'its publisher registration is gone')
  await d.cli(['children', 'remove', '-c', 'testbed', '--child', 'ca1'])
  await d.cli(['delete', '-c', 'ca2'])
  t.equal(await d.cli(['list']), 'ta\ntestbed\n')
})

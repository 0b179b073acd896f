/**
 * Two daemons talking over HTTPS (issue 5): svcd B has no repository of its own; its CA `remote` publishes to
 * svcd A's publication server over RFC 8181 and has `testbed` in A as its parent over RFC 6492.
 *
 *   svcd A: ta ── testbed ◄──RFC 6492── svcd B: remote ──RFC 8181──► svcd A: publication server
 */
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { caObjects, connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { tempDir } from '../helpers/daemon.js'
import { rpMissing, validate } from '../helpers/rp.js'

t.test('a CA in svcd B with parent and repository in svcd A validates', { skip: rpMissing() }, async (t) => {
  const a = await repoDaemon(t)
  const b = await repoDaemon(t, { repository: false })
  await b.cli(['add', '-c', 'remote'])
  t.match(await b.cli(['repo', 'show', '-c', 'remote']), /No repository configured/, 'without an embedded repository a new CA has none')

  const pubReq = b.file('pub-req.xml', await b.cli(['repo', 'request', '-c', 'remote']))
  const repoResp = a.file('repo-resp.xml', await a.cli(['publishers', 'add', '--request', pubReq]))
  await b.cli(['repo', 'update', '-c', 'remote'], readFileSync(repoResp, 'utf8'))
  t.match(await b.cli(['repo', 'show', '-c', 'remote']), new RegExp(`service uri: ${a.url}rfc8181/remote/`))

  await connect(a, 'testbed', b, 'remote', { asn: 'AS64500', ipv4: '192.0.2.0/24', ipv6: '2001:db8:f00::/40' })
  await waitFor('remote to be certified by testbed in svcd A', async () => (await caObjects(b, 'remote')).active === 1)
  await b.cli(['roas', 'update', '-c', 'remote', '--delta', b.file('d.txt', 'A: 192.0.2.0/24 => 64500\nA: 2001:db8:f00::/40-48 => 64500\n')])
  await waitPublished(a, (uris) => uris.filter((u) => u.includes('/remote/') && u.endsWith('.roa')).length === 2)
  const state = await b.cli(['repo', 'state', '-c', 'remote'])
  t.match(state, /^Available and publishing objects:\n([0-9a-f]{64} rsync:\/\/\S+\n){4}/, 'repo state: a real list query against svcd A')

  for (const transport of ['rrdp', 'rsync'] as const) {
    const r = await validate({ talUrl: a.talUrl, tlsCert: a.tlsCert, vrps: ['AS64500,192.0.2.0/24,24', 'AS64500,2001:db8:f00::/40,48'], transport })
    t.equal(r.code, 0, `svcd A's repository validates, ${transport} only\n${r.lines}`)
  }
  t.equal(JSON.parse(await b.cli(['issues', '-f', 'json'])).cas.remote, undefined, 'no issues in B')
})

t.test('repo update against an unreachable or unauthorised repository is refused and changes nothing', async (t) => {
  const a = await repoDaemon(t)
  const b = await repoDaemon(t, { repository: false })
  await b.cli(['add', '-c', 'x'])
  // A repository response for another publisher: svcd A does not know 'x' as the publisher it names.
  const other = await a.cli(['publishers', 'response', '-p', 'testbed'])
  const refused = await b.run(['repo', 'update', '-c', 'x'], other)
  t.equal(refused.code, 1)
  t.match(refused.stderr, /ca-repo-issue/)
  t.match(await b.cli(['repo', 'show', '-c', 'x']), /No repository configured/)
  const dir = tempDir(t)
  const down = other.replace(/service_uri="[^"]+"/, 'service_uri="https://localhost:1/rfc8181/x/"')
  writeFileSync(join(dir, 'down.xml'), down)
  const unreachable = await b.run(['repo', 'update', '-c', 'x', '-r', join(dir, 'down.xml')])
  t.equal(unreachable.code, 1)
  t.match(unreachable.stderr, /cannot reach|ca-repo-issue/)
  t.match(await b.cli(['repo', 'show', '-c', 'x']), /No repository configured/)
})

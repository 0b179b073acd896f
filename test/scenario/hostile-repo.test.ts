/**
 * `repo update` as an attacker or a careless operator would use it (issue 22, defect 5): the CA's own embedded
 * repository response with another RRDP notification URI (`https://evil.example/…`) is refused with a label and
 * changes nothing: the CA keeps its publisher, its objects stay published, and it has no issue. A real move to
 * another publisher of the embedded repository still works: the objects go to the new jail and, once the parent
 * re-certified the key, the old publisher is emptied and removed, never the new one.
 *
 *   ta ── testbed ── ca1 (ROA 10.0.0.0/24 => 65000)
 */
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'

t.test("repo update with the CA's own response but a foreign notification URI is refused; a real move works", async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d.txt', 'A: 10.0.0.0/24 => 65000\n')])
  const under = (jail: string) => (u: string[]) => u.filter((x) => x.startsWith(`${d.rsyncBase}${jail}/`))
  const published = under('ca1')(await waitPublished(d, (u) => under('ca1')(u).some((x) => x.endsWith('.roa'))))
  const api = (path: string, method = 'GET', body?: unknown) =>
    httpsRequest(`${d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
  const repoBefore = await d.cli(['repo', 'show', '-c', 'ca1', '-f', 'json'])
  const own = JSON.parse((await api('pubd/publishers/ca1/response.json')).body)

  // The attack, over the API and with svcc: the CA's own response, another notification URI.
  const evil = 'https://evil.example/rrdp/notification.xml'
  const r = await api('cas/ca1/repo', 'POST', { repository_response: { ...own, repo_info: { ...own.repo_info, rrdp_notification_uri: evil } } })
  t.equal(r.status, 400, 'refused with a 400')
  t.match(JSON.parse(r.body), { label: 'ca-repo-rrdp-foreign', args: { ca: 'ca1', publisher: 'ca1', uri: evil, expected: own.repo_info.rrdp_notification_uri } }, 'labelled, naming both URIs')
  const xml = (await d.cli(['publishers', 'response', '-p', 'ca1', '-f', 'xml'])).replace(/rrdp_notification_uri="[^"]+"/, `rrdp_notification_uri="${evil}"`)
  const cli = await d.run(['repo', 'update', '-c', 'ca1', '-r', d.file('evil.xml', xml)])
  t.equal(cli.code, 1, 'svcc repo update fails')
  t.match(cli.stderr, /ca-repo-rrdp-foreign/)

  // Nothing changed: same repository, publisher still there, every object still published, no issue.
  t.equal(await d.cli(['repo', 'show', '-c', 'ca1', '-f', 'json']), repoBefore, "ca1's repository is unchanged")
  t.equal((await d.run(['publishers', 'show', '-p', 'ca1'])).code, 0, 'publisher ca1 is still there')
  await d.cli(['bulk', 'sync'])
  await d.cli(['bulk', 'refresh'])
  t.same(under('ca1')(await waitPublished(d, (u) => under('ca1')(u).length >= published.length)), published, "ca1's objects are all still published")
  t.equal(await d.cli(['issues', '-c', 'ca1']), 'no issues\n', 'ca1 has no issue')
  t.notMatch(await d.cli(['history', '-c', 'ca1']), /evil\.example|repository set/, 'no repository change in the history')

  // A legitimate move to another publisher (ca1-new) of the same repository: published there, then the old one goes.
  const request = d.file('ca1-pub-req.xml', await d.cli(['repo', 'request', '-c', 'ca1']))
  const response = d.file('ca1-new.xml', await d.cli(['publishers', 'add', '--request', request, '--publisher', 'ca1-new', '-f', 'xml']))
  await d.cli(['repo', 'update', '-c', 'ca1', '-r', response])
  t.match(await d.cli(['repo', 'show', '-c', 'ca1']), /rfc8181\/ca1-new\//, 'ca1 now uses publisher ca1-new')
  await d.cli(['bulk', 'refresh'])
  const moved = await waitPublished(d, (u) => under('ca1-new')(u).some((x) => x.endsWith('.roa')) && under('ca1')(u).length === 0, 90_000)
  t.equal(under('ca1-new')(moved).length, published.length, 'all objects are in the new jail, none left in the old one')
  await waitFor('the old publisher to be removed', async () => (await d.run(['publishers', 'show', '-p', 'ca1'])).code === 1)
  t.equal((await d.run(['publishers', 'show', '-p', 'ca1-new'])).code, 0, 'the new publisher stays')
  t.equal(await d.cli(['issues', '-c', 'ca1']), 'no issues\n', 'ca1 has no issue after the move')
})

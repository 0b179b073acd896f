/**
 * A CA can only use a repository that knows it by its own identity (issue 10, defect 4): CA `thief`, given `ca1`'s
 * repository response for the embedded repository, is refused and can neither withdraw `ca1`'s objects nor, when
 * deleted, remove publisher `ca1`; a response for another publisher handle at a remote repository is refused; and
 * repository responses with unsafe URIs (a `..` or percent-encoded jail, http service or RRDP URIs) or an identity
 * certificate that is not a certificate are refused with a label, changing nothing.
 *
 *   ta ── testbed ── ca1 (ROA 10.0.0.0/24 => 65000)      thief (no parent)
 *
 * And a CA whose embedded publisher was removed and its handle given to another party (a remote publisher with its
 * own identity) neither withdraws that party's objects nor, when deleted, removes its registration.
 */
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { TestPublisher } from '../helpers/publisher.js'

t.test("thief cannot take over ca1's jail; unsafe repository responses are refused", async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await d.cli(['add', '-c', 'thief'])
  await connect(d, 'testbed', d, 'ca1', { ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d.txt', 'A: 10.0.0.0/24 => 65000\n')])
  const ca1Objects = (u: string[]) => u.filter((x) => x.startsWith(`${d.rsyncBase}ca1/`))
  const published = ca1Objects(await waitPublished(d, (u) => u.some((x) => x.startsWith(`${d.rsyncBase}ca1/`) && x.endsWith('.roa'))))
  const api = (path: string, method = 'GET', body?: unknown) =>
    httpsRequest(`${d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
  const thiefRepo = await d.cli(['repo', 'show', '-c', 'thief', '-f', 'json'])
  const ca1Response = JSON.parse((await api('pubd/publishers/ca1/response.json')).body)
  const thiefResponse = JSON.parse((await api('pubd/publishers/thief/response.json')).body)

  // The takeover: thief points itself at ca1's jail with ca1's repository response.
  const takeover = await d.run(['repo', 'update', '-c', 'thief', '-r', d.file('ca1-repo.xml', await d.cli(['publishers', 'response', '-p', 'ca1', '-f', 'xml']))])
  t.equal(takeover.code, 1, "ca1's repository response is refused for thief")
  t.match(takeover.stderr, /ca-repo-issue/)
  t.match(takeover.stderr, /another identity certificate/)
  t.equal(await d.cli(['repo', 'show', '-c', 'thief', '-f', 'json']), thiefRepo, "thief's repository is unchanged")

  // A remote repository's response must name the publisher handle thief asked as.
  const remote = await api('cas/thief/repo', 'POST', { repository_response: { ...ca1Response, service_uri: 'https://127.0.0.1:9/rfc8181/ca1/' } })
  t.equal(remote.status, 400)
  t.match(JSON.parse(remote.body), { label: 'ca-repo-issue', msg: /is for publisher 'ca1', but CA 'thief' asks as 'thief'/ }, 'a remote response for another publisher is refused before any exchange')

  // Unsafe URIs and a broken identity certificate in a repository response.
  const jail = thiefResponse.repo_info.sia_base as string
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['a .. in sia_base', { repo_info: { ...thiefResponse.repo_info, sia_base: `${jail}../ca1/` } }, /sia_base .* '\.\.' segment/],
    ['a percent-encoded .. in sia_base', { repo_info: { ...thiefResponse.repo_info, sia_base: `${jail}%2e%2e/ca1/` } }, /sia_base .* percent-encoding/],
    ['an empty segment in sia_base', { repo_info: { ...thiefResponse.repo_info, sia_base: jail.replace(/\/$/, '//x/') } }, /sia_base .* empty/],
    ['an https sia_base', { repo_info: { ...thiefResponse.repo_info, sia_base: jail.replace(/^rsync:/, 'https:') } }, /sia_base .* rsync/],
    ['an rsync service URI', { service_uri: thiefResponse.service_uri.replace(/^https:/, 'rsync:') }, /service_uri .* https:\/\/ or http:\/\//],
    ['a dot segment in the service URI', { service_uri: `${thiefResponse.service_uri}%2E%2E/ca1/` }, /service_uri .* '\.\.'/],
    ['an http RRDP notification URI', { repo_info: { ...thiefResponse.repo_info, rrdp_notification_uri: thiefResponse.repo_info.rrdp_notification_uri.replace(/^https:/, 'http:') } }, /rrdp_notification_uri .* https/],
    ['an identity certificate that is not a certificate', { id_cert: Buffer.from('not a certificate').toString('base64') }, /identity certificate/],
  ]
  for (const [what, change, reason] of bad) {
    const r = await api('cas/thief/repo', 'POST', { repository_response: { ...thiefResponse, ...change } })
    t.equal(r.status, 400, `${what}: 400`)
    t.match(JSON.parse(r.body), { label: 'ca-repo-response-invalid-xml', msg: reason }, `${what}: labelled, saying why`)
  }
  t.equal(await d.cli(['repo', 'show', '-c', 'thief', '-f', 'json']), thiefRepo, "thief's repository is still unchanged")

  // Deleting thief removes its own publisher only; ca1's objects were never touched.
  await d.cli(['delete', '-c', 'thief'])
  t.equal((await d.run(['publishers', 'show', '-p', 'thief'])).code, 1, "thief's own publisher is gone")
  t.equal((await d.run(['publishers', 'show', '-p', 'ca1'])).code, 0, 'publisher ca1 is still there')
  await d.cli(['bulk', 'sync'])
  t.same(ca1Objects(await waitPublished(d, (u) => !u.some((x) => x.startsWith(`${d.rsyncBase}thief/`)))), published, "ca1's objects are all still published")
  t.equal(await d.cli(['issues', '-c', 'ca1']), 'no issues\n', 'ca1 has no issue')
})

t.test("a CA does not publish over, or delete, a publisher that has its handle but another identity", async (t) => {
  const d = await repoDaemon(t, { testbed: false })
  await d.cli(['add', '-c', 'ca1'])
  await d.cli(['publishers', 'remove', '-p', 'ca1'])
  const other = new TestPublisher('ca1')
  const jail = other.useResponse(await d.cli(['publishers', 'add', '--request', d.file('other.xml', other.requestXml()), '-f', 'xml'])).siaBase
  const object = { type: 'publish' as const, uri: `${jail}theirs.cer`, content: new TextEncoder().encode('their object') }
  t.same(await other.send({ type: 'delta', pdus: [object] }), { type: 'success' }, 'the other party publishes in jail ca1')
  const listed = async () => {
    const r = await other.send({ type: 'list' })
    return r.type === 'list_reply' ? r.elements.map((e) => e.uri) : [r.type]
  }

  await d.cli(['bulk', 'sync'])
  await waitFor('ca1 to report its repository issue', async () => /another identity certificate/.test(await d.cli(['issues', '-c', 'ca1'])))
  t.same(await listed(), [object.uri], "CA ca1 did not withdraw the other party's object")

  await d.cli(['delete', '-c', 'ca1'])
  t.equal((await d.run(['publishers', 'show', '-p', 'ca1'])).code, 0, "deleting CA ca1 left the other party's publisher ca1 in place")
  t.same(await listed(), [object.uri], 'with its object')
  t.match(d.output(), /publisher left in place/, 'and said so in the log')
})

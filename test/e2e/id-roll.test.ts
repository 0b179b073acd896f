/**
 * An identity key roll with the parent in another svcd (issue 25): ca1 in svcd B under testbed in svcd A (RFC 6492
 * over HTTPS, CMS-signed), publishing in B's embedded repository. `svcc id roll` leaves the roll pending (the parent is
 * elsewhere) with a new child request; the exchanges keep working with the old key before and after the parent is
 * given the new certificate (`children update --request`: A accepts the previous one until ca1 signs with the new
 * one); `svcc id roll finish` switches ca1 and the next exchange, signed with the new key, succeeds. No RFC 6492
 * exchange fails on the way, and a ROA change after the roll is published.
 *
 *   svcd A: ta ── testbed ─ ─ ─ ┐ RFC 6492 over HTTPS
 *   svcd B:                     └ ca1 (publishes in B)
 */
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'

async function api(d: RepoDaemon, path: string, method = 'GET', body?: unknown) {
  const r = await httpsRequest(`${d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
  return { status: r.status, json: r.body ? JSON.parse(r.body) : undefined }
}

/** Ask ca1's parents again until an exchange later than now is recorded; its status. */
async function nextExchange(d: RepoDaemon, what: string) {
  const after = Math.floor(Date.now() / 1000)
  return waitFor(what, async () => {
    await d.cli(['bulk', 'refresh'])
    const st = (await api(d, 'cas/ca1/parents')).json.testbed
    return st?.last_exchange && st.last_exchange.timestamp > after ? st : undefined
  }, 120_000, 500)
}

t.test('ca1 rolls its identity with its parent in another svcd: no failed RFC 6492 exchange', async (t) => {
  const a = await repoDaemon(t)
  const b = await repoDaemon(t, { testbed: false })
  await b.cli(['add', '-c', 'ca1'])
  await connect(a, 'testbed', b, 'ca1', { ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await b.cli(['show', '-c', 'ca1'])), 120_000)
  await b.cli(['roas', 'update', '-c', 'ca1', '--delta', b.file('d1.txt', 'A: 10.0.0.0/24 => 65000\n')])
  const roas = (u: string[]) => u.filter((x) => x.startsWith(`${b.rsyncBase}ca1/`) && x.endsWith('.roa')).length
  await waitPublished(b, (u) => roas(u) === 1)
  const oldRequest = await b.cli(['parents', 'request', '-c', 'ca1'])
  const old = (await api(b, 'cas/ca1/id')).json.current.hash

  const pending = JSON.parse(await b.cli(['id', 'roll', '-c', 'ca1', '-f', 'json']))
  t.equal(pending.current.hash, old, 'ca1 still signs with the old identity')
  t.ok(pending.pending, 'the roll is pending')
  t.match(pending.pending.waiting_for, ["parent 'testbed'"], 'waiting for the parent elsewhere only (the repository is in B)')
  t.match(await b.cli(['show', '-c', 'ca1']), /Identity key roll pending/, '`svcc show` says so')
  const again = await b.run(['id', 'roll', '-c', 'ca1'])
  t.equal(again.code, 1)
  t.match(again.stderr, /ca-id-roll-pending/, 'a second roll while one is pending is refused')
  const newRequest = await b.cli(['parents', 'request', '-c', 'ca1'])
  t.not(newRequest, oldRequest, 'the child request carries the new id certificate')

  let st = await nextExchange(b, 'an exchange before the parent knows the new identity')
  t.equal(st.last_exchange.result, 'Success', 'before the parent is told: the old identity works')

  await a.cli(['children', 'update', '-c', 'testbed', '--child', 'ca1', '--request', a.file('ca1-new.xml', newRequest)])
  t.equal((await api(a, 'cas/testbed/children/ca1')).json.id_cert.hash, pending.pending.hash, 'the parent has the new id certificate')
  st = await nextExchange(b, 'an exchange signed with the old key after the parent has the new certificate')
  t.equal(st.last_exchange.result, 'Success', 'the parent still accepts the previous identity')

  const finished = JSON.parse(await b.cli(['id', 'roll', 'finish', '-c', 'ca1', '-f', 'json']))
  t.equal(finished.current.hash, pending.pending.hash, 'ca1 uses the new identity')
  t.notOk(finished.pending)
  st = await nextExchange(b, 'an exchange signed with the new key')
  t.equal(st.last_exchange.result, 'Success', 'the parent accepts the new identity')

  await b.cli(['roas', 'update', '-c', 'ca1', '--delta', b.file('d2.txt', 'A: 10.1.0.0/24 => 65001\n')])
  await waitPublished(b, (u) => roas(u) === 2)
  t.notMatch(a.output(), /RFC 6492 request refused|ca-child-unauthorized/, 'the parent refused no message')
  t.equal(await b.cli(['issues', '-c', 'ca1']), 'no issues\n', 'ca1 has no issue')
})

/**
 * `svcc history` and `svcc action` (issue 6, spec §2.9): each operation in order with correct success flags,
 * time filters and paging, publication entries only with --full, one action's details, and the usage errors.
 */
import t from 'tap'
import { connect, repoDaemon, waitFor } from '../helpers/cas.js'

t.test('history of a CA, its filters and one action', async (t) => {
  const d = await repoDaemon(t)
  const start = new Date(Date.now() - 1000).toISOString()
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d.txt', 'A: 10.0.0.0/24 => 65000\nA: 10.1.0.0/24 => 65000\n')])
  const refused = await d.run(['roas', 'update', '-c', 'ca1', '--delta', d.file('bad.txt', 'A: 192.168.0.0/24 => 65000\n')])
  t.equal(refused.code, 1)
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d2.txt', 'R: 10.1.0.0/24 => 65000\n')])

  const lines = (await d.cli(['history', '-c', 'ca1'])).trim().split('\n')
  const parsed = lines.map((l) => l.split('::'))
  for (const p of parsed) {
    t.equal(p.length, 5, `time::command::key::success::actor: ${p.join('::')}`)
    t.match(p[4], /^(admin-token \(admin-token\)|svc \(svc\)|child:\S+ \(svc\))$/, 'the actor, with its provider')
    t.match(p[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  }
  const commands = parsed.map((p) => p[1])
  t.ok(parsed.filter((p) => /Update ROAs/.test(p[1]!)).every((p) => p[4] === 'admin-token (admin-token)'), 'the ROA updates name the admin token')
  t.match(commands[0], /Initialise CA 'ca1'/)
  t.ok(commands.findIndex((c) => /Add parent 'testbed'/.test(c)) < commands.findIndex((c) => /Update entitlements under parent 'testbed'/.test(c)), 'parent add, then its entitlements')
  t.ok(commands.some((c) => /Update received cert in RC '0', with resources 'asn: AS65000, ipv4: 10.0.0.0\/8'/.test(c)), 'received certificate, with its resources')
  const roaLines = parsed.filter((p) => /Update ROAs/.test(p[1]))
  t.same(roaLines.map((p) => [p[1], p[3].startsWith('OK') ? 'OK' : 'ERROR']), [['Update ROAs add: 2 remove: 0', 'OK'], ['Update ROAs add: 1 remove: 0', 'ERROR'], ['Update ROAs add: 0 remove: 1', 'OK']], 'ROA updates with counts and success flags')
  const keys = parsed.map((p) => Number(p[2]))
  t.same(keys, [...keys].sort((a, b) => a - b), 'keys increase')
  t.equal(new Set(keys).size, keys.length, 'keys are unique')
  t.notMatch(lines.join('\n'), /Publish \d+ and withdraw/, 'no publication entries without --full')
  t.match(await d.cli(['history', '-c', 'ca1', '--full']), /Publish \d+ and withdraw \d+ objects/, '--full adds publication entries')

  t.same((await d.cli(['history', '-c', 'ca1', '--rows', '2'])).trim().split('\n'), lines.slice(0, 2), 'rows')
  t.same((await d.cli(['history', '-c', 'ca1', '--rows', '2', '--offset', '2'])).trim().split('\n'), lines.slice(2, 4), 'offset')
  t.equal((await d.cli(['history', '-c', 'ca1', '--before', start])).trim(), '', 'nothing before the start')
  t.equal((await d.cli(['history', '-c', 'ca1', '--after', start])).trim().split('\n').length, lines.length, 'everything after the start')
  const json = JSON.parse(await d.cli(['history', '-c', 'ca1', '-f', 'json', '--rows', '1']))
  t.match(json, { offset: 0, total: lines.length, commands: [{ handle: 'ca1', version: keys[0], summary: { label: 'cmd-ca-init' } }] })

  const roaKey = roaLines[0][2]
  const action = await d.cli(['action', '-c', 'ca1', '--key', roaKey])
  t.match(action, /action: Update ROAs add: 2 remove: 0\nresult: OK\nchanges:\n  ROAs: added 2, removed 0/)
  const failed = await d.cli(['action', '-c', 'ca1', '--key', roaLines[1][2]])
  t.match(failed, /result: ERROR: ROA delta rejected/)
  const details = JSON.parse(await d.cli(['action', '-c', 'ca1', '--key', roaKey, '-f', 'json']))
  t.match(details, { handle: 'ca1', version: Number(roaKey), effect: { result: 'success' } })

  const tooMany = await d.run(['history', '-c', 'ca1', '--rows', '251'])
  t.equal(tooMany.code, 2, '251 rows is a usage error')
  t.match(tooMany.stderr, /at most 250/)
  const badTime = await d.run(['history', '-c', 'ca1', '--after', 'yesterday'])
  t.equal(badTime.code, 2)
  t.match(badTime.stderr, /not an RFC 3339 date-time/)
  const noKey = await d.run(['action', '-c', 'ca1', '--key', '99999'])
  t.equal(noKey.code, 1)
  t.match(noKey.stderr, /ca-history-unknown/)
  const junkKey = await d.run(['action', '-c', 'ca1', '--key', '../x'])
  t.equal(junkKey.code, 1)
  const api = await d.run(['--api', 'history', '-c', 'ca1', '--rows', '5', '--offset', '1'])
  t.match(api.stdout, /^GET https:\/\/localhost:\d+\/api\/v1\/cas\/ca1\/history\/commands\/5\/1\n/)
})

/**
 * Scoped API tokens against a real svcd and svcc (issue 24 item 3): a token for ca1 with routes-update changes ca1's
 * ROAs and nothing else (403 on ca2's ROAs, on creating a CA, on deleting ca1, on creating a token); after
 * `svcc tokens revoke` it is refused (401) at once; guessing (a wrong secret under a right id, random ids) answers
 * exactly what any bad credential does, in the same time; the list shows the last use and never a secret.
 *
 *   ta ── testbed ── ca1 (10.1.0.0/16)
 *                 └─ ca2 (10.2.0.0/16)
 */
import t from 'tap'
import type { NewTokenJson, TokenListJson } from '../../src/api/tokens.js'
import { connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest, svcc } from '../helpers/daemon.js'

async function certified(d: RepoDaemon, ca: string, ipv4: string): Promise<void> {
  await d.cli(['add', '-c', ca])
  await connect(d, 'testbed', d, ca, { ipv4 })
  await waitFor(`${ca} certified`, async () => /active/.test(await d.cli(['show', '-c', ca])))
}

function api(d: RepoDaemon, token: string, method: string, path: string, body?: unknown) {
  return httpsRequest(`${d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
}

const delta = (prefix: string) => ({ added: [{ asn: 65001, prefix, max_length: 24 }], removed: [] })
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

t.test('a token for ca1 with routes-update: ca1 ROAs only; revoked at once; guessing gets nothing', async (t) => {
  const d = await repoDaemon(t)
  await certified(d, 'ca1', '10.1.0.0/16')
  await certified(d, 'ca2', '10.2.0.0/16')

  const made = JSON.parse(await d.cli(['tokens', 'add', '--name', 'ci', '--permissions', 'routes-update,routes-read', '--cas', 'ca1', '--days', '30', '--format', 'json'])) as NewTokenJson
  t.match(made, { name: 'ci', owner: 'admin-token', owner_provider: 'admin-token', role: 'custom', permissions: ['routes-read', 'routes-update'], cas: ['ca1'], revoked: null, last_used: null })
  t.match(made.token, /^svct_[A-Za-z0-9_-]{16}_[A-Za-z0-9_-]{43}$/)
  const secret = made.token
  const as = { SVC_CLI_SERVER: d.url, SVC_CLI_TOKEN: secret }

  // It changes ca1's ROAs, through svcc.
  await svcc(['roas', 'update', '-c', 'ca1', '--delta', d.file('ca1.txt', 'A: 10.1.0.0/24 => 65001\n')], { env: as }).then((r) => t.equal(r.code, 0, `svcc roas update with the token: ${r.stderr}`))
  t.match((await svcc(['roas', 'list', '-c', 'ca1'], { env: as })).stdout, /10\.1\.0\.0\/24.*65001/, 'and reads them back')

  // Nothing else.
  const refusals: [string, string, string, unknown?][] = [
    ["ca2's ROAs", 'POST', 'cas/ca2/routes', delta('10.2.0.0/24')],
    ["reading ca2's ROAs", 'GET', 'cas/ca2/routes'],
    ['creating a CA', 'POST', 'cas', { handle: 'ca3' }],
    ['deleting ca1', 'DELETE', 'cas/ca1'],
    ['creating a token', 'POST', 'tokens', { name: 'child', permissions: ['routes-read'] }],
    ['revoking a token', 'DELETE', `tokens/${made.id}`],
  ]
  for (const [what, method, path, body] of refusals) {
    const r = await api(d, secret, method, path, body)
    t.equal(r.status, 403, `${what}: 403`)
    t.equal((JSON.parse(r.body) as { label: string }).label, 'api-insufficient-rights', what)
  }
  t.same(JSON.parse(await d.cli(['roas', 'list', '-c', 'ca2', '--format', 'json'])), [], "ca2's ROAs unchanged")
  t.match(await d.cli(['list']), /ca1/, 'ca1 still there')
  t.notMatch(await d.cli(['list']), /ca3/, 'no ca3')

  // The list: the last use, never the secret.
  const listed = await d.cli(['tokens', 'list', '--format', 'json'])
  t.notOk(listed.includes(secret.slice(-43)), 'the list holds no secret')
  const row = (JSON.parse(listed) as TokenListJson).tokens.find((x) => x.id === made.id)!
  t.ok(row.last_used !== null, `last use shown (${row.last_used})`)
  t.match(await d.cli(['tokens', 'list']), new RegExp(`^${made.id},ci,admin-token \\(admin-token\\),custom,ca1,`, 'm'), 'svcc tokens list as text')

  // Guessing: a wrong secret under the right id, and random ids, answer exactly what a bad token does, in the same time.
  const flip = (s: string) => s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A')
  const random = () => `svct_${Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString('base64url')}_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}`
  const bodies = new Set<string>()
  const times: Record<'wrong' | 'random', number[]> = { wrong: [], random: [] }
  for (let i = 0; i < 60; i++) {
    for (const kind of i % 2 === 0 ? (['wrong', 'random'] as const) : (['random', 'wrong'] as const)) {
      const start = process.hrtime.bigint()
      const r = await api(d, kind === 'wrong' ? flip(secret) : random(), 'GET', 'cas/ca1/routes')
      times[kind].push(Number(process.hrtime.bigint() - start) / 1e6)
      t.equal(r.status, 401, `${kind} ${i}: 401`)
      bodies.add(r.body)
    }
  }
  bodies.add((await api(d, 'not-a-token-at-all', 'GET', 'cas/ca1/routes')).body)
  t.equal(bodies.size, 1, `one answer for every bad credential: ${[...bodies].join(' | ')}`)
  const [wrong, rand] = [median(times.wrong), median(times.random)]
  t.comment(`median answer time: wrong secret under a right id ${wrong.toFixed(2)} ms, random id ${rand.toFixed(2)} ms`)
  t.ok(Math.abs(wrong - rand) < Math.max(3, 0.5 * Math.min(wrong, rand)), `no time difference to tell them apart (${wrong.toFixed(2)} vs ${rand.toFixed(2)} ms)`)

  // Revoked with svcc: refused at once.
  t.equal((await api(d, secret, 'GET', 'cas/ca1/routes')).status, 200, 'live before')
  await d.cli(['tokens', 'revoke', made.id])
  const after = await api(d, secret, 'GET', 'cas/ca1/routes')
  t.equal(after.status, 401, 'refused at once after svcc tokens revoke')
  t.equal(after.body, [...bodies][0], 'as any bad credential')
  t.equal((await svcc(['tokens', 'revoke', made.id], { env: d.env })).code, 0, 'revoking again: done, nothing changes')
  const unknown = await svcc(['tokens', 'revoke', 'AAAAAAAAAAAAAAAA'], { env: d.env })
  t.not(unknown.code, 0, 'an unknown id fails')
  t.match(unknown.stderr, /api-token-unknown|Unknown API token/)
  const revoked = (JSON.parse(await d.cli(['tokens', 'list', '--format', 'json'])) as TokenListJson).tokens.find((x) => x.id === made.id)!
  t.ok(revoked.revoked, 'listed as revoked')

  // Bad input: labelled, nothing made.
  for (const [what, body] of [
    ['a bad name', { name: 'no spaces', role: 'readonly' }],
    ['role and permissions', { name: 'x', role: 'readonly', permissions: ['read'] }],
    ['an unknown permission', { name: 'x', permissions: ['fly'] }],
    ['a past expiry', { name: 'x', role: 'readonly', expires: '2001-01-01T00:00:00Z' }],
    ['an unknown field', { name: 'x', role: 'readonly', secret: 'mine' }],
  ] as const) {
    const r = await api(d, d.token, 'POST', 'tokens', body)
    t.equal(r.status, 400, what)
    t.equal((JSON.parse(r.body) as { label: string }).label, 'api-invalid-body', what)
  }
  t.equal((await api(d, d.token, 'POST', 'tokens', { name: 'ci', role: 'readonly' })).status, 200, "a revoked token's name can be used again")
  const dup = await api(d, d.token, 'POST', 'tokens', { name: 'ci', role: 'readonly' })
  t.same([dup.status, (JSON.parse(dup.body) as { label: string }).label], [400, 'api-token-duplicate'], 'but not a live one')
  t.equal((JSON.parse(await d.cli(['tokens', 'list', '--format', 'json'])) as TokenListJson).tokens.length, 1, 'nothing else was made')
  t.notOk(d.output().includes(secret.slice(-43)), 'the secret is nowhere in the log')
})

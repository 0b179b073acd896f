/**
 * Four-eyes change control with real users (issue 27 acceptance; design.md §12): svcd with `auth_type = "config-file"`
 * and users made by the real `svcc config user`: alice and bob (readwrite), carol (readonly), dave (a role that may
 * change ROAs but not approve). With four-eyes on, alice's direct ROA update is refused (409 ca-plan-required) and
 * changes nothing; alice's plan cannot be approved (403 ca-plan-own-approval) or applied (409 ca-plan-not-approved) by
 * alice, nor approved by carol or dave (403); bob's approval applies it, the ROA is published, and the audit trail and
 * the CA's history name who did what. With `change_control_four_eyes = true` in the configuration four-eyes holds
 * whatever the CA's own setting says.
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8)
 */
import t from 'tap'
import type { AuditPageJson } from '../../src/api/audit.js'
import type { CommandHistoryJson } from '../../src/api/cas.js'
import type { PlanJson } from '../../src/api/plans.js'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest, svcc } from '../helpers/daemon.js'

/** An [auth_users] entry from the real svcc (password on standard input). */
async function entry(id: string, role: string, password: string): Promise<string> {
  const r = await svcc(['config', 'user', '--id', id, '--role', role], { stdin: `${password}\n${password}\n` })
  if (r.code !== 0) throw new Error(`svcc config user: ${r.code} ${r.stderr}`)
  return r.stdout.replace(/^\[auth_users\]\n/, '')
}

/** A user's bearer token, from a real login with Basic credentials. */
async function login(d: RepoDaemon, id: string, password: string): Promise<string> {
  const r = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: { Authorization: `Basic ${Buffer.from(`${id}:${password}`).toString('base64')}` } })
  if (r.status !== 200) throw new Error(`login ${id}: ${r.status} ${r.body}`)
  return (JSON.parse(r.body) as { token: string }).token
}

async function ca1(d: RepoDaemon): Promise<void> {
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
}

t.test('four-eyes: alice plans, bob approves; refusals change nothing; audit and history name them', async (t) => {
  const users = await Promise.all([entry('alice', 'readwrite', 'alice-pw'), entry('bob', 'readwrite', 'bob-pw'), entry('carol', 'readonly', 'carol-pw'), entry('dave', 'noapprove', 'dave-pw')])
  const toml = ['auth_type = "config-file"', '[auth_roles]', 'noapprove = { permissions = ["login", "ca-read", "routes-read", "routes-update"] }', '[auth_users]', ...users].join('\n')
  const d = await repoDaemon(t, { toml, logLevel: 'info' })
  await ca1(d)
  const tokens = { alice: await login(d, 'alice', 'alice-pw'), bob: await login(d, 'bob', 'bob-pw'), carol: await login(d, 'carol', 'carol-pw'), dave: await login(d, 'dave', 'dave-pw') }
  const as = (user: keyof typeof tokens, args: string[]) => svcc(args, { env: { SVC_CLI_SERVER: d.url, SVC_CLI_TOKEN: tokens[user] } })
  const roas = async () => (await d.cli(['roas', 'list', '-c', 'ca1'])).trim()

  t.equal((await d.cli(['plan', 'four-eyes', '-c', 'ca1'])).trim(), 'four-eyes: off')
  t.equal((await as('alice', ['plan', 'four-eyes', '-c', 'ca1', 'on'])).code, 1, 'readwrite may not set four-eyes (ca-admin)')
  t.equal((await d.cli(['plan', 'four-eyes', '-c', 'ca1', 'on'])).trim(), 'four-eyes: on', 'the admin token sets it')
  t.same(JSON.parse(await d.cli(['plan', 'four-eyes', '-c', 'ca1', '-f', 'json'])), { four_eyes: true })

  const direct = await as('alice', ['roas', 'update', '-c', 'ca1', '--add', '10.1.0.0/16-20 => 65000'])
  t.equal(direct.code, 1, 'a direct update is refused')
  t.match(direct.stderr, /ca-plan-required/)
  t.equal(await roas(), '', 'nothing changed')

  const made = await as('alice', ['plan', 'create', '-c', 'ca1', '--add', '10.1.0.0/16-20 => 65000', '--comment', 'alice adds 10.1/16', '-f', 'json'])
  t.equal(made.code, 0, made.stderr)
  const plan = JSON.parse(made.stdout) as PlanJson
  t.match(plan, { status: 'open', needs_approval: true, comment: 'alice adds 10.1/16', created: { by: 'alice', provider: 'config-file' } })
  const text = await as('alice', ['plan', 'show', '-c', 'ca1', '--plan', String(plan.id)])
  t.match(text.stdout, new RegExp(`plan ${plan.id} of ca1: open`))
  t.match(text.stdout, /\+ 10\.1\.0\.0\/16-20 => 65000/, 'the diff')
  t.match(text.stdout, /needs approval: yes/)

  const own = await as('alice', ['plan', 'approve', '-c', 'ca1', '--plan', String(plan.id)])
  t.equal(own.code, 1)
  t.match(own.stderr, /ca-plan-own-approval/, "alice cannot approve her own plan")
  const ownHttp = await httpsRequest(`${d.url}api/v1/cas/ca1/plans/${plan.id}/approve`, { method: 'POST', headers: { Authorization: `Bearer ${tokens.alice}` } })
  t.same([ownHttp.status, JSON.parse(ownHttp.body).label], [403, 'ca-plan-own-approval'])
  const early = await as('alice', ['plan', 'apply', '-c', 'ca1', '--plan', String(plan.id)])
  t.match(early.stderr, /ca-plan-not-approved/, 'nor apply it unapproved')
  for (const user of ['carol', 'dave'] as const) {
    const r = await httpsRequest(`${d.url}api/v1/cas/ca1/plans/${plan.id}/approve`, { method: 'POST', headers: { Authorization: `Bearer ${tokens[user]}` } })
    t.equal(r.status, 403, `${user} may not approve`)
    t.not(JSON.parse(r.body).label, 'ca-plan-own-approval')
  }
  t.equal(await roas(), '', 'still nothing changed')
  t.equal(JSON.parse((await as('bob', ['plan', 'show', '-c', 'ca1', '--plan', String(plan.id), '-f', 'json'])).stdout).status, 'open')

  const approved = await as('bob', ['plan', 'approve', '-c', 'ca1', '--plan', String(plan.id), '-f', 'json'])
  t.equal(approved.code, 0, approved.stderr)
  const done = JSON.parse(approved.stdout) as PlanJson
  t.match(done, { status: 'applied', approved: { by: 'bob' }, applied: { by: 'bob', version: Number } })
  t.equal(await roas(), '10.1.0.0/16-20 => 65000', 'the ROA is configured')
  await waitPublished(d, (uris) => uris.some((u) => u.endsWith('.roa')))

  // The audit trail: alice made it, bob approved and applied it; alice's refused steps are there too.
  const audit = JSON.parse((await httpsRequest(`${d.url}api/v1/audit?ca=ca1&order=asc&limit=1000`, { headers: { Authorization: `Bearer ${d.token}` } })).body) as AuditPageJson
  const of = (kind: string) => audit.records.filter((r) => r.kind === kind)
  t.match(of('plan-create'), [{ actor: 'alice', provider: 'config-file', ca: 'ca1', success: true, details: { plan: plan.id, comment: 'alice adds 10.1/16', source: 'delta', roas_added: 1 } }])
  t.match(of('plan-approve').filter((r) => r.success), [{ actor: 'bob', ca: 'ca1', details: { plan: plan.id } }])
  t.match(of('plan-approve').filter((r) => !r.success), [{ actor: 'alice', details: { plan: plan.id, error: { label: 'ca-plan-own-approval' } } }, { actor: 'alice', details: { error: { label: 'ca-plan-own-approval' } } }], 'her refused approvals')
  t.match(of('plan-apply'), [{ actor: 'alice', success: false, details: { error: { label: 'ca-plan-not-approved' } } }, { actor: 'bob', success: true, details: { version: done.applied!.version } }], 'the refused apply, then the plan-apply command by bob')
  // The CA's history names bob for the change.
  const history = JSON.parse(await d.cli(['history', '-c', 'ca1', '-f', 'json'])) as CommandHistoryJson
  const entryOf = history.commands.find((c) => c.version === done.applied!.version)
  t.match(entryOf, { actor: 'bob', actor_provider: 'config-file' }, 'the history names bob')
})

t.test('change_control_four_eyes = true: enforced for every CA, whatever the CA says', async (t) => {
  const d = await repoDaemon(t, { toml: 'change_control_four_eyes = true', logLevel: 'info' })
  await ca1(d)
  t.same(JSON.parse(await d.cli(['plan', 'four-eyes', '-c', 'ca1', '-f', 'json'])), { four_eyes: true, enforced: true })
  t.same(JSON.parse(await d.cli(['plan', 'four-eyes', '-c', 'ca1', 'off', '-f', 'json'])), { four_eyes: true, enforced: true }, 'turning it off does not')
  t.match(await d.cli(['plan', 'four-eyes', '-c', 'ca1']), /four-eyes: on \(enforced by the configuration/)
  const direct = await d.run(['roas', 'update', '-c', 'ca1', '--add', '10.1.0.0/16 => 65000'])
  t.equal(direct.code, 1)
  t.match(direct.stderr, /ca-plan-required/)
  const plan = JSON.parse(await d.cli(['plan', 'create', '-c', 'ca1', '--add', '10.1.0.0/16 => 65000', '-f', 'json'])) as PlanJson
  t.equal(plan.needs_approval, true)
  const own = await d.run(['plan', 'approve', '-c', 'ca1', '--plan', String(plan.id)])
  t.match(own.stderr, /ca-plan-own-approval/, 'the admin token cannot approve its own plan either')
  t.equal((await d.cli(['roas', 'list', '-c', 'ca1'])).trim(), '', 'nothing changed')
})

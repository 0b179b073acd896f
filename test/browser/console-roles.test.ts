/**
 * The console with users and roles (issue 24 item 5), in headless Chromium against a real svcd with
 * `auth_type = "config-file"`: the user and password form (HTTP Basic), who is logged in in the header (GET
 * /api/v1/whoami), a readonly user who sees CAs and ROAs but no control to change them, and whose forced write (the
 * client's copy of the role tampered with, so the controls show) is refused by svcd with the missing permission shown;
 * a user limited to ca1 who never sees ca2 in the lists and is refused /ui/cas/ca2; the API tokens page (a token whose
 * secret is shown once and works with svcc, then revoked); the audit page filtered on the server; logout ending the
 * session at svcd. axe-core on each page.
 *
 *   ta (embedded TA)
 *    └─ testbed
 *        ├─ ca1  AS65000-AS65010, 10.0.0.0/8     a ROA 10.1.0.0/16 => AS65001
 *        └─ ca2  AS65020-AS65030, 172.16.0.0/12  a ROA 172.16.0.0/16 => AS65020
 */
import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest, svcc } from '../helpers/daemon.js'
import { artifactDir, checkPage, openConsole, NO_CHROMIUM, startBrowser, userEntry } from '../helpers/browser.js'

const SHOTS = artifactDir('console-roles')


const USERS = { readonly: ['ro@example.com', 'read-only pässword'], ca1: ['one@example.com', 'ca1 only, please'] } as const

const open = (page: Page, d: RepoDaemon, path: string, ready: string) => openConsole(page, d.port, path, ready)

const check = (t: Test, page: Page, name: string) => checkPage(t, page, SHOTS, name)

async function logIn(page: Page, d: RepoDaemon, [user, password]: readonly [string, string]): Promise<void> {
  await page.goto(`https://localhost:${d.port}/ui/`)
  await page.getByLabel('User').fill(user)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Log in' }).click()
  await page.getByTestId('who-id').filter({ hasText: user }).waitFor()
}

async function logOut(page: Page): Promise<string> {
  const token = (JSON.parse((await page.evaluate("sessionStorage.getItem('svc.session')")) as string) as { token: string }).token
  await page.getByRole('button', { name: 'Log out' }).click()
  await page.getByLabel('Password').waitFor()
  return token
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

t.test('the console with config-file users and roles, in Chromium', { skip: NO_CHROMIUM }, async (t) => {
  const roles = '[auth_roles]\n"ca1-only" = { permissions = ["login", "ca-list", "read", "update", "routes-analysis"], cas = ["ca1"] }\n'
  const users = `[auth_users]\n${userEntry(USERS.readonly[0], 'readonly', USERS.readonly[1])}\n${userEntry(USERS.ca1[0], 'ca1-only', USERS.ca1[1])}\n`
  const d = await repoDaemon(t, { toml: `auth_type = "config-file"\n${roles}${users}` })
  // The tree, built with the admin token (still valid as a bearer token whatever the login provider).
  const admin = bearer(d.token)
  for (const [ca, res, roa] of [['ca1', { asn: 'AS65000-AS65010', ipv4: '10.0.0.0/8' }, { asn: 65001, prefix: '10.1.0.0/16', max_length: 16 }], ['ca2', { asn: 'AS65020-AS65030', ipv4: '172.16.0.0/12' }, { asn: 65020, prefix: '172.16.0.0/16', max_length: 16 }]] as const) {
    await d.cli(['add', '-c', ca])
    await connect(d, 'testbed', d, ca, res)
    await waitFor(`${ca} certified`, async () => /active/.test(await d.cli(['show', '-c', ca])))
    const r = await httpsRequest(`${d.url}api/v1/cas/${ca}/routes`, { method: 'POST', headers: { ...admin, 'Content-Type': 'application/json' }, body: JSON.stringify({ added: [roa], removed: [] }) })
    t.equal(r.status, 200, `a ROA for ${ca}`)
  }
  const { page } = await startBrowser(t)

  await t.test('the login form of config-file users: a wrong password refused, the right one logs in', async (t) => {
    await page.goto(`https://localhost:${d.port}/ui/`)
    await page.getByLabel('User').fill(USERS.readonly[0])
    await page.getByLabel('Password').fill('wrong')
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('alert').filter({ hasText: /api-invalid-credentials|api-login-error/ }).waitFor()
    t.pass('refused with the label of svcd')
    t.equal(await page.getByLabel('Token').count(), 0, 'no token form')
    await check(t, page, 'login-password')
    await logIn(page, d, USERS.readonly)
    t.equal(await page.getByTestId('who-role').textContent(), 'readonly', 'the role in the header')
    t.match(await page.getByTestId('who').textContent(), /ro@example\.com.*user, role readonly/, 'who and how, from whoami')
    t.equal(await page.evaluate('localStorage.length'), 0, 'nothing in localStorage')
    const kept = JSON.parse((await page.evaluate("sessionStorage.getItem('svc.session')")) as string) as { who: { provider: string; permissions: string[] } }
    t.equal(kept.who.provider, 'config-file', 'whoami kept in the session')
    t.notOk(kept.who.permissions.includes('routes-update'))
  })

  await t.test('a readonly user sees CAs and ROAs, and no control to change them', async (t) => {
    await page.getByTestId('ca-list').getByRole('link', { name: 'ca2' }).waitFor()
    t.same((await page.getByTestId('ca-list').getByRole('link').allTextContents()).sort(), ['ca1', 'ca2', 'ta', 'testbed'], 'every CA')
    await check(t, page, 'readonly-dashboard')
    await open(page, d, '/ui/cas', 'text=All CAs')
    await page.getByRole('link', { name: 'ca1' }).waitFor()
    t.equal(await page.getByRole('button', { name: 'Add CA' }).count(), 0, 'no Add CA (ca-create)')
    t.equal(await page.getByRole('button', { name: /^Delete / }).count(), 0, 'no Delete (ca-delete)')
    await check(t, page, 'readonly-cas')
    await open(page, d, '/ui/cas/ca1/roas', 'role=cell[name="10.1.0.0/16"]')
    t.equal(await page.getByRole('button', { name: 'Stage addition' }).count(), 0, 'no ROA form (routes-update)')
    t.equal(await page.getByRole('button', { name: /^Remove / }).count(), 0, 'no Remove (routes-update)')
    await check(t, page, 'readonly-roas')
    await open(page, d, '/ui/cas/ca1', '[data-testid=key-state]')
    for (const b of ['Start key roll', 'Activate new key', 'Sync with the parents now', 'Sync with the repository now']) t.equal(await page.getByRole('button', { name: b }).count(), 0, `no ${b} (ca-update)`)
    await open(page, d, '/ui/cas/ca1/aspas', 'text=No ASPA definitions.')
    t.equal(await page.getByRole('button', { name: 'Save ASPA' }).count(), 0, 'no ASPA form (aspas-update)')
    await open(page, d, '/ui/cas/ca1/bgpsec', 'text=No router keys.')
    t.equal(await page.getByRole('button', { name: 'Add router key' }).count(), 0, 'no router key form (bgpsec-update)')
    await open(page, d, '/ui/cas/testbed/children', 'h3')
    for (const b of ['Add child', 'Change resources', 'Suspend', 'Remove']) t.equal(await page.getByRole('button', { name: b, exact: true }).count(), 0, `no ${b} (ca-update)`)
    await open(page, d, '/ui/cas/ca1/parents', 'h3')
    t.equal(await page.getByRole('button', { name: 'Add parent' }).count(), 0, 'no Add parent (ca-update)')
    t.equal(await page.getByRole('button', { name: /^Remove parent/ }).count(), 0, 'no Remove parent (ca-update)')
    await open(page, d, '/ui/cas/ca1/repository', '[data-testid=repo-kind]')
    t.equal(await page.getByRole('button', { name: 'Use this repository' }).count(), 0, 'no repository change (ca-update)')
    await open(page, d, '/ui/pubd', '[data-testid=pubd-serial]')
    t.equal(await page.getByRole('button', { name: 'Add publisher' }).count(), 0, 'no Add publisher (pub-create)')
    t.equal(await page.getByRole('button', { name: /^Remove / }).count(), 0, 'no Remove publisher (pub-delete)')
    await check(t, page, 'readonly-pubd')
  })

  await t.test("a forced write (the client's copy of the role tampered with) is refused by svcd, naming the permission", async (t) => {
    await page.evaluate(`(() => { const s = JSON.parse(sessionStorage.getItem('svc.session')); s.who.permissions.push('ca-create', 'routes-update'); sessionStorage.setItem('svc.session', JSON.stringify(s)) })()`)
    await open(page, d, '/ui/cas', 'text=All CAs')
    await page.getByLabel('Handle').fill('ca3')
    await page.getByRole('button', { name: 'Add CA' }).click()
    const alert = page.getByRole('alert').filter({ hasText: 'api-insufficient-rights' })
    await alert.waitFor()
    t.match(await alert.textContent(), /\bca-create\b/, 'the missing permission, from the server')
    await check(t, page, 'readonly-refused')
    const cas = await httpsRequest(`${d.url}api/v1/cas`, { headers: admin })
    t.notMatch(cas.body, /ca3/, 'nothing changed')

    await open(page, d, '/ui/cas/ca1/roas', 'role=cell[name="10.1.0.0/16"]')
    await page.getByRole('button', { name: 'Remove 10.1.0.0/16-16 => AS65001' }).click()
    await page.getByRole('button', { name: 'Apply 1 change' }).click()
    const refused = page.getByRole('alert').filter({ hasText: 'api-insufficient-rights' })
    await refused.waitFor()
    t.match(await refused.textContent(), /\broutes-update\b.*\bca1\b/, 'the missing permission and the CA')
    const roas = await httpsRequest(`${d.url}api/v1/cas/ca1/routes`, { headers: admin })
    t.match(roas.body, /10\.1\.0\.0\/16/, 'the ROA is still there')
  })

  await t.test('logout ends the session at svcd: the old token is refused', async (t) => {
    const token = await logOut(page)
    t.equal(await page.evaluate("sessionStorage.getItem('svc.session')"), null, 'forgotten by the tab')
    t.equal((await httpsRequest(`${d.url}api/v1/whoami`, { headers: bearer(token) })).status, 401, 'refused by svcd')
  })

  await t.test('a user limited to ca1 never sees ca2, and is refused /ui/cas/ca2', async (t) => {
    await logIn(page, d, USERS.ca1)
    t.match(await page.getByTestId('who').textContent(), /role ca1-only, CAs ca1/)
    await page.getByTestId('ca-list').getByRole('link', { name: 'ca1' }).waitFor()
    t.same(await page.getByTestId('ca-list').getByRole('link').allTextContents(), ['ca1'], 'the dashboard lists ca1 only')
    await open(page, d, '/ui/cas', 'role=link[name="ca1"]')
    t.equal(await page.getByRole('link', { name: 'ca2' }).count(), 0, 'the CA list: no ca2')
    t.equal(await page.getByRole('link', { name: 'testbed' }).count(), 0, 'nor testbed')
    await open(page, d, '/ui/cas/ca1/roas', 'role=cell[name="10.1.0.0/16"]')
    t.ok(await page.getByRole('button', { name: 'Stage addition' }).isVisible(), 'ROA changes on ca1 (routes-update)')
    t.equal(await page.getByRole('button', { name: 'Start key roll' }).count(), 0)
    await open(page, d, '/ui/cas/ca2', '[data-testid=ca-refused]')
    t.match(await page.getByTestId('ca-refused').textContent(), /may not see CA ca2/, 'a refusal, no data')
    await check(t, page, 'ca1-refused-ca2')
    const token = (JSON.parse((await page.evaluate("sessionStorage.getItem('svc.session')")) as string) as { token: string }).token
    const direct = await httpsRequest(`${d.url}api/v1/cas/ca2`, { headers: bearer(token) })
    t.equal(direct.status, 403, 'svcd refuses ca2 too')
  })

  await t.test('API tokens: created with a narrower scope, the secret shown once and working with svcc, revoked', async (t) => {
    await open(page, d, '/ui/tokens', 'text=New token')
    await check(t, page, 'tokens-empty')
    await page.getByLabel('Name').fill('ci')
    await page.getByLabel('Some of my permissions').check()
    for (const p of ['login', 'ca-read', 'routes-read', 'routes-update']) await page.getByRole('checkbox', { name: p, exact: true }).check()
    await page.getByLabel('CAs').fill('ca1')
    await page.getByRole('button', { name: 'Create token' }).click()
    const secret = await page.getByTestId('token-secret').inputValue()
    t.match(secret, /^svct_/, 'the secret, shown')
    t.ok(await page.getByText('shown only this once').isVisible(), 'with a warning')
    t.ok(await page.getByRole('button', { name: 'Copy' }).isVisible(), 'and a copy button')
    await page.getByRole('cell', { name: 'ci', exact: true }).waitFor()
    await check(t, page, 'tokens-created')
    const env = { ...d.env, SVC_CLI_TOKEN: secret }
    const listed = await svcc(['roas', 'list', '-c', 'ca1'], { env })
    t.equal(listed.code, 0, `svcc with the token: ${listed.stderr}`)
    t.match(listed.stdout, /10\.1\.0\.0\/16/)
    const who = JSON.parse((await httpsRequest(`${d.url}api/v1/whoami`, { headers: bearer(secret) })).body) as Record<string, unknown>
    t.match(who, { id: 'one@example.com', provider: 'api-token', token: 'ci', cas: ['ca1'], permissions: ['login', 'ca-read', 'routes-read', 'routes-update'] }, 'whoami names the owner and the token')
    const other = await svcc(['roas', 'list', '-c', 'ca2'], { env })
    t.not(other.code, 0, 'not on ca2')
    await open(page, d, '/ui/tokens', 'role=cell[name="ci"]')
    t.equal(await page.getByTestId('token-secret').count(), 0, 'the secret is not shown again')
    t.notMatch(await page.content(), new RegExp(secret.slice(-12)), 'nowhere on the page')
    await page.getByTestId('token-last-used').filter({ hasNotText: 'never' }).waitFor()
    t.pass('its last use listed')
    await page.getByRole('button', { name: 'Revoke ci' }).click()
    await page.getByRole('button', { name: 'Yes, revoke ci' }).click()
    await page.getByTestId('token-revoked').filter({ hasNotText: /^no$/ }).waitFor()
    t.equal(await page.getByRole('button', { name: 'Revoke ci' }).count(), 0, 'revoked')
    const after = await svcc(['roas', 'list', '-c', 'ca1'], { env })
    t.not(after.code, 0, 'refused after the revocation')
  })

  await t.test('the audit page: the token changes by this user, filtered on the server; nothing of ca2', async (t) => {
    await open(page, d, '/ui/audit', '[data-testid=audit-kind]')
    await check(t, page, 'audit')
    await page.getByLabel('Kind').fill('token-revoke')
    await page.getByLabel('Kind').press('Tab')
    await page.getByTestId('audit-kind').filter({ hasNotText: 'token-revoke' }).first().waitFor({ state: 'detached' })
    t.same(await page.getByTestId('audit-kind').allTextContents(), ['token-revoke'], 'one revocation')
    t.match(await page.getByTestId('audit-actor').first().textContent(), /one@example\.com/, 'by this user')
    await page.getByLabel('Kind').fill('')
    await page.getByLabel('CA', { exact: true }).fill('ca2')
    await page.getByLabel('CA', { exact: true }).press('Tab')
    await page.getByText('No records.').waitFor()
    t.pass('nothing about ca2 for a user limited to ca1')
  })

  await t.test('a login through the provider that failed: /ui/login?error=<label> shows the label, nothing else', async (t) => {
    await logOut(page)
    await page.goto(`https://localhost:${d.port}/ui/login?error=api-login-error`)
    await page.getByRole('alert').filter({ hasText: 'api-login-error' }).waitFor()
    await page.goto(`https://localhost:${d.port}/ui/login?error=${encodeURIComponent('<b>Call 555</b>')}`)
    await page.getByLabel('User').waitFor()
    t.equal(await page.getByRole('alert').count(), 0, 'text that is no label is not shown')
  })
})

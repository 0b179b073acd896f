/**
 * The console's OpenID Connect login in headless Chromium (issue 24): a real provider (oidc-provider,
 * test/helpers/oidc-op.ts) and a real svcd with `auth_type = "openid-connect"`. Open /ui/, choose the OpenID Connect
 * login, sign in at the provider as bob (group noc → role readonly), land back in the console logged in as bob: svcd's
 * callback set the one-time cookie and sent the browser to /ui/login/callback, whose POST /auth/login
 * `{"exchange": true}` got the session. The session secret is never in a URL, the cookie is gone afterwards, and the
 * logout goes through the provider's end-session page. A refused callback shows the error label on the login page.
 */
import t from 'tap'
import { join } from 'node:path'
import { freePort, httpsRequest, startDaemon } from '../helpers/daemon.js'
import { artifactDir, axeViolations, NO_CHROMIUM, startBrowser } from '../helpers/browser.js'
import { startOp } from '../helpers/oidc-op.js'

const SHOTS = artifactDir('login-oidc')

t.test('the console logs in through the OpenID Connect provider', { skip: NO_CHROMIUM }, async (t) => {
  const port = await freePort()
  const serviceUri = `https://localhost:${port}/`
  const op = await startOp(t, { serviceUri })
  const d = await startDaemon(t, { port, toml: `auth_type = "openid-connect"\n${op.toml}` })
  const { context, page } = await startBrowser(t)
  const visited: string[] = []
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) visited.push(f.url())
  })
  page.on('request', (r) => visited.push(r.url()))

  await t.test('/ui/ offers the OpenID Connect login; the provider signs bob in; the console shows bob', async (t) => {
    await page.goto(`${serviceUri}ui/`)
    await page.getByRole('button', { name: 'Log in with OpenID Connect' }).click()
    await page.getByLabel('Account').fill('bob@example.com')
    t.ok(page.url().startsWith(`${op.issuer}/interaction/`), "at the provider's login page")
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByTestId('who-id').filter({ hasText: 'bob@example.com' }).waitFor()
    t.pass('logged in as bob')
    t.equal(await page.getByTestId('who-role').textContent(), 'readonly', "bob's role from the provider's groups claim")
    t.equal(new URL(page.url()).pathname, '/ui/', 'on the dashboard')
    t.same(await axeViolations(page), [], 'no serious or critical accessibility violation')
    await page.screenshot({ path: join(SHOTS, 'logged-in.png'), fullPage: true })
    const session = JSON.parse((await page.evaluate("sessionStorage.getItem('svc.session')")) as string) as { token: string; id: string }
    t.equal(session.id, 'bob@example.com')
    t.notOk(visited.some((u) => u.includes(session.token)), 'the session secret was in no URL the browser asked for')
    t.ok(visited.some((u) => u.startsWith(`${serviceUri}ui/login/callback`)), 'back through the console callback page')
    t.same((await context.cookies(serviceUri + 'auth/login')).filter((c) => c.name === 'svc_login'), [], 'the one-time cookie is gone')
  })

  await t.test('logging out ends the session at svcd and goes through the provider', async (t) => {
    const token = (JSON.parse((await page.evaluate("sessionStorage.getItem('svc.session')")) as string) as { token: string }).token
    await page.getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL((u) => u.href.startsWith(`${op.issuer}/session/end`))
    t.pass("at the provider's end-session page")
    const r = await httpsRequest(`${serviceUri}api/v1/cas`, { headers: { authorization: `Bearer ${token}` } })
    t.equal(r.status, 401, 'the session is dead at svcd')
  })

  await t.test('a refused callback shows the label on the login page', async (t) => {
    await page.goto(`${serviceUri}auth/callback?state=forged&code=forged`)
    await page.getByRole('alert').filter({ hasText: 'api-login-error' }).waitFor()
    t.equal(new URL(page.url()).pathname, '/ui/login')
    t.same(await axeViolations(page), [], 'no serious or critical accessibility violation')
    await page.screenshot({ path: join(SHOTS, 'refused.png'), fullPage: true })
  })
  await d.stop()
})

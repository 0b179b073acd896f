/**
 * The web console in headless Chromium against a real svcd (issue 15): the login (a wrong token refused, logout, a
 * 401 bringing the login back), every page with real data, axe-core on each (no serious or critical violation) and a
 * screenshot of each in test-artifacts/console/, a CA made under testbed through the console alone (its RFC 8183
 * child request downloaded, uploaded as testbed's child, the parent response downloaded and uploaded back), ROAs
 * added and removed with the server's per-line errors on a refused delta, the history showing the actions, and bad
 * input (a file that is not RFC 8183) answered with the server's labelled error, and each ROA's BGP analysis state
 * against a generated RIS whois dump.
 *
 *   ta (embedded TA)
 *    └─ testbed
 *        └─ ca1  AS65000-AS65010, 10.0.0.0/8   made through the console
 */
import t, { type Test } from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest, tempDir } from '../helpers/daemon.js'
import { artifactDir, checkPage, openConsole, NO_CHROMIUM, startBrowser } from '../helpers/browser.js'
import { TestPublisher } from '../helpers/publisher.js'

const SHOTS = artifactDir('console')

const open = (page: Page, d: RepoDaemon, path: string, ready: string) => openConsole(page, d.port, path, ready)

const check = (t: Test, page: Page, name: string) => checkPage(t, page, SHOTS, name)

/** Click a download button and answer the file's text. */
async function download(page: Page, button: string): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).first().click()])
  return readFileSync((await file.path())!, 'utf8')
}

t.test('the console, in Chromium, against svcd', { skip: NO_CHROMIUM }, async (t) => {
  // BGP announcements from a generated RIS whois dump (a file): 10.1.0.0/16 by AS65001, seen by 50 peers.
  const dump = join(tempDir(t), 'riswhoisdump.IPv4')
  writeFileSync(dump, ['% generated for the console test', '65001\t10.1.0.0/16\t50', '64512\t172.16.0.0/24\t40', ''].join('\n'))
  const d = await repoDaemon(t, { toml: `bgp_riswhois_enabled = true\nbgp_riswhois_v4_uri = "${dump}"\nbgp_riswhois_v6_uri = ""\n` })
  const files = (name: string, text: string) => d.file(name, text)
  const { page } = await startBrowser(t)

  await t.test('served at /ui/ with a CSP; / redirects there; deep links load the console', async (t) => {
    const root = await httpsRequest(`https://localhost:${d.port}/`)
    t.equal(root.status, 302)
    t.equal(root.headers.location, '/ui/')
    const html = await httpsRequest(`https://localhost:${d.port}/ui/cas/testbed/roas`)
    t.equal(html.status, 200, 'a deep link answers the console without the token')
    t.match(String(html.headers['content-security-policy']), /default-src 'self'/)
    t.equal(html.headers['cache-control'], 'no-cache')
    const js = /src="(\/ui\/assets\/main-[A-Z0-9]+\.js)"/.exec(html.body)?.[1]
    t.ok(js, 'a hashed script name')
    const asset = await httpsRequest(`https://localhost:${d.port}${js}`)
    t.equal(asset.status, 200)
    t.match(String(asset.headers['cache-control']), /immutable/)
    t.notMatch(html.body + asset.body, /https?:\/\/(?!localhost)[a-z0-9.-]+\.[a-z]{2,}\/[^"' ]*\.(js|css)/i, 'nothing loaded from other hosts')
    t.equal((await httpsRequest(`https://localhost:${d.port}/ui/assets/nope.js`)).status, 404)
  })

  await t.test('login: a wrong token is refused, the right one opens the dashboard', async (t) => {
    await page.goto(`https://localhost:${d.port}/ui/`)
    await page.getByLabel('Token').fill('wrong-token')
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('alert').filter({ hasText: 'api-invalid-credentials' }).waitFor()
    t.pass('the server refused the wrong token with its label')
    await check(t, page, 'login')
    await page.getByLabel('Token').fill(d.token)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByTestId('ca-list').getByRole('link', { name: 'testbed' }).waitFor()
    t.equal(await page.evaluate('localStorage.length'), 0, 'nothing in localStorage')
    t.match(await page.evaluate("sessionStorage.getItem('svc.session')"), /"id":"admin-token"/, 'the session is kept for the tab only')
    await page.getByTestId('rrdp-serial').waitFor()
    t.match(await page.getByTestId('rrdp-session').textContent(), /^[0-9a-f-]{36}$/, 'the RRDP session')
    await check(t, page, 'dashboard')
  })

  await t.test('a CA made under testbed through the console alone (RFC 8183 files down and up)', async (t) => {
    await open(page, d, '/ui/cas', 'text=All CAs')
    await check(t, page, 'cas')
    await page.getByLabel('Handle').fill('ca1')
    await page.getByRole('button', { name: 'Add CA' }).click()
    await page.waitForURL('**/ui/cas/ca1/parents')
    const childRequest = await download(page, 'Download the child request')
    t.match(childRequest, /<child_request [^>]*child_handle="ca1"/, 'the child request, downloaded')

    // Bad input: a file that is not an RFC 8183 parent response is refused by svcd with its label; nothing changes.
    await page.setInputFiles('#file-parent-response', files('not-8183.xml', '<hello>not RFC 8183</hello>'))
    await page.getByRole('button', { name: 'Add parent' }).click()
    const refusal = await page.getByRole('alert').filter({ hasText: 'Not added' }).textContent()
    const direct = await httpsRequest(`https://localhost:${d.port}/api/v1/cas/ca1/parents`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/xml' }, body: '<hello>not RFC 8183</hello>' })
    const label = (JSON.parse(direct.body) as { label: string }).label
    t.ok(refusal?.includes(label), `the server's labelled error is shown (${label}): ${refusal}`)

    await open(page, d, '/ui/cas/testbed/children', 'text=Add a child')
    await page.setInputFiles('#file-child-request', files('ca1-child-request.xml', childRequest))
    // The console reads the file asynchronously (FileReader): wait for the handle to be filled in, then check it.
    const handle = await page.getByLabel('Child handle').elementHandle()
    await page.waitForFunction((el) => (el as unknown as { value: string }).value !== '', handle)
    t.equal(await page.getByLabel('Child handle').inputValue(), 'ca1', 'the handle read from the request')
    await page.getByLabel('AS resources').first().fill('AS65000-AS65010')
    await page.getByLabel('IPv4 resources').first().fill('10.0.0.0/8')
    await page.getByRole('button', { name: 'Add child' }).click()
    const parentResponse = await download(page, 'Download the parent response for ca1')
    t.match(parentResponse, /<parent_response [^>]*child_handle="ca1"/, 'the parent response, downloaded')
    await page.getByRole('heading', { name: /ca1 active/ }).waitFor()
    await check(t, page, 'children')

    await open(page, d, '/ui/cas/ca1/parents', 'text=Add a parent')
    await page.setInputFiles('#file-parent-response', files('ca1-parent-response.xml', parentResponse))
    await page.getByRole('button', { name: 'Add parent' }).click()
    await page.getByRole('heading', { name: 'testbed', level: 3 }).waitFor()
    await waitFor('ca1 to be certified', async () => {
      await open(page, d, '/ui/cas/ca1', '[data-testid=resources]')
      return /10\.0\.0\.0\/8/.test((await page.getByTestId('resources').textContent()) ?? '')
    })
    t.pass('ca1 holds its resources from testbed')
    t.match(await page.getByTestId('key-state').first().textContent(), /active/, 'its key, active')
    await check(t, page, 'ca')
    await open(page, d, '/ui/cas/ca1/parents', 'text=last exchange')
    t.match(await page.locator('article').first().textContent(), /succeeded/, "the parent's last exchange succeeded")
    await check(t, page, 'parents')
  })

  await t.test('ROAs: staged adds from the form and a delta file, per-line errors, removes, search', async (t) => {
    await open(page, d, '/ui/cas/ca1/roas', 'text=No ROAs configured.')
    await page.getByLabel('Prefix').fill('10.1.0.0/16')
    await page.getByLabel('Max length').fill('20')
    await page.getByLabel('ASN').fill('AS65001')
    await page.getByLabel('Comment').fill('lab')
    await page.getByRole('button', { name: 'Stage addition' }).click()
    const delta = ['# a delta file', 'A: 10.2.0.0/16 => 65002', 'A: 192.168.0.0/24 => 65003', 'R: 10.9.0.0/16 => 65009', 'bogus line'].join('\n')
    await page.setInputFiles('#file-delta', files('roas.delta', delta))
    t.match(await page.getByRole('alert').filter({ hasText: 'could not be read' }).textContent(), /roas\.delta line 5/, 'an unreadable line, by number')
    await page.getByRole('button', { name: 'Apply 4 changes' }).click()
    await page.getByRole('alert').filter({ hasText: 'ca-roa-delta-error' }).waitFor()
    const problems = await page.getByTestId('line-problem').allTextContents()
    t.same(problems, ['', '', 'the CA does not hold this prefix', 'not configured, so it cannot be removed'], 'each refused line with its reason')
    t.match(await page.locator('table.staged').textContent(), /roas\.delta line 3.*does not hold/, 'tied to the line of the file')
    t.ok(await page.getByText('No ROAs configured.').isVisible(), 'nothing changed')
    await check(t, page, 'roas-refused')

    await page.getByRole('button', { name: 'Unstage 192.168.0.0/24 => 65003' }).click()
    await page.getByRole('button', { name: 'Unstage 10.9.0.0/16 => 65009' }).click()
    await page.getByRole('button', { name: 'Apply 2 changes' }).click()
    await page.getByRole('status').filter({ hasText: 'Applied: 2 added, 0 removed.' }).waitFor()
    await page.getByRole('cell', { name: '10.2.0.0/16', exact: true }).waitFor()
    t.same(await page.locator('table.roas tbody tr td:first-child').allTextContents(), ['10.1.0.0/16', '10.2.0.0/16'])
    // 10.1.0.0/16-20 => 65001 allows more than the announced /16 (RFC 9319); 10.2.0.0/16 => 65002 is not announced.
    await page.waitForFunction("[...document.querySelectorAll('[data-testid=bgp-state]')].map((e) => e.textContent).join(',') === 'too permissive,unseen'", undefined, { timeout: 15_000 })
    t.same(await page.getByTestId('bgp-state').allTextContents(), ['too permissive', 'unseen'], 'the BGP analysis state of each ROA against the generated dump (analysis/full)')

    await page.getByLabel('Search').fill('65002')
    await page.locator('table.roas tbody tr').filter({ hasText: '10.1.0.0/16' }).waitFor({ state: 'detached' })
    t.same(await page.locator('table.roas tbody tr td:first-child').allTextContents(), ['10.2.0.0/16'], 'searched on the server')
    await page.getByLabel('Search').fill('')
    await page.getByRole('button', { name: /^ASN/ }).click()
    await page.getByRole('button', { name: /^ASN/ }).click()
    await page.waitForURL(/sort=asn&order=desc/)
    await page.locator('table.roas tbody tr').first().filter({ hasText: '10.2.0.0/16' }).waitFor()
    t.pass('sorted by ASN, descending, on the server; the URL keeps it')

    const csv = await download(page, 'Export all as CSV')
    t.same(csv.trim().split('\r\n'), ['asn,prefix,max_length,comment', '65001,10.1.0.0/16,20,lab', '65002,10.2.0.0/16,16,'], 'CSV of all ROAs, in listing order')

    await page.getByRole('button', { name: 'Remove 10.1.0.0/16-20 => AS65001' }).click()
    await page.getByRole('button', { name: 'Apply 1 change' }).click()
    await page.getByRole('status').filter({ hasText: 'Applied: 0 added, 1 removed.' }).waitFor()
    await page.locator('table.roas tbody tr').filter({ hasText: '10.1.0.0/16' }).waitFor({ state: 'detached' })
    t.same(await page.locator('table.roas tbody tr td:first-child').allTextContents(), ['10.2.0.0/16'], 'removed')
    await check(t, page, 'roas')

    // Usable on a narrow screen: nothing wider than the window.
    await page.setViewportSize({ width: 375, height: 800 })
    t.ok(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1'), 'no horizontal scrolling at 375 px')
    await page.screenshot({ path: join(SHOTS, 'roas-narrow.png'), fullPage: true })
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  await t.test('the other CA pages show real data', async (t) => {
    await open(page, d, '/ui/cas/ca1/repository', '[data-testid=repo-kind]')
    t.equal(await page.getByTestId('repo-kind').textContent(), 'embedded')
    const publisherRequest = await download(page, 'Download the publisher request')
    t.match(publisherRequest, /<publisher_request [^>]*publisher_handle="ca1"/, 'the publisher request, downloaded')
    await check(t, page, 'repository')

    await open(page, d, '/ui/cas/ca1/aspas', 'text=No ASPA definitions.')
    await page.getByLabel('Customer AS').fill('AS65000')
    await page.getByLabel('Provider ASes').fill('AS65100, AS65101')
    await page.getByRole('button', { name: 'Save ASPA' }).click()
    await page.getByRole('cell', { name: 'AS65100, AS65101' }).waitFor()
    t.pass('an ASPA added')
    await page.getByLabel('Customer AS').fill('AS64000')
    await page.getByLabel('Provider ASes').fill('AS65100')
    await page.getByRole('button', { name: 'Save ASPA' }).click()
    t.match(await page.getByRole('alert').textContent(), /ca-aspa-not-entitled/, 'a customer AS not held: the labelled error')
    await check(t, page, 'aspas')

    await open(page, d, '/ui/cas/ca1/bgpsec', 'text=No router keys.')
    await check(t, page, 'bgpsec')

    await open(page, d, '/ui/cas/ca1/history', '[data-testid=history-action]')
    const actions = await page.getByTestId('history-action').allTextContents()
    for (const label of ['cmd-ca-init', 'cmd-ca-parent-add', 'cmd-ca-roas-updated', 'cmd-ca-aspas-update']) t.ok(actions.some((a) => a.startsWith(label)), `history shows ${label}`)
    t.ok(actions[0].startsWith('cmd-ca-aspas-update'), `newest first: ${actions[0]}`)
    await page.getByRole('button', { name: /^Show #/ }).first().click()
    await page.getByTestId('history-details').waitFor()
    t.pass('the details of an action')
    await check(t, page, 'history')
    await page.getByLabel('Search').fill('roas')
    await page.waitForURL(/[?&]q=roas/)
    await page.getByTestId('history-action').filter({ hasNotText: /^cmd-ca-roas-updated/ }).first().waitFor({ state: 'detached' })
    t.ok((await page.getByTestId('history-action').allTextContents()).every((a) => a.startsWith('cmd-ca-roas-updated')), 'searched on the server')
    await page.getByLabel('Search').fill('')
    await page.getByTestId('history-action').filter({ hasText: /^cmd-ca-init/ }).waitFor()
    await page.getByLabel('From (UTC day)').fill(new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10))
    await page.getByText('No actions.').waitFor()
    t.pass('filtered by time on the server: nothing after tomorrow')

    await open(page, d, '/ui/pubd', '[data-testid=pubd-serial]')
    t.ok(await page.getByRole('cell', { name: /^ca1/ }).isVisible(), 'ca1 among the publishers')
    // A publisher from its RFC 8183 request: added, its repository response downloaded, removed.
    const pub = new TestPublisher('outside-pub')
    await page.setInputFiles('#file-publisher-request', files('outside-pub.xml', pub.requestXml()))
    await page.getByRole('button', { name: 'Add publisher' }).click()
    const response = await download(page, 'Repository response for outside-pub')
    t.equal(pub.useResponse(response).publisherHandle, 'outside-pub', 'the repository response, downloaded and read')
    await page.getByRole('button', { name: 'Remove outside-pub' }).click()
    await page.getByRole('button', { name: 'Yes, remove' }).click()
    await page.getByRole('cell', { name: /^outside-pub/ }).waitFor({ state: 'detached' })
    t.pass('and removed')
    await page.getByTestId('pubd-chart').waitFor()
    await check(t, page, 'pubd')

    for (const [path, name] of [['/ui/cas/testbed/roas', 'roas-testbed'], ['/ui/cas/testbed', 'ca-testbed']] as const) {
      await open(page, d, path, 'h1')
      await check(t, page, name)
    }
    await open(page, d, '/ui/cas/testbed/parents', 'h3')
    await check(t, page, 'parents-testbed')
  })

  await t.test('a key roll started and activated on the CA page, with its state', async (t) => {
    const states = async () => {
      await open(page, d, '/ui/cas/ca1', '[data-testid=key-state]')
      return (await page.getByTestId('key-state').allTextContents()).join(' ')
    }
    t.equal(await states(), 'active')
    await page.getByRole('button', { name: 'Start key roll' }).click()
    await waitFor('the new key to be certified', async () => (await states()) === 'roll_new roll_new')
    t.pass('two keys, the roll in state roll_new')
    await check(t, page, 'ca-keyroll')
    await page.getByRole('button', { name: 'Activate new key' }).click()
    await waitFor('the roll to finish', async () => (await states()) === 'active')
    t.pass('one key again, active')
  })

  await t.test("a child's resources changed, suspended and resumed; testbed's history shows it", async (t) => {
    await open(page, d, '/ui/cas/testbed/children', 'h3')
    const child = page.locator('article').filter({ has: page.getByRole('heading', { name: /^ca1/ }) })
    await child.getByRole('button', { name: 'Change resources' }).click()
    await child.getByLabel('IPv4 resources').fill('10.0.0.0/8, 192.168.0.0/16')
    await child.getByRole('button', { name: 'Save resources' }).click()
    await child.getByText('IPv4 10.0.0.0/8, 192.168.0.0/16').waitFor()
    t.pass('resources changed')
    await child.getByRole('button', { name: 'Suspend' }).click()
    await page.getByRole('heading', { name: 'ca1 suspended' }).waitFor()
    await page.getByRole('button', { name: 'Resume' }).click()
    await page.getByRole('heading', { name: 'ca1 active' }).waitFor()
    t.pass('suspended and resumed')
    await page.getByLabel('Search').fill('192.168.0.0')
    await page.waitForURL(/[?&]q=192\.168\.0\.0/)
    await page.getByRole('heading', { name: 'ca1 active' }).waitFor()
    await page.getByLabel('Search').fill('no-such-child')
    await page.getByText('No child matches the search.').waitFor()
    t.pass('children searched on the server, by resources and by handle')
    await open(page, d, '/ui/cas/testbed/history', '[data-testid=history-action]')
    const actions = await page.getByTestId('history-action').allTextContents()
    for (const label of ['cmd-ca-child-add', 'cmd-ca-child-update', 'cmd-ca-child-suspend', 'cmd-ca-child-unsuspend']) t.ok(actions.some((a) => a.startsWith(label)), `testbed's history shows ${label}`)
  })

  await t.test('logout, and a refused token brings the login back', async (t) => {
    await open(page, d, '/ui/', '[data-testid=ca-list]')
    await page.getByRole('button', { name: 'Log out' }).click()
    await page.getByLabel('Token').waitFor()
    t.equal(await page.evaluate("sessionStorage.getItem('svc.session')"), null, 'the token is forgotten')
    await page.evaluate(`sessionStorage.setItem('svc.session', '${JSON.stringify({ token: 'stale', id: 'admin-token', role: 'admin' })}')`)
    await page.goto(`https://localhost:${d.port}/ui/cas`)
    await page.getByText('Your session has ended').waitFor()
    t.ok(await page.getByLabel('Token').isVisible(), 'a 401 brings the login back')
  })
})

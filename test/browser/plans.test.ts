/**
 * Change plans in the console (issue 27, design.md §12), in headless Chromium against a real svcd with two
 * config-file users: alice (admin) turns four-eyes on for ca1 on its CA page, after which the ROA page offers no
 * direct apply and says why; she stages two ROAs and saves them as a plan (its page shows the diff and the BGP
 * impact; her own approval is refused with svcd's message), and a second plan; bob (readwrite) approves the second
 * without applying it, approves and applies the first (the ROAs page shows both ROAs), then finds the second stale
 * (its badge in the list and on its page) and its Apply refused with svcd's message, nothing changed; a plan that
 * turns a seen announcement invalid is applied only after the explicit confirmation; a stale plan rejected with a
 * reason; the ASPA page under four-eyes offers its change as a plan, which its author withdraws; the list filtered by status. Every page: axe-core, a screenshot, no console
 * error and no failed request beyond the refusals the test asks for.
 *
 *   ta (embedded TA)
 *    └─ testbed
 *        └─ ca1  AS65000-AS65010, 10.0.0.0/8   BGP: 10.1.0.0/16 announced by AS65001 (a RIS whois dump file)
 */
import t, { type Test } from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest, tempDir } from '../helpers/daemon.js'
import { artifactDir, checkPage, openConsole, NO_CHROMIUM, startBrowser, userEntry } from '../helpers/browser.js'

const SHOTS = artifactDir('plans')


const ALICE = ['alice@example.com', 'alice makes plans'] as const
const BOB = ['bob@example.com', 'bob approves them'] as const

/** What went wrong in the page: console errors, uncaught exceptions, failed requests and error answers. */
function watch(page: Page): string[] {
  const problems: string[] = []
  page.on('console', (m) => void (m.type() === 'error' && problems.push(`console: ${m.text()} ${m.location().url}`)))
  page.on('pageerror', (e) => void problems.push(`exception: ${e.message}`))
  page.on('requestfailed', (r) => void problems.push(`failed: ${r.method()} ${r.url()} ${r.failure()?.errorText ?? ''}`))
  page.on('response', (r) => void (r.status() >= 400 && problems.push(`answer ${r.status()}: ${r.request().method()} ${r.url()}`)))
  return problems
}

t.test('change plans in the console, with two users and four-eyes, in Chromium', { skip: NO_CHROMIUM }, async (t) => {
  const dump = join(tempDir(t), 'riswhoisdump.IPv4')
  writeFileSync(dump, ['% generated for the plans console test', '65001\t10.1.0.0/16\t50', ''].join('\n'))
  const users = `[auth_users]\n${userEntry(ALICE[0], 'admin', ALICE[1])}\n${userEntry(BOB[0], 'readwrite', BOB[1])}\n`
  const d = await repoDaemon(t, { toml: `auth_type = "config-file"\nbgp_riswhois_enabled = true\nbgp_riswhois_v4_uri = "${dump}"\nbgp_riswhois_v6_uri = ""\n${users}` })
  const admin = { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }
  const api = async (path: string, method = 'GET', body?: unknown) => {
    const r = await httpsRequest(`${d.url}api/v1/cas/ca1/${path}`, { method, headers: admin, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
    return { status: r.status, json: r.body ? JSON.parse(r.body) : undefined }
  }
  const roas = async () => ((await api('routes')).json as { asn: number; prefix: string; max_length: number }[]).map((r) => `${r.prefix}-${r.max_length} => ${r.asn}`).sort()
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-AS65010', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await waitFor('the BGP announcements loaded', async () => /10\.1\.0\.0\/16/.test(JSON.stringify((await api('routes/analysis/full')).json)))

  const { page } = await startBrowser(t)
  const problems = watch(page)
  const open = (path: string, ready: string) => openConsole(page, d.port, path, ready)
  /** axe-core and a screenshot, and nothing went wrong in the page since the last check. */
  const check = async (t: Test, name: string) => {
    await checkPage(t, page, SHOTS, name)
    t.same(problems.splice(0), [], `${name}: no console error, no failed request`)
  }
  /** The refusals asked for (an answer and Chromium's console line for it), and nothing else, since the last check. */
  const refused = (t: Test, status: number, path: RegExp) => {
    const mine = (p: string) => path.test(p) && (p.startsWith(`answer ${status}:`) || (p.startsWith('console:') && p.includes(`status of ${status}`)))
    const seen = problems.splice(0)
    t.ok(seen.some(mine), `the ${status} refusal of ${path}`)
    t.same(seen.filter((p) => !mine(p)), [], 'nothing else went wrong')
  }
  /** Log in, and wait for every answer of the dashboard (what each shows), so no navigation cuts one short. */
  const logIn = async ([user, password]: readonly [string, string]) => {
    await page.goto(`https://localhost:${d.port}/ui/`)
    await page.getByLabel('User').fill(user)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByTestId('who-id').filter({ hasText: user }).waitFor()
    for (const r of ['[data-testid=ca-list] >> text=ca1', '[data-testid=rrdp-serial]', 'text=No publisher has been silent', '[data-testid=health-badge]']) await page.locator(r).first().waitFor()
    await page.getByTestId('issues').or(page.getByText('No open issues.')).first().waitFor()
  }
  const stage = async (prefix: string, asn: string) => {
    await page.getByLabel('Prefix').fill(prefix)
    await page.getByLabel('ASN').fill(asn)
    await page.getByRole('button', { name: 'Stage addition' }).click()
  }
  /** Save the staged ROAs as a plan and answer its id, from the plan page it opens. */
  const saveAsPlan = async (comment: string): Promise<number> => {
    await page.getByLabel('Plan comment').fill(comment)
    await page.getByRole('button', { name: 'Save as plan' }).click()
    await page.waitForURL(/\/ui\/cas\/ca1\/plans\/\d+$/)
    await page.getByTestId('plan-diff').waitFor()
    return Number(/(\d+)$/.exec(page.url())![1])
  }
  const diff = () => page.getByTestId('plan-diff').locator('li').allTextContents()
  let first = 0
  let second = 0

  await t.test('alice turns four-eyes on; the ROA page then offers plans only, and says why', async (t) => {
    await logIn(ALICE)
    await open('/ui/cas/ca1', '[data-testid=four-eyes]')
    t.equal(await page.getByTestId('four-eyes').textContent(), 'off')
    await page.getByRole('button', { name: 'Turn four-eyes on' }).click()
    await page.getByTestId('four-eyes').filter({ hasText: 'on' }).waitFor()
    t.same((await api('change-control')).json, { four_eyes: true }, 'set at svcd')
    await check(t, 'ca-four-eyes-on')
    await open('/ui/cas/ca1/roas', 'text=No ROAs configured.')
    await page.getByTestId('four-eyes-roas').waitFor()
    await stage('10.1.0.0/16', 'AS65001')
    await stage('10.2.0.0/16', 'AS65002')
    await page.getByRole('button', { name: 'Save as plan' }).waitFor()
    t.equal(await page.getByRole('button', { name: /^Apply \d+ change/ }).count(), 0, 'no direct apply under four-eyes')
    t.match(await page.getByTestId('four-eyes-roas').textContent(), /Four-eyes is on for CA ca1.*second user/, 'and why')
    await check(t, 'roas-four-eyes')
  })

  await t.test('two staged ROAs saved as a plan: its page shows the diff and the BGP impact; her own approval is refused', async (t) => {
    first = await saveAsPlan('two ROAs')
    t.same(await diff(), ['+ add ROA 10.1.0.0/16 => 65001', '+ add ROA 10.2.0.0/16 => 65002'], 'the diff')
    t.match(await page.getByTestId('plan-status').textContent(), /open/)
    t.match(await page.getByTestId('plan-created').textContent(), /alice@example\.com/)
    t.match(await page.getByTestId('bgp-counts').textContent(), /0 turn invalid, 1 valid, 0 not found/, 'the announcement turns valid')
    t.match(await page.getByTestId('impact-change').first().textContent(), /not found → valid/)
    t.match(await page.getByTestId('vrp-counts').textContent(), /0 VRPs → 2 VRPs: 2 added, 0 removed/)
    t.equal(await page.getByRole('button', { name: 'Apply', exact: true }).count(), 0, 'no Apply before the approval')
    await check(t, 'plan-open')
    t.same(await roas(), [], 'a plan changes nothing')
    await page.getByRole('button', { name: 'Approve and apply' }).click()
    const alert = page.getByRole('alert').filter({ hasText: 'ca-plan-own-approval' })
    await alert.waitFor()
    t.match(await alert.textContent(), /made by 'alice@example\.com': a different user must approve it/, "svcd's message")
    refused(t, 403, /\/plans\/\d+\/approve/)
    // A second plan from the same configuration: stale once the first is applied.
    await open('/ui/cas/ca1/roas', 'text=No ROAs configured.')
    await stage('10.3.0.0/16', 'AS65003')
    second = await saveAsPlan('a third ROA')
    t.not(second, first)
    await check(t, 'plan-second')
  })

  await t.test('bob approves the second plan only, approves and applies the first; the ROAs page shows them', async (t) => {
    await page.getByRole('button', { name: 'Log out' }).click()
    await page.getByLabel('Password').waitFor()
    await logIn(BOB)
    await open('/ui/cas/ca1', '[data-testid=four-eyes]')
    t.equal(await page.getByTestId('four-eyes').textContent(), 'on')
    t.equal(await page.getByRole('button', { name: /Turn four-eyes/ }).count(), 0, 'no toggle without ca-admin')
    await open('/ui/cas/ca1/plans', `role=link[name="Plan ${first}"]`)
    t.same(await page.getByTestId('plan-status').allTextContents(), ['open', 'open'], 'two open plans, newest first')
    t.match(await page.getByTestId('plan-changes').first().textContent(), /\+1 ROAs, −0 ROAs, 0 ASPAs/)
    t.match(await page.getByTestId('plan-impact').last().textContent(), /0 turn invalid, 1 valid/)
    await page.getByTestId('four-eyes-note').waitFor()
    await check(t, 'plans-list')
    await page.getByRole('link', { name: `Plan ${second}` }).click()
    await page.getByRole('button', { name: 'Approve only' }).waitFor()
    t.equal(await page.getByRole('button', { name: 'Withdraw' }).count(), 0, "no Withdraw of alice's plan")
    await page.getByRole('button', { name: 'Approve only' }).click()
    await page.getByTestId('plan-approved').filter({ hasText: 'bob@example.com' }).waitFor()
    t.match(await page.getByTestId('plan-status').textContent(), /approved/)
    t.ok(await page.getByRole('button', { name: 'Apply', exact: true }).isVisible(), 'an approved plan may be applied')
    await open(`/ui/cas/ca1/plans/${first}`, '[data-testid=plan-diff]')
    await page.getByRole('button', { name: 'Approve and apply' }).click()
    await page.getByTestId('plan-applied').waitFor()
    t.match(await page.getByTestId('plan-status').textContent(), /applied/)
    t.match(await page.getByTestId('plan-approved').textContent(), /bob@example\.com/)
    t.match(await page.getByTestId('plan-applied').textContent(), /bob@example\.com.*history version #\d+/)
    t.equal(await page.getByRole('link', { name: /history version #\d+/ }).getAttribute('href'), '/ui/cas/ca1/history')
    t.equal(await page.getByRole('button', { name: /Approve|Apply|Reject|Withdraw/ }).count(), 0, 'no more steps')
    await check(t, 'plan-applied')
    t.same(await roas(), ['10.1.0.0/16-16 => 65001', '10.2.0.0/16-16 => 65002'], 'applied at svcd')
    await open('/ui/cas/ca1/roas', 'role=cell[name="10.2.0.0/16"]')
    t.equal(await page.getByRole('cell', { name: '10.1.0.0/16', exact: true }).count(), 1, 'the ROAs page shows both')
    await check(t, 'roas-after-plan')
  })

  await t.test('the second plan is stale: its badge, and Apply refused with the message, nothing changed', async (t) => {
    await open('/ui/cas/ca1/plans', '[data-testid=stale-badge]')
    t.equal(await page.getByTestId('stale-badge').count(), 1, 'one stale plan in the list')
    await check(t, 'plans-stale')
    await open(`/ui/cas/ca1/plans/${second}`, '[data-testid=stale-badge]')
    await page.getByRole('button', { name: 'Apply', exact: true }).click()
    const alert = page.getByRole('alert').filter({ hasText: 'ca-plan-stale' })
    await alert.waitFor()
    t.match(await alert.textContent(), /is stale: the CA's ROAs or ASPAs changed after it was made/, "svcd's message")
    refused(t, 409, /\/plans\/\d+\/apply/)
    t.same(await roas(), ['10.1.0.0/16-16 => 65001', '10.2.0.0/16-16 => 65002'], 'nothing changed')
    await page.getByLabel('Reason for rejecting').fill('stale: made again')
    await page.getByRole('button', { name: 'Reject' }).click()
    await page.getByTestId('plan-rejected').waitFor()
    t.match(await page.getByTestId('plan-rejected').textContent(), /bob@example\.com.*: stale: made again/)
    await check(t, 'plan-rejected')
  })

  await t.test('a plan that turns a seen announcement invalid is applied only with the explicit confirmation', async (t) => {
    // Made with the admin token (a third identity): the announcement 10.1.0.0/16 from AS65001 loses its ROA to AS65009.
    const made = await api('plans', 'POST', { comment: 'move 10.1/16', roas: { added: [{ asn: 65009, prefix: '10.1.0.0/16' }], removed: [{ asn: 65001, prefix: '10.1.0.0/16' }] } })
    t.equal(made.status, 200, JSON.stringify(made.json))
    await open(`/ui/cas/ca1/plans/${made.json.id}`, '[data-testid=plan-diff]')
    t.same(await diff(), ['+ add ROA 10.1.0.0/16 => 65009', '− remove ROA 10.1.0.0/16 => 65001'])
    t.match(await page.getByTestId('impact-change').first().textContent(), /valid → invalid/, 'the announcement turning invalid first')
    t.match(await page.locator('.invalid-count').first().textContent(), /1 turn invalid/, 'highlighted')
    const accept = page.getByLabel('I accept that 1 announcement becomes invalid')
    const go = page.getByRole('button', { name: 'Approve and apply' })
    t.ok(await go.isDisabled(), 'not without the confirmation')
    await check(t, 'plan-invalid')
    await accept.check()
    t.ok(await go.isEnabled())
    await go.click()
    await page.getByTestId('plan-applied').waitFor()
    t.same(await roas(), ['10.1.0.0/16-16 => 65009', '10.2.0.0/16-16 => 65002'], 'applied with accept_invalid')
  })

  await t.test('the ASPA page under four-eyes offers its change as a plan', async (t) => {
    await open('/ui/cas/ca1/aspas', 'text=No ASPA definitions.')
    await page.getByTestId('four-eyes-note').waitFor()
    t.equal(await page.getByRole('button', { name: 'Save ASPA' }).count(), 0, 'no direct change')
    await check(t, 'aspas-four-eyes')
    await page.getByLabel('Customer AS').fill('AS65000')
    await page.getByLabel('Provider ASes').fill('AS65001, AS65002')
    await page.getByRole('button', { name: 'Save as plan' }).click()
    await page.waitForURL(/\/ui\/cas\/ca1\/plans\/\d+$/)
    await page.getByTestId('plan-diff').waitFor()
    t.same(await diff(), ['+ add ASPA AS65000 => AS65001, AS65002'])
    t.match(await page.getByTestId('aspa-effect').textContent(), /AddedAS65000/)
    await check(t, 'plan-aspa')
    t.same((await api('aspas')).json, [], 'nothing changed yet')
    await page.getByRole('button', { name: 'Withdraw' }).click()
    await page.getByTestId('plan-withdrawn').waitFor()
    t.match(await page.getByTestId('plan-withdrawn').textContent(), /bob@example\.com/, 'withdrawn by its author')
    t.equal(await page.getByRole('button', { name: /Approve|Apply|Reject|Withdraw/ }).count(), 0, 'no more steps')
    await check(t, 'plan-withdrawn')
    await open('/ui/cas/ca1/plans?status=withdrawn', '[data-testid=plan-status]')
    t.same(await page.getByTestId('plan-status').allTextContents(), ['withdrawn'], 'the status filter, from the URL')
    t.equal(await page.getByLabel('Status').inputValue(), 'withdrawn')
    await page.getByLabel('Status').selectOption('applied')
    await page.getByTestId('plan-status').filter({ hasText: 'withdrawn' }).waitFor({ state: 'detached' })
    t.same(await page.getByTestId('plan-status').allTextContents(), ['applied', 'applied'], 'the applied plans')
    t.match(page.url(), /status=applied/, 'kept in the URL')
    await check(t, 'plans-applied')
  })

  await t.test('a history entry becomes a rollback plan: the ROAs as they were right after it', async (t) => {
    await open('/ui/cas/ca1/history', '[data-testid=history-action]')
    const row = page.locator('tr').filter({ has: page.getByTestId('history-action').filter({ hasText: `Apply plan ${first}:` }) })
    await row.getByRole('button', { name: /^Show #\d+$/ }).click()
    await page.getByTestId('history-rollback').click()
    await page.waitForURL(/\/ui\/cas\/ca1\/plans\/\d+$/)
    await page.getByTestId('plan-diff').waitFor()
    const lines = (await diff()).sort()
    t.equal(lines.length, 2, lines.join('; '))
    t.match(lines[0], /^\+ add ROA 10\.1\.0\.0\/16(-16)? => 65001$/, 'the ROA of the first plan comes back')
    t.match(lines[1], /^− remove ROA 10\.1\.0\.0\/16(-16)? => 65009$/, 'the later one goes')
    t.match(await page.getByTestId('plan-status').textContent(), /open/)
    await check(t, 'plan-rollback')
    await page.getByRole('button', { name: 'Withdraw' }).click()
    await page.getByTestId('plan-withdrawn').waitFor()
  })
})

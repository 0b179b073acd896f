/**
 * The console's Health page (issue 26 §2) in headless Chromium against a real svcd whose repository is served over
 * HTTPS and by its rsync daemon, checked every 2 s:
 *
 *   ta ── testbed
 *
 * - The dashboard's badge and the Health page list ta and testbed as functional with their expiry countdowns;
 *   "Check now" runs a check (admin); a role without ca-admin has no such button.
 * - A real fault (testbed's CRL moved out of the rsync tree rsyncd serves) shows as a finding, expanded on the page.
 * axe-core on the page (no serious or critical violation) and screenshots in test-artifacts/health/.
 */
import t from 'tap'
import { readdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { HealthCaJson, HealthPageJson } from '../../src/api/health.js'
import { repoDaemon, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest, tempDir } from '../helpers/daemon.js'
import { artifactDir, checkPage, NO_CHROMIUM, startBrowser } from '../helpers/browser.js'
import { waitFor } from '../helpers/wait.js'

const SHOTS = artifactDir('health')

async function healthApi<T>(d: RepoDaemon, path: string): Promise<T> {
  return JSON.parse((await httpsRequest(`${d.url}api/v1/health/${path}`, { headers: { Authorization: `Bearer ${d.token}` } })).body) as T
}

async function login(page: Page, d: RepoDaemon, token: string): Promise<void> {
  await page.goto(`https://localhost:${d.port}/ui/`)
  await page.getByLabel('Token').fill(token)
  await page.getByRole('button', { name: 'Log in' }).click()
  await page.getByTestId('ca-list').getByRole('link', { name: 'testbed' }).waitFor()
}

t.test('the Health page, in Chromium, against svcd', { skip: NO_CHROMIUM }, async (t) => {
  const d = await repoDaemon(t, { extra: '[liveness]\ncheck_seconds = 2\nafter_publish_seconds = 1\n' })
  const first = await waitFor('ta and testbed functional without findings', async () => {
    const p = await healthApi<HealthPageJson>(d, 'cas')
    return p.cas.length === 2 && p.cas.every((c) => c.functional === true && c.findings_count === 0) ? p : undefined
  }, 90_000)
  const { page } = await startBrowser(t)

  await t.test('the dashboard badge and the table of CAs; Check now for an administrator', async (t) => {
    await login(page, d, d.token)
    t.match(await page.getByTestId('health-badge').textContent(), /no CA found not functional/)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Health' }).click()
    await page.getByTestId('health-summary').filter({ hasText: '2 CAs: 2 functional' }).waitFor()
    const rows = page.locator('table.health tbody tr')
    t.same(await page.getByTestId('health-ca').allTextContents(), ['ta', 'testbed'])
    t.same(await page.getByTestId('health-state').allTextContents(), ['functional', 'functional'])
    t.match(await rows.nth(1).textContent(), /testbedfunctional\d+(\.\d)? h/, 'the manifest countdown in hours')
    await checkPage(t, page, SHOTS, 'health')
    const [answer] = await Promise.all([page.waitForResponse((r) => r.url().includes('/api/v1/health/check')), page.getByTestId('health-check').click()])
    t.equal(answer.status(), 200, 'Check now asked svcd for a check')
    await page.getByRole('button', { name: 'Check now' }).waitFor()
    t.same(await page.getByTestId('health-ca').allTextContents(), ['ta', 'testbed'], 'and the table is shown again')
  })

  await t.test('a file missing from the rsync tree shows as a finding', async (t) => {
    const dir = join(d.dataDir, 'repo', 'rsync', 'current', first.cas[1]!.points[0]!.dir.slice(d.rsyncBase.length))
    const crl = readdirSync(dir).find((f) => f.endsWith('.crl'))!
    const aside = join(tempDir(t), crl)
    renameSync(join(dir, crl), aside)
    t.teardown(() => renameSync(aside, join(dir, crl)))
    await waitFor('the finding in the API', async () => (await healthApi<HealthCaJson>(d, 'cas/testbed')).findings_count > 0, 60_000)
    await page.reload()
    const findings = page.getByTestId('health-findings')
    await findings.locator('summary').click()
    await findings.getByText(crl, { exact: false }).waitFor()
    t.match(await findings.textContent(), new RegExp(`missing over rsync.*${crl.replace('.', '\\.')}`))
    await checkPage(t, page, SHOTS, 'health-finding')
  })

  await t.test('without ca-admin there is no Check now (the client copy of the role; svcd refuses it anyway)', async (t) => {
    await page.evaluate(`(() => { const s = JSON.parse(sessionStorage.getItem('svc.session')); s.who.permissions = s.who.permissions.filter((p) => p !== 'ca-admin'); sessionStorage.setItem('svc.session', JSON.stringify(s)) })()`)
    await page.reload()
    await page.getByTestId('health-ca').first().waitFor()
    t.equal(await page.getByTestId('health-check').count(), 0, 'no Check now')
  })
})

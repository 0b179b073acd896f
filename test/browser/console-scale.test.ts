/**
 * The console's ROA page for a CA with 50,000 ROAs (issue 15 performance): the time from navigation until the first
 * rows show, and from typing a search until its answer shows (target < 1 s each, printed; asserted only against a
 * bound that a hang would cross, as the suite runs beside other work). The test waits for events (the ROAs signed,
 * an element shown), each with a generous deadline, never for a fixed time. Also the size of the JS and CSS shipped,
 * gzipped (target < 200 KB).
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { repoDaemon, waitFor } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { ROOT } from '../helpers/paths.js'
import { NO_CHROMIUM, startBrowser } from '../helpers/browser.js'

const N = 50_000
/** What a measured step may take before the test calls it a hang (the target is 1 s; the figures are printed). */
const LIMIT_MS = 30_000
/** The deadline of each wait: svcd signs and publishes 50,000 ROAs meanwhile, on two shared cores. */
const DEADLINE_MS = 180_000

t.test('JS and CSS shipped, gzipped', async (t) => {
  const dir = join(ROOT, 'dist', 'ui', 'assets')
  const files = readdirSync(dir).filter((f) => /\.(js|css)$/.test(f))
  const gz = files.reduce((n, f) => n + gzipSync(readFileSync(join(dir, f)), { level: 9 }).length, 0)
  t.comment(`console assets: ${files.join(', ')}: ${(gz / 1024).toFixed(1)} KiB gzipped`)
  t.ok(gz < 200 * 1024, `under 200 KB gzipped (${gz} bytes)`)
})

t.test('the ROA page of a CA with 50,000 ROAs', { skip: NO_CHROMIUM }, async (t) => {
  const d = await repoDaemon(t, { toml: 'post_limit_api = 16777216', logLevel: 'info' })
  await waitFor('testbed certified', async () => /active/.test(await d.cli(['show', '-c', 'testbed'])))
  // 10.<a>.<b>.0/24 over ten ASNs (aggregated: one ROA object per ASN).
  const added = Array.from({ length: N }, (_, i) => ({ asn: 65000 + (i % 10), prefix: `10.${i >> 8}.${i & 255}.0/24`, max_length: 24 }))
  const post = await httpsRequest(`${d.url}api/v1/cas/testbed/routes`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ added, removed: [] }) })
  t.equal(post.status, 200, post.body)
  // The ROAs carried by objects (the first and the last ASN's): the CA has signed them, so what follows measures the
  // console and not the publication of 50,000 ROAs.
  const signed = async (order: string) => {
    const r = await httpsRequest(`${d.url}api/v1/cas/testbed/routes/page?limit=1&sort=asn&order=${order}`, { headers: { Authorization: `Bearer ${d.token}` } })
    const p = JSON.parse(r.body) as { total: number; items: { roa_objects: number }[] }
    return p.total === N && p.items[0]!.roa_objects > 0
  }
  await waitFor('the 50,000 ROAs signed', async () => (await signed('asc')) && (await signed('desc')), DEADLINE_MS, 500)

  const { page } = await startBrowser(t)
  page.setDefaultTimeout(DEADLINE_MS)
  page.setDefaultNavigationTimeout(DEADLINE_MS)
  await page.goto(`https://localhost:${d.port}/ui/`)
  await page.getByLabel('Token').fill(d.token)
  await page.getByRole('button', { name: 'Log in' }).click()
  await page.getByTestId('ca-list').waitFor()

  // Once, so that svcd's index of the CA's ROAs is built (after a change it is rebuilt on the first request).
  await page.goto(`https://localhost:${d.port}/ui/cas/testbed/roas`)
  await page.getByText(`of ${N}`).waitFor()
  await page.goto(`https://localhost:${d.port}/ui/`)
  await page.getByTestId('ca-list').waitFor()

  const start = Date.now()
  await page.goto(`https://localhost:${d.port}/ui/cas/testbed/roas`)
  await page.getByRole('cell', { name: '10.0.0.0/24', exact: true }).waitFor()
  const firstRows = Date.now() - start
  t.equal(await page.locator('table.roas tbody tr').count(), 100, 'a page of 100 rows')

  const typed = Date.now()
  await page.getByLabel('Search').fill('10.123.45.')
  await page.getByRole('cell', { name: '10.123.45.0/24', exact: true }).waitFor()
  await page.locator('table.roas tbody tr').nth(1).waitFor({ state: 'detached' })
  const searched = Date.now() - typed
  const apiStart = Date.now()
  const direct = await httpsRequest(`${d.url}api/v1/cas/testbed/routes/page?q=10.77.1.&limit=100`, { headers: { Authorization: `Bearer ${d.token}` } })
  const apiMs = Date.now() - apiStart
  t.equal(JSON.parse(direct.body).total, 1, 'another search, straight from the API')
  const sortStart = Date.now()
  await page.getByLabel('Search').fill('')
  await page.getByRole('button', { name: /^ASN/ }).click()
  await page.getByRole('button', { name: /^ASN/ }).click()
  await page.locator('table.roas tbody tr').first().filter({ hasText: 'AS65009' }).waitFor()
  const sorted = Date.now() - sortStart
  t.comment(`50,000 ROAs: first rows after ${firstRows} ms, a search answered after ${searched} ms (150 ms of it the pause after typing), another search straight from the API in ${apiMs} ms, cleared and sorted by ASN descending after ${sorted} ms`)
  t.ok(firstRows < LIMIT_MS, `first rows in ${firstRows} ms`)
  t.ok(searched < LIMIT_MS, `search answered in ${searched} ms`)
  t.ok(sorted < LIMIT_MS, `sorted in ${sorted} ms`)
})

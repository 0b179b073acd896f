/**
 * Headless Chromium for the console's browser tests (issue 15): Debian's `chromium` (make system-deps installs it),
 * driven by playwright-core, no browser download. Each test gets a fresh profile directory, removed at teardown;
 * screenshots go to test-artifacts/<name>/ (gitignored). axe-core runs inside the page (evaluated through the
 * driver, so the console's Content-Security-Policy needs no exception).
 */
import { randomBytes, scryptSync } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import type { Test } from 'tap'
import { tempDir, type TestLike } from './daemon.js'
import { ROOT } from './paths.js'

export const CHROMIUM = '/usr/bin/chromium'
export const NO_CHROMIUM = existsSync(CHROMIUM) ? false : `needs ${CHROMIUM} (Debian's chromium; make system-deps installs it)`

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** A browser with a fresh profile (accepting the daemon's self-signed certificate), closed at teardown. */
export async function startBrowser(t: TestLike, viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const profile = tempDir(t, 'svc-chromium-')
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, ignoreHTTPSErrors: true, acceptDownloads: true, viewport })
  t.teardown(() => context.close())
  const page = context.pages()[0] ?? (await context.newPage())
  page.setDefaultTimeout(20_000)
  return { context, page }
}

/** test-artifacts/<name>/, emptied. */
export function artifactDir(name: string): string {
  const dir = join(ROOT, 'test-artifacts', name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  return dir
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.x A and AA rules, best practices). */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated as text: the test code is type-checked without the DOM library.
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(AXE)
  const rules = JSON.stringify({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
  const found = (await page.evaluate(`window.axe.run(document, ${rules}).then((r) => r.violations)`)) as AxeViolation[]
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join('; ')})`)
}

/** Open a console URL of the daemon on `port` and wait for `ready` (a selector or text that only real data shows). */
export async function openConsole(page: Page, port: number, path: string, ready: string): Promise<void> {
  await page.goto(`https://localhost:${port}${path}`)
  await page.locator(ready).first().waitFor()
}

/** axe-core on the page as shown (no serious or critical violation), and a screenshot of it in `dir` (artifactDir). */
export async function checkPage(t: Test, page: Page, dir: string, name: string): Promise<void> {
  t.same(await axeViolations(page), [], `${name}: no serious or critical accessibility violation`)
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true })
}

/**
 * A `[auth_users]` entry in Krill's scheme (krill:src/daemon/http/auth/providers/config_file.rs): scrypt (log N 13,
 * r 8, p 1, 32 bytes) of the NFKC password with the salt `krill-lagosta-<user>`, then of that with the entry's salt.
 */
export function userEntry(id: string, role: string, password: string): string {
  const params = { N: 1 << 13, r: 8, p: 1 }
  const interim = scryptSync(password.normalize('NFKC'), `krill-lagosta-${id}`.normalize('NFKC'), 32, params)
  const salt = randomBytes(16)
  const hash = scryptSync(interim, salt, 32, params)
  return `"${id}" = { role = "${role}", password_hash = "${hash.toString('hex')}", salt = "${salt.toString('hex')}" }`
}

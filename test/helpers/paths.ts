/** Paths used by tests: the project root, the built programs, our fixtures and the shared real-world fixtures. */
import { existsSync, statSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))
export const SVCD = join(ROOT, 'dist', 'main.js')
export const SVCC = join(ROOT, 'dist', 'cli.js')
export const SHARED = resolve(ROOT, '..', 'shared')
export const SHARED_FIXTURES = join(SHARED, 'fixtures')

/** Path of one of our own fixtures. */
export function fixture(...parts: string[]): string {
  return join(ROOT, 'fixtures', ...parts)
}

/** Path of a shared real-world fixture, or undefined when ../shared/fixtures is missing (tests then skip). */
export function sharedFixture(...parts: string[]): string | undefined {
  return existsSync(SHARED_FIXTURES) ? join(SHARED_FIXTURES, ...parts) : undefined
}

/** The skip message for tests that need ../shared/fixtures. */
export const NO_SHARED = existsSync(SHARED_FIXTURES) ? false : `needs ${SHARED_FIXTURES} (the shared real-world fixtures), which is missing`

/** Fail clearly when dist/ is older than the sources: scenario tests run the built programs (SVC_TEST_NO_BUILD_CHECK=1 skips the age check). */
export function assertBuilt(): void {
  if (!existsSync(SVCD)) throw new Error('dist/ is missing: run `make build` (make test does it) before the scenario tests')
  if (process.env.SVC_TEST_NO_BUILD_CHECK) return
  const built = statSync(join(ROOT, 'dist', '.built'), { throwIfNoEntry: false })?.mtimeMs ?? statSync(SVCD).mtimeMs
  const ui = join(ROOT, 'src', 'ui')
  const newest = newestMtime(join(ROOT, 'src'), ui)
  if (newest > built) throw new Error('dist/ is older than src/: run `make build` (make test does it) before the scenario tests')
  // The web console is built on its own (dist/ui/, from src/ui/).
  const uiBuilt = statSync(join(ROOT, 'dist', 'ui', '.built'), { throwIfNoEntry: false })?.mtimeMs ?? 0
  if (existsSync(ui) && newestMtime(ui) > uiBuilt) throw new Error('dist/ui/ is older than src/ui/: run `make build` (make test does it) before the scenario tests')
}

function newestMtime(dir: string, skip?: string): number {
  let newest = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (p === skip) continue
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p, skip) : statSync(p).mtimeMs)
  }
  return newest
}

/**
 * One clock and one source of randomness (issue 23 item 1, design.md §6 "Time and chance are injected"): outside the
 * system's implementation (src/clock.ts) no file in src/ reads the machine's time (`Date.now()`, `new Date()` with
 * no argument), arms a timer of its own (`setTimeout`, `setInterval` called bare, not as a Clock's method) or draws
 * `Math.random()`; everything takes the Clock and Random that compose.ts builds. The browser console (src/ui/) is
 * not svcd's code and is left out. The checker proves itself on known-bad and known-good lines.
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ROOT } from '../helpers/paths.js'

const SRC = join(ROOT, 'src')

/** What reads the time, arms a timer or draws randomness by itself; a Clock's own method (`clock.setTimeout(`) is not. */
const FORBIDDEN: { what: string; re: RegExp }[] = [
  { what: 'Date.now()', re: /\bDate\.now\s*\(/ },
  { what: 'new Date()', re: /\bnew Date\s*\(\s*\)/ },
  { what: 'setTimeout', re: /(?<![.\w])setTimeout\s*\(/ },
  { what: 'setInterval', re: /(?<![.\w])setInterval\s*\(/ },
  { what: 'Math.random()', re: /\bMath\.random\s*\(/ },
]

/** The files that may: the system's clock, and the interfaces' declarations. */
const ALLOWED = new Set(['clock.ts', 'util/clock.ts'])

/** Files not yet converted, each with its reason; a listed file that no longer needs it fails the test (stale). */
const PENDING: Record<string, string> = {}

/** Block and line comments blanked out (keeping line numbers), so that prose about Date.now is no finding. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
}

/** `file:line: what` for every forbidden use in the files of `tree` (path relative to src/ → text). */
export function findings(tree: Map<string, string>): string[] {
  const out: string[] = []
  for (const [file, text] of tree) {
    if (ALLOWED.has(file) || file.startsWith('ui/')) continue
    code(text).split('\n').forEach((line, i) => {
      for (const f of FORBIDDEN) if (f.re.test(line)) out.push(`${file}:${i + 1}: ${f.what}`)
    })
  }
  return out.sort()
}

function readTree(dir: string): Map<string, string> {
  const paths = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? paths(join(d, e.name)) : /\.tsx?$/.test(e.name) ? [join(d, e.name)] : []))
  return new Map(paths(dir).map((p) => [relative(SRC, p).split('\\').join('/'), readFileSync(p, 'utf8')]))
}

t.test('src/ reads the time, arms timers and draws randomness only through the injected Clock and Random', async (t) => {
  const tree = readTree(SRC)
  t.ok(tree.size > 100, `read ${tree.size} files under src/`)
  const found = findings(tree)
  const pending = (f: string) => Object.keys(PENDING).some((p) => f.startsWith(`${p}:`))
  t.same(found.filter((f) => !pending(f)), [], 'no file outside src/clock.ts reads the machine clock, arms its own timer or calls Math.random')
  const stale = Object.keys(PENDING).filter((p) => !found.some((f) => f.startsWith(`${p}:`)))
  t.same(stale, [], 'every pending file still needs its entry (remove the entry once the file takes the clock)')
})

t.test('the checker itself: known-bad lines are found, a Clock\'s methods and comments are not', async (t) => {
  const tree = new Map([
    ['app/bad.ts', [
      'const a = Date.now()',
      'const b = new Date()',
      'setTimeout(() => undefined, 10)',
      'const c = setInterval(tick, 100)',
      'const d = Math.random() * 10',
      'const e = await new Promise((r) => setTimeout(r, 5))',
    ].join('\n')],
    ['app/good.ts', [
      '/** Date.now() and setTimeout are not called here, Math.random() neither. */',
      'const a = this.clock.now()',
      'const b = new Date(a)',
      'this.timer = this.o.clock.setTimeout(() => this.tick(), ms) // not setTimeout(…) of the machine',
      'const c = clock.setInterval(f, 10)',
      'const d = random.fraction()',
      'const e = Date.parse(iso)',
    ].join('\n')],
    ['clock.ts', 'export const now = () => Date.now()'],
    ['util/clock.ts', '  setTimeout(f: () => void, ms: number): TimerHandle'],
    ['ui/page.ts', 'setTimeout(render, 0)'],
  ])
  t.same(findings(tree), [
    'app/bad.ts:1: Date.now()',
    'app/bad.ts:2: new Date()',
    'app/bad.ts:3: setTimeout',
    'app/bad.ts:4: setInterval',
    'app/bad.ts:5: Math.random()',
    'app/bad.ts:6: setTimeout',
  ])
})

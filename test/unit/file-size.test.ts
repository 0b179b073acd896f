/** Issue 11's rule: no source file over 400 lines (a file that grows past it is split by concern). */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'

const MAX = 400
const root = new URL('../../src/', import.meta.url).pathname

t.test(`every file under src/ has at most ${MAX} lines`, async (t) => {
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f))
  t.ok(files.length > 100, `${files.length} files checked`)
  const over = files.map((f) => ({ f, n: readFileSync(join(root, f), 'utf8').split('\n').length - 1 })).filter((x) => x.n > MAX)
  t.same(over, [], 'files over the limit')
})

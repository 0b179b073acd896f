/**
 * Issue 22 defect 11: the README's "What needs the token" table and the one list in code (PUBLIC_ROUTES and
 * PUBLIC_METRICS, src/http/auth.ts) name the same routes: every route the README calls public is public, and every
 * public route and method (HEAD goes with GET) is in the README.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { isPublic, PUBLIC_METRICS, PUBLIC_ROUTES } from '../../../src/http/auth.js'
import { join } from 'node:path'
import { ROOT } from '../../helpers/paths.js'

/** `METHOD /path` items of the table, with placeholders made concrete: `…` → `x`, `<NAME>` → `x`. */
function readmeRoutes(): { method: string; path: string; text: string }[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf('## What needs the token')
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1))
  const out: { method: string; path: string; text: string }[] = []
  for (const line of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const first = line.split(' | ')[0]!
    for (const m of first.matchAll(/`(GET|POST|PUT|DELETE|HEAD) (\/[^`]*)`/g)) {
      out.push({ method: m[1]!, path: m[2]!.replace(/…/g, 'x').replace(/<[^>]+>/g, 'x'), text: `${m[1]} ${m[2]}` })
    }
  }
  return out
}

t.test('the README lists exactly the public routes of src/http/auth.ts', async (t) => {
  const listed = readmeRoutes()
  t.ok(listed.length >= 10, `the README's table is found (${listed.length} routes)`)
  for (const r of listed) t.ok(isPublic(r.method, r.path, [PUBLIC_METRICS]), `the README's ${r.text} is public in code`)
  for (const route of [...PUBLIC_ROUTES, PUBLIC_METRICS]) {
    for (const method of route.methods.filter((m) => m !== 'HEAD')) {
      const hit = listed.find((r) => r.method === method && route.path.test(r.path))
      t.ok(hit, `${method} ${route.path.source} (${route.why}) is in the README`)
    }
  }
})

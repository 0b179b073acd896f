/**
 * The layering rule of design.md §2 / style.md §5, enforced: read every import under src/ and fail on an edge the
 * table does not allow, on a third-party package outside its one home, and on I/O modules in the pure library.
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { ROOT } from '../helpers/paths.js'

const SRC = join(ROOT, 'src')
const LIBRARY = ['util', 'resources', 'asn1', 'crypto', 'objects', 'protocol'] as const

/** Which layer a source file belongs to. */
export function layerOf(file: string): string {
  const rel = relative(SRC, file).replace(/\\/g, '/')
  const top = rel.split('/')[0]
  if ((LIBRARY as readonly string[]).includes(top)) return top
  if (rel === 'main.ts' || rel === 'cli.ts') return 'root'
  if (rel === 'errors.ts' || rel === 'version.ts') return rel.slice(0, -3)
  if (rel === 'eventsourcing.ts' || top === 'ca') return 'domain'
  if (top === 'pubd') return /-writer\.ts$/.test(rel) ? 'storage' : 'domain'
  if (top === 'store') return 'storage'
  if (['manager.ts', 'scheduler.ts', 'config.ts', 'log.ts', 'lock.ts', 'tls-cert.ts'].includes(rel) || top === 'ta' || top === 'app') return 'application'
  if (top === 'api') return 'api'
  if (top === 'http') return 'http'
  if (rel === 'watch.ts') return 'watch'
  if (top === 'client') return 'client'
  if (top === 'cli') return 'cli'
  return 'unknown'
}

const lib = (upto: number) => LIBRARY.slice(0, upto + 1) as readonly string[]
const ALLOWED: Record<string, readonly string[]> = {
  util: lib(0),
  resources: lib(1),
  asn1: lib(2),
  crypto: lib(3),
  objects: lib(4),
  protocol: lib(5),
  errors: [],
  version: [],
  api: [...LIBRARY, 'errors', 'api'],
  domain: [...LIBRARY, 'errors', 'domain'],
  storage: [...LIBRARY, 'errors', 'domain', 'storage'],
  application: [...LIBRARY, 'errors', 'version', 'domain', 'storage', 'application', 'api'],
  http: [...LIBRARY, 'errors', 'version', 'api', 'http', 'application:manager.ts', 'application:config.ts', 'application:log.ts'],
  watch: ['errors'],
  client: [...LIBRARY, 'errors', 'version', 'api', 'client'],
  cli: [...LIBRARY, 'errors', 'version', 'api', 'client', 'cli'],
  root: ['*'],
}

/** Each third-party package and the only place it may be imported (style.md §5). */
const HOMES: Record<string, RegExp> = {
  koa: /^http\//,
  '@koa/router': /^http\//,
  'better-sqlite3': /^store\//,
  'fast-xml-parser': /^protocol\/xml\.ts$/,
  xmlbuilder2: /^protocol\/xml\.ts$/,
  pkijs: /^asn1\/ber\.ts$/,
  asn1js: /^asn1\/ber\.ts$/,
  chokidar: /^watch\.ts$/,
  pino: /^log\.ts$/,
  'pino-pretty': /^log\.ts$/,
  'smol-toml': /^config\.ts$/,
  commander: /^cli\//,
}

/** Node modules that do I/O: not allowed in the pure library (design.md §2). */
const IO_MODULES = new Set(['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'child_process', 'cluster', 'dns', 'readline', 'process'])

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []))
}

function importsOf(text: string): string[] {
  const out: string[] = []
  const re = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g
  for (const m of text.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3])
  return out
}

const files = sourceFiles(SRC)

t.test('every source file belongs to a layer', async (t) => {
  for (const f of files) t.not(layerOf(f), 'unknown', relative(SRC, f))
})

t.test('internal imports follow the layer table', async (t) => {
  const bad: string[] = []
  for (const f of files) {
    const from = layerOf(f)
    for (const spec of importsOf(readFileSync(f, 'utf8'))) {
      if (!spec.startsWith('.')) continue
      const target = resolve(dirname(f), spec.replace(/\.js$/, '.ts'))
      const to = layerOf(target)
      const rules = ALLOWED[from]
      const ok = rules.includes('*') || rules.includes(to) || rules.includes(`${to}:${relative(SRC, target)}`)
      if (!ok) bad.push(`${relative(SRC, f)} (${from}) imports ${relative(SRC, target)} (${to})`)
    }
  }
  t.same(bad, [], 'no import edge outside design.md §2')
})

t.test('third-party packages stay in their homes; the library does no I/O', async (t) => {
  const bad: string[] = []
  for (const f of files) {
    const rel = relative(SRC, f)
    const layer = layerOf(f)
    for (const spec of importsOf(readFileSync(f, 'utf8'))) {
      if (spec.startsWith('.')) continue
      const name = spec.startsWith('node:') ? spec : spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]
      const home = HOMES[name]
      if (home && !home.test(rel)) bad.push(`${rel} imports ${name} (home: ${home})`)
      const builtin = spec.replace(/^node:/, '')
      if ((LIBRARY as readonly string[]).includes(layer) && IO_MODULES.has(builtin)) bad.push(`${rel} (library) imports ${spec}`)
    }
  }
  t.same(bad, [])
})

t.test('the checker sees the edges it must refuse', async (t) => {
  t.equal(layerOf(join(SRC, 'cli', 'x.ts')), 'cli')
  t.notOk(ALLOWED.cli.includes('storage'), 'svcc never imports the store')
  t.notOk(ALLOWED.cli.includes('domain'), 'svcc never imports the CA code')
  t.notOk(ALLOWED.resources.includes('asn1'), 'nothing imports up')
  t.same(importsOf("import a from './a.js'\nexport { b } from '../b.js'\nconst c = await import('./c.js')\nimport './d.js'"), ['./a.js', '../b.js', './c.js', './d.js'])
})

/**
 * The layering rule of design.md §2, enforced over src/. Guarantees: every file is in a layer; every import edge
 * (static, `export … from`, dynamic, `require`/`createRequire`) is one the table or a listed exception allows;
 * third-party packages stay in their homes; the library and the domain read no clock, environment or randomness and
 * import no I/O module, unless listed; the import cycles are exactly the listed ones, and none exists at run time;
 * infrastructure (stores, signers, writers, servers, services) is constructed only in the roots and the listed places;
 * no exception is stale. It proves itself by feeding known-bad virtual files through the same checker.
 * Checker: test/helpers/layering.ts. Today's table and exceptions (findings for the redesign): test/helpers/layering-policy.ts.
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { analyse, checkTree, findCycles, importGraph, parseModule, type Policy, type Report } from '../helpers/layering.js'
import { POLICY } from '../helpers/layering-policy.js'
import { ROOT } from '../helpers/paths.js'

const SRC = join(ROOT, 'src')

/** Every .ts file under dir, by path relative to src/ with posix separators. */
function readTree(dir: string): Map<string, string> {
  const paths = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? paths(join(d, e.name)) : /\.tsx?$/.test(e.name) ? [join(d, e.name)] : []))
  return new Map(paths(dir).map((p) => [relative(SRC, p).split('\\').join('/'), readFileSync(p, 'utf8')]))
}

const TREE = readTree(SRC)

/** All failures of a report, in one list. */
const failures = (r: Report): string[] => Object.values(r).flat()

/** The failures of the real tree with `line` appended to `file` (a new file if missing), and that line's number. */
function withLine(file: string, line: string, policy: Policy = POLICY): { failures: string[]; line: number } {
  const old = TREE.get(file) ?? ''
  const text = old === '' || old.endsWith('\n') ? old : `${old}\n`
  const tree = new Map(TREE).set(file, `${text}${line}\n`)
  return { failures: failures(checkTree(tree, policy)), line: text.split('\n').length }
}

/** The failures of the real tree plus whole virtual files. */
function withFiles(extra: Record<string, string>, policy: Policy = POLICY): string[] {
  return failures(checkTree(new Map([...TREE, ...Object.entries(extra)]), policy))
}

t.test('the real tree breaks no rule beyond the listed exceptions, and every exception is still needed', async (t) => {
  const report = checkTree(TREE, POLICY)
  t.ok(TREE.size > 100, `read ${TREE.size} files under src/`)
  for (const [rule, found] of Object.entries(report)) t.same(found, [], rule)
})

t.test('no import cycle exists at run time (the listed ones are all closed by `import type`)', async (t) => {
  t.same(findCycles(importGraph(analyse(TREE), true)), [])
})

t.test('known-bad inputs produce exactly the expected failure', async (t) => {
  const clock = withLine('objects/roa.ts', 'export const stampedAt = (): number => Date.now()')
  t.same(clock.failures, [`objects/roa.ts:${clock.line}: Date.now() in a pure file (objects)`], 'the clock in the library')
  const fs = withLine('ca/cert-auth.ts', "import { readFileSync } from 'node:fs'")
  t.same(fs.failures, [`ca/cert-auth.ts:${fs.line}: import fs in a pure file (domain)`], 'node:fs in the domain')
  const env = withLine('asn1/time.ts', 'export const zone = process.env.TZ')
  t.same(env.failures, [`asn1/time.ts:${env.line}: process.env in a pure file (asn1)`], 'process.env in the library')
  const req = withLine('util/hex.ts', "import { createRequire } from 'node:module'; export const fs = createRequire(import.meta.url)('fs')")
  t.same(req.failures, [`util/hex.ts:${req.line}: import fs in a pure file (util)`], 'fs through createRequire in the library')
  const up = withLine('objects/roa.ts', "import type { Db } from '../store/db.js'")
  t.same(up.failures, [`objects/roa.ts:${up.line}: objects may not import store/db.ts (storage), even as a type`], 'the library importing store/')
  const cycle = withFiles({ 'ca/cycle-a.ts': "import { b } from './cycle-b.js'\nexport const a = b\n", 'ca/cycle-b.ts': "import { a } from './cycle-a.js'\nexport const b = () => a\n" })
  t.same(cycle, ['import cycle: ca/cycle-a.ts → ca/cycle-b.ts → ca/cycle-a.ts'], 'an import cycle between two files')
  const built = withFiles({ 'app/rogue.ts': "import { SoftSigner } from '../crypto/soft-signer.js'\nexport const signer = new SoftSigner(undefined as never)\n" })
  t.same(built, ['app/rogue.ts:2: new SoftSigner (crypto/soft-signer.ts) outside the roots'], 'a signer constructed outside the roots')
})

t.test('the other rules and the other import forms fail too', async (t) => {
  const ns = withFiles({ 'ta/rogue.ts': "import * as tasks from '../store/task-store.js'\nexport const make = (db: never) => new tasks.SqlTaskStore(db)\n" })
  t.same(ns, ['ta/rogue.ts:1: application may not import store/task-store.ts (storage)', 'ta/rogue.ts:2: new SqlTaskStore (store/task-store.ts) outside the roots'], 'a concrete store through a namespace import')
  const named = withLine('crypto/key-id.ts', "import { createRequire } from 'node:module'; const load = createRequire(import.meta.url); export const cp = load('node:child_process')")
  t.same(named.failures, [`crypto/key-id.ts:${named.line}: import child_process in a pure file (crypto)`], 'a createRequire kept in a variable')
  const dynamic = withLine('protocol/rrdp.ts', "export const net = () => import('node:net')")
  t.same(dynamic.failures, [`protocol/rrdp.ts:${dynamic.line}: import net in a pure file (protocol)`], 'a dynamic import of node:net')
  const random = withLine('ca/roas.ts', 'export const pick = () => Math.random() + crypto.randomUUID().length')
  const passedOn = withLine('ca/children.ts', 'export const clock: () => number = Date.now')
  t.same(passedOn.failures, [`ca/children.ts:${passedOn.line}: Date.now() in a pure file (domain)`], 'the clock passed on, not called')
  t.same(random.failures, [`ca/roas.ts:${random.line}: Math.random() in a pure file (domain)`, `ca/roas.ts:${random.line}: crypto.randomUUID in a pure file (domain)`], 'randomness in the domain')
  const home = withLine('objects/roa.ts', "import Database from 'better-sqlite3'")
  t.same(home.failures, [`objects/roa.ts:${home.line}: better-sqlite3 outside its home (store/)`], 'a package outside its home')
  t.same(withFiles({ 'misc.ts': 'export const x = 1\n' }), ['misc.ts: in no layer of the policy'], 'a file in no layer')
  const factory = withFiles({ 'ta/rogue.ts': "import { Db } from '../store/db.js'\nimport { propertyStore } from '../store/properties.js'\nexport const open = () => propertyStore(Db.open('x'))\n" })
  t.same(factory, [
    'ta/rogue.ts:1: application may not import store/db.ts (storage)',
    'ta/rogue.ts:2: application may not import store/properties.ts (storage)',
    'ta/rogue.ts:3: propertyStore() (store/properties.ts) outside the roots',
    'ta/rogue.ts:3: Db.open() (store/db.ts) outside the roots',
  ], 'stores built by a factory function and a static factory')
  const cli = withLine('cli/commands/ca.ts', "import type { CaService } from '../../app/ca/ca-service.js'")
  t.same(cli.failures, [`cli/commands/ca.ts:${cli.line}: cli may not import app/ca/ca-service.ts (application), even as a type`], 'svcc importing a service')
})

t.test('an exception nothing needs any more is a failure', async (t) => {
  const stale = { file: 'objects/roa.ts', what: 'Date.now()', why: 'self-test' }
  t.same(failures(checkTree(TREE, { ...POLICY, purityAllowances: [...POLICY.purityAllowances, stale] })), ['purity allowance objects/roa.ts: Date.now()'])
  const fixed = 'ca/a.ts → ca/b.ts → ca/a.ts'
  t.same(failures(checkTree(TREE, { ...POLICY, knownCycles: [...POLICY.knownCycles, fixed] })), [`known cycle ${fixed}`])
  const edge = { from: 'util/', to: 'store/', why: 'self-test' }
  t.same(failures(checkTree(TREE, { ...POLICY, edgeAllowances: [...POLICY.edgeAllowances, edge] })), ['edge allowance util/ → store/'])
})

t.test('comments, strings, dated values and injected clocks or randomness are not impure reads', async (t) => {
  const innocent = [
    '// Date.now() and new Date() in a comment, process.env too',
    "export const text = 'new Date() Math.random() process.env'",
    'export const at = (ms: number) => new Date(ms)',
    'export const draw = (deps: { randomBytes(n: number): Uint8Array; now(): Date }) => [deps.randomBytes(8), deps.now()]',
    "/** import { readFileSync } from 'node:fs' */",
  ].join('\n')
  t.same(withFiles({ 'objects/innocent.ts': `${innocent}\n` }), [])
})

t.test('the parser reads every import form', async (t) => {
  const src = [
    "import a from './a.js'",
    "import type { B } from './b.js'",
    "import { type C, d } from './c.js'",
    "export { e } from './e.js'",
    "export type { F } from './f.js'",
    "import './g.js'",
    "const h = await import('./h.js')",
    "const i = require('./i.js')",
    "const j = createRequire(import.meta.url)('./j.js')",
    'const k = await import(name)',
  ].join('\n')
  const got = parseModule('x.ts', src).imports.map((i) => `${i.kind} ${i.typeOnly ? 'type' : 'value'} ${i.spec}`)
  t.same(got, ['import value ./a.js', 'import type ./b.js', 'import value ./c.js', 'export value ./e.js', 'export type ./f.js', 'import value ./g.js', 'dynamic value ./h.js', 'require value ./i.js', 'require value ./j.js', 'dynamic value <dynamic>'])
})

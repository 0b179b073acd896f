/**
 * The checker behind test/unit/layering.test.ts (design.md §2): reads TypeScript sources with the compiler's parser
 * and reports import edges a policy does not allow, import cycles, clock/environment/randomness/I/O in pure files,
 * and infrastructure classes constructed outside the allowed places. It works on a map of files (path under src/ →
 * text), so the test feeds it the real tree and known-bad virtual files through the same code.
 */
import ts from 'typescript'

/** Source files by path relative to src/ ('objects/roa.ts'), posix separators. */
export type Files = ReadonlyMap<string, string>

/** One import of a module: where it is, how it is written, and the src/ file it resolves to (relative ones only). */
export interface ImportRef {
  spec: string
  kind: 'import' | 'export' | 'dynamic' | 'require'
  typeOnly: boolean
  line: number
  target?: string
}

/** What one file says, as far as the rules care. */
export interface ModuleFacts {
  imports: ImportRef[]
  /** Local name → the module specifier and the exported name it is bound to ('*' for a namespace import). */
  bindings: Map<string, { spec: string; name: string }>
  /** `new X(…)` and call sites whose callee is a name or `name.member` ('X', 'ns.X', 'Db.open'), as written. */
  builds: { callee: string; line: number; isNew: boolean }[]
  /** Exported classes that are not Error subclasses. */
  classes: string[]
  /** Clock, environment, randomness reads, each named as the rule names it ('Date.now()', 'process.env'). */
  impure: { what: string; line: number }[]
}

/** Parse one file and collect its imports, bindings, construction and call sites, classes and impure reads. */
export function parseModule(path: string, text: string): ModuleFacts {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
  const facts: ModuleFacts = { imports: [], bindings: new Map(), builds: [], classes: [], impure: [] }
  const requireNames = new Set(['require'])
  const cryptoNames = cryptoReceivers(sf)
  const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1
  const visit = (n: ts.Node): void => {
    collectDeclaration(n, facts, line)
    collectRequireName(n, requireNames)
    collectCall(n, facts, line, requireNames)
    collectBuild(n, facts, line)
    const impure = impurityOf(n, cryptoNames)
    if (impure) facts.impure.push({ what: impure, line: line(n) })
    ts.forEachChild(n, visit)
  }
  visit(sf)
  return facts
}

/** Record import/export declarations, their bindings, and exported non-Error classes. */
function collectDeclaration(n: ts.Node, facts: ModuleFacts, line: (n: ts.Node) => number): void {
  if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
    const spec = n.moduleSpecifier.text
    const clause = n.importClause
    facts.imports.push({ spec, kind: 'import', typeOnly: clause ? isTypeOnlyClause(clause) : false, line: line(n) })
    if (clause?.name) facts.bindings.set(clause.name.text, { spec, name: 'default' })
    const nb = clause?.namedBindings
    if (nb && ts.isNamespaceImport(nb)) facts.bindings.set(nb.name.text, { spec, name: '*' })
    for (const el of nb && ts.isNamedImports(nb) ? nb.elements : []) {
      const name = (el.propertyName ?? el.name).text
      facts.bindings.set(el.name.text, { spec, name })
      // Randomness imported by name: `import { randomBytes } from 'node:crypto'` (calls through the name are then covered).
      if ((spec === 'crypto' || spec === 'node:crypto') && RANDOM.has(name)) facts.impure.push({ what: `crypto.${name}`, line: line(n) })
    }
  } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
    const named = n.exportClause && ts.isNamedExports(n.exportClause) ? n.exportClause.elements : undefined
    const typeOnly = n.isTypeOnly || (named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly))
    facts.imports.push({ spec: n.moduleSpecifier.text, kind: 'export', typeOnly, line: line(n) })
  } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference) && ts.isStringLiteral(n.moduleReference.expression)) {
    facts.imports.push({ spec: n.moduleReference.expression.text, kind: 'require', typeOnly: n.isTypeOnly, line: line(n) })
  } else if (ts.isClassDeclaration(n) && n.name && hasExport(n) && !extendsError(n)) {
    facts.classes.push(n.name.text)
  }
}

/** Record `new X(…)`, `new ns.X(…)` and calls such as `Db.open(…)` or `createApp(…)`: the places something may be built. */
function collectBuild(n: ts.Node, facts: ModuleFacts, line: (n: ts.Node) => number): void {
  if (!ts.isNewExpression(n) && !ts.isCallExpression(n)) return
  const callee = calleeName(n.expression)
  if (callee) facts.builds.push({ callee, line: line(n), isNew: ts.isNewExpression(n) })
}

/** An import clause is type-only when written `import type`, or when every named binding is `type` and there is no default. */
function isTypeOnlyClause(clause: ts.ImportClause): boolean {
  if (clause.isTypeOnly) return true
  const nb = clause.namedBindings
  return !clause.name && nb !== undefined && ts.isNamedImports(nb) && nb.elements.length > 0 && nb.elements.every((e) => e.isTypeOnly)
}

/** Is the class declared with `export`? */
function hasExport(n: ts.ClassDeclaration): boolean {
  return (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
}

/** A class whose `extends` clause names something ending in Error: an error type, not infrastructure. */
function extendsError(n: ts.ClassDeclaration): boolean {
  return (n.heritageClauses ?? []).some((h) => h.token === ts.SyntaxKind.ExtendsKeyword && h.types.some((t) => /Error$/.test(t.expression.getText())))
}

/** 'X' for `X`, 'ns.X' for `ns.X`; undefined for anything more complex. */
function calleeName(e: ts.Expression): string | undefined {
  if (ts.isIdentifier(e)) return e.text
  if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression)) return `${e.expression.text}.${e.name.text}`
  return undefined
}

/** Remember `const req = createRequire(…)` so that `req('fs')` counts as an import. */
function collectRequireName(n: ts.Node, names: Set<string>): void {
  if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && isCreateRequireCall(n.initializer)) names.add(n.name.text)
}

/** Is the expression a call of `createRequire` (or `module.createRequire`)? */
function isCreateRequireCall(e: ts.Expression): boolean {
  if (!ts.isCallExpression(e)) return false
  const name = calleeName(e.expression)
  return name === 'createRequire' || name?.endsWith('.createRequire') === true
}

/** Record `import('x')`, `require('x')`, `req('x')` and `createRequire(…)('x')`; a non-literal target is kept as '<dynamic>'. */
function collectCall(n: ts.Node, facts: ModuleFacts, line: (n: ts.Node) => number, requireNames: Set<string>): void {
  if (!ts.isCallExpression(n)) return
  const isImport = n.expression.kind === ts.SyntaxKind.ImportKeyword
  const isRequire = (ts.isIdentifier(n.expression) && requireNames.has(n.expression.text)) || isCreateRequireCall(n.expression)
  if (!isImport && !isRequire) return
  const arg = n.arguments[0]
  const spec = arg && ts.isStringLiteralLike(arg) ? arg.text : '<dynamic>'
  facts.imports.push({ spec, kind: isImport ? 'dynamic' : 'require', typeOnly: false, line: line(n) })
}

/** Receivers whose members are the clock or randomness, each reported as `<receiver>.<member>()`. */
const GLOBAL_READS: Readonly<Record<string, readonly string[]>> = { Date: ['now'], performance: ['now'], Math: ['random'], process: ['env', 'hrtime'] }

/** node:crypto functions that draw randomness (key generation included). */
const RANDOM = new Set(['randomBytes', 'randomUUID', 'randomInt', 'randomFill', 'randomFillSync', 'getRandomValues', 'generateKey', 'generateKeySync', 'generateKeyPair', 'generateKeyPairSync', 'generatePrime', 'generatePrimeSync'])

/** The impure read a node is, if any: the clock, the environment, or randomness from node:crypto / web crypto. */
function impurityOf(n: ts.Node, cryptoNames: ReadonlySet<string>): string | undefined {
  if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'Date' && (n.arguments ?? []).length === 0) return 'new Date()'
  if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'Date') return 'Date()'
  if (ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n)) return memberImpurity(n, cryptoNames)
  if (ts.isVariableDeclaration(n) && ts.isObjectBindingPattern(n.name) && n.initializer && ts.isIdentifier(n.initializer) && n.initializer.text === 'process') {
    const hit = n.name.elements.map((e) => (e.propertyName ?? e.name).getText()).find((x) => x === 'env' || x === 'hrtime')
    if (hit) return `process.${hit}`
  }
  return undefined
}

/**
 * `Date.now`, `performance.now`, `Math.random` (called or passed on), `process.env`, `process.hrtime` (also as
 * `process['env']`), and random functions on `crypto` or a namespace import of node:crypto. A `randomBytes` member of
 * anything else (a parameter, `deps.randomBytes`) is randomness passed in, which is the point.
 */
function memberImpurity(n: ts.PropertyAccessExpression | ts.ElementAccessExpression, cryptoNames: ReadonlySet<string>): string | undefined {
  const name = ts.isPropertyAccessExpression(n) ? n.name.text : ts.isStringLiteralLike(n.argumentExpression) ? n.argumentExpression.text : undefined
  if (name === undefined || !ts.isIdentifier(n.expression)) return undefined
  const receiver = n.expression.text
  if (GLOBAL_READS[receiver]?.includes(name)) return receiver === 'process' ? `process.${name}` : `${receiver}.${name}()`
  if (cryptoNames.has(receiver) && RANDOM.has(name)) return `crypto.${name}`
  return undefined
}

/** 'crypto' (the web crypto global) and the local names of namespace or default imports of node:crypto. */
function cryptoReceivers(sf: ts.SourceFile): Set<string> {
  const out = new Set(['crypto'])
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !['crypto', 'node:crypto'].includes(st.moduleSpecifier.text)) continue
    const clause = st.importClause
    if (clause?.name) out.add(clause.name.text)
    if (clause?.namedBindings && ts.isNamespaceImport(clause.namedBindings)) out.add(clause.namedBindings.name.text)
  }
  return out
}

/** The src/ file a relative specifier points at ('./x.js' → 'dir/x.ts'); undefined for packages and misses. */
export function resolveImport(from: string, spec: string, files: { has(path: string): boolean }): string | undefined {
  if (!spec.startsWith('.')) return undefined
  const parts = from.split('/').slice(0, -1)
  for (const p of spec.split('/')) {
    if (p === '..') parts.pop()
    else if (p !== '.') parts.push(p)
  }
  const base = parts.join('/')
  const stem = base.replace(/\.(js|ts)$/, '')
  return [`${stem}.ts`, `${stem}.tsx`, base, `${base}/index.ts`].find((c) => files.has(c))
}

const parsed = new Map<string, ModuleFacts>()

/** Parse every file (each text once per process: the self-tests re-check the tree many times) and resolve its imports. */
export function analyse(files: Files): Map<string, ModuleFacts> {
  const out = new Map<string, ModuleFacts>()
  for (const [path, text] of files) {
    const key = `${path}\n${text}`
    const facts = parsed.get(key) ?? parseModule(path, text)
    parsed.set(key, facts)
    out.set(path, { ...facts, imports: facts.imports.map((i) => ({ ...i, target: resolveImport(path, i.spec, files) })) })
  }
  return out
}

/** File → the src/ files it imports; with `valuesOnly`, the edges that exist at run time (no `import type`). */
export function importGraph(facts: ReadonlyMap<string, ModuleFacts>, valuesOnly = false): Map<string, Set<string>> {
  const edges = (m: ModuleFacts) => m.imports.flatMap((i) => (i.target && !(valuesOnly && i.typeOnly) ? [i.target] : []))
  return new Map([...facts].map(([f, m]) => [f, new Set(edges(m))]))
}

/** A package's name as it is homed: 'node:fs/promises' → 'fs/promises', '@koa/router/x' → '@koa/router', 'pino/file' → 'pino'. */
export function packageOf(spec: string): string {
  if (spec.startsWith('node:')) return spec.slice(5)
  const parts = spec.split('/')
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

/** Does a pattern name this file? 'dir/' is a folder (any depth), '*' matches within one path segment, else exact. */
export function matches(pattern: string, file: string): boolean {
  if (pattern.endsWith('/')) return file.startsWith(pattern)
  if (!pattern.includes('*')) return pattern === file
  const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`)
  return re.test(file)
}

/** Every elementary cycle of the graph, each as a path from its smallest file ('a.ts → b.ts → a.ts'); walks within components. */
export function findCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const component = components(graph)
  const out: string[] = []
  for (const start of [...graph.keys()].sort()) {
    const path = [start]
    const walk = (node: string): void => {
      for (const next of [...(graph.get(node) ?? [])].sort()) {
        if (next === start) out.push([...path, start].join(' → '))
        else if (next > start && component.get(next) === component.get(start) && !path.includes(next)) {
          path.push(next)
          walk(next)
          path.pop()
        }
      }
    }
    walk(start)
  }
  return out
}

/** Strongly connected components (Tarjan): node → component number. */
function components(graph: ReadonlyMap<string, ReadonlySet<string>>): Map<string, number> {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const out = new Map<string, number>()
  const visit = (v: string): void => {
    index.set(v, index.size), low.set(v, index.get(v)!), stack.push(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) visit(w), low.set(v, Math.min(low.get(v)!, low.get(w)!))
      else if (!out.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const id = out.size
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) out.set(w, id)
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return out
}

/** An import the layer table does not allow but today's code has: `from` and `to` are patterns (see matches). */
export interface EdgeAllowance { from: string; to: string; types?: true; why: string }

/** The rules, as data: which layer each file is in, what each layer may import, and today's explicit exceptions. */
export interface Policy {
  /** [pattern, layer] pairs, first match wins; a file that matches none is a failure. */
  layers: readonly (readonly [string, string])[]
  /** Layer → the layers it may import ('*': anything); `types` admits only `import type` edges. Same-layer edges are allowed. */
  mayImport: Readonly<Record<string, readonly { layer: string; types?: true }[]>>
  edgeAllowances: readonly EdgeAllowance[]
  /** Third-party package → the file patterns that may import it. */
  homes: Readonly<Record<string, readonly string[]>>
  /** Layers that must not read the clock, the environment or randomness, nor import an I/O module. */
  pure: readonly string[]
  ioModules: ReadonlySet<string>
  /** `what` as reported: 'Date.now()', 'process.env', 'crypto.randomBytes', 'import os'. */
  purityAllowances: readonly { file: string; what: string; why: string }[]
  knownCycles: readonly string[]
  /** Modules whose exported (non-Error) classes are infrastructure: stores, signers, writers, servers, services. */
  infrastructure: readonly string[]
  /** Factory functions that build infrastructure, as 'module#name' ('http/app.ts#listen'). */
  factories: readonly string[]
  /** Files that may construct infrastructure: the roots. */
  constructors: readonly string[]
  /** `name`: the class or factory built in `file`. */
  constructionAllowances: readonly { file: string; name: string; why: string }[]
}

/** Every failure, by rule; `unused` lists allow-list entries that nothing needs any more (so they must go). */
export interface Report { unplaced: string[]; edges: string[]; homes: string[]; purity: string[]; cycles: string[]; constructions: string[]; unused: string[] }

/** Run every rule of the policy over the files. */
export function checkTree(files: Files, policy: Policy): Report {
  const facts = analyse(files)
  const used = new Set<unknown>()
  const layerOf = (f: string) => policy.layers.find(([p]) => matches(p, f))?.[1]
  const report: Report = { unplaced: [], edges: [], homes: [], purity: [], cycles: [], constructions: [], unused: [] }
  for (const [file, m] of facts) {
    const layer = layerOf(file)
    if (!layer) report.unplaced.push(`${file}: in no layer of the policy`)
    report.edges.push(...edgeFailures(file, m, layer ?? '?', layerOf, policy, used))
    report.homes.push(...homeFailures(file, m, policy))
    if (layer && policy.pure.includes(layer)) report.purity.push(...purityFailures(file, m, layer, policy, used))
    report.constructions.push(...constructionFailures(file, m, facts, policy, used))
  }
  report.cycles = cycleFailures(facts, policy, used)
  report.unused = unusedAllowances(policy, used)
  return report
}

/** Import edges of one file that neither the table nor an allowance admits; unresolved and computed imports too. */
function edgeFailures(file: string, m: ModuleFacts, from: string, layerOf: (f: string) => string | undefined, policy: Policy, used: Set<unknown>): string[] {
  const out: string[] = []
  const rules = policy.mayImport[from] ?? []
  for (const imp of m.imports) {
    const at = `${file}:${imp.line}`
    if (imp.spec === '<dynamic>' && !rules.some((r) => r.layer === '*')) out.push(`${at}: ${imp.kind} of a computed specifier (cannot be checked)`)
    if (!imp.spec.startsWith('.')) continue
    if (!imp.target) { out.push(`${at}: '${imp.spec}' resolves to no file under src/`); continue }
    const to = layerOf(imp.target) ?? '?'
    const ok = from === to || rules.some((r) => r.layer === '*' || (r.layer === to && (!r.types || imp.typeOnly)))
    if (ok) continue
    const allowance = policy.edgeAllowances.find((a) => matches(a.from, file) && matches(a.to, imp.target!) && (!a.types || imp.typeOnly))
    if (allowance) used.add(allowance)
    else out.push(`${at}: ${from} may not import ${imp.target} (${to})${imp.typeOnly ? ', even as a type' : ''}`)
  }
  return out
}

/** Third-party packages imported outside their one home (style.md §5). */
function homeFailures(file: string, m: ModuleFacts, policy: Policy): string[] {
  const out: string[] = []
  for (const imp of m.imports) {
    const home = policy.homes[packageOf(imp.spec)]
    if (home && !home.some((p) => matches(p, file))) out.push(`${file}:${imp.line}: ${packageOf(imp.spec)} outside its home (${home.join(', ')})`)
  }
  return out
}

/** Clock, environment, randomness and I/O modules in a pure file, less the file's allowances. */
function purityFailures(file: string, m: ModuleFacts, layer: string, policy: Policy, used: Set<unknown>): string[] {
  const io = m.imports.filter((i) => policy.ioModules.has(packageOf(i.spec)) || policy.ioModules.has(i.spec.replace(/^node:/, '')))
  const found = [...m.impure, ...io.map((i) => ({ what: `import ${i.spec.replace(/^node:/, '')}`, line: i.line }))]
  const out: string[] = []
  for (const f of found) {
    const allowance = policy.purityAllowances.find((a) => matches(a.file, file) && a.what === f.what)
    if (allowance) used.add(allowance)
    else out.push(`${file}:${f.line}: ${f.what} in a pure file (${layer})`)
  }
  return out
}

/**
 * Infrastructure built outside the constructors and the allowances (design.md §2, roots row): `new X` of an
 * infrastructure class, a static call on one (`Db.openSecondary()`), or a call of a listed factory (`propertyStore()`).
 */
function constructionFailures(file: string, m: ModuleFacts, facts: ReadonlyMap<string, ModuleFacts>, policy: Policy, used: Set<unknown>): string[] {
  if (policy.constructors.some((p) => matches(p, file))) return []
  const isClass = (module: string, name: string) => policy.infrastructure.some((p) => matches(p, module)) && facts.get(module)?.classes.includes(name) === true
  const out: string[] = []
  for (const site of m.builds) {
    const built = builtName(file, site.callee, m, facts)
    if (!built || !(isClass(built.module, built.name) || policy.factories.includes(`${built.module}#${built.name}`))) continue
    const allowance = policy.constructionAllowances.find((a) => matches(a.file, file) && a.name === built.name)
    if (allowance) used.add(allowance)
    else out.push(`${file}:${site.line}: ${site.isNew ? `new ${built.name}` : `${site.callee}()`} (${built.module}) outside the roots`)
  }
  return out
}

/** The module and exported name a callee reaches through the file's imports: `X`, `ns.X`, `X.open` (→ X), `ns.f` (→ f). */
function builtName(file: string, callee: string, m: ModuleFacts, files: { has(path: string): boolean }): { module: string; name: string } | undefined {
  const [first, member] = callee.split('.')
  const b = m.bindings.get(first)
  if (!b) return undefined // a module may build its own classes (static factories such as Db.open, views): not wiring
  const name = b.name === '*' ? member : b.name
  const module = resolveImport(file, b.spec, files)
  return name !== undefined && module !== undefined ? { module, name } : undefined
}

/** Import cycles among the files, less the known ones; a known cycle no longer found counts as used up. */
function cycleFailures(facts: ReadonlyMap<string, ModuleFacts>, policy: Policy, used: Set<unknown>): string[] {
  const out: string[] = []
  for (const cycle of findCycles(importGraph(facts))) {
    if (policy.knownCycles.includes(cycle)) used.add(cycle)
    else out.push(`import cycle: ${cycle}`)
  }
  return out
}

/** Allow-list entries that admitted nothing in this run. */
function unusedAllowances(policy: Policy, used: Set<unknown>): string[] {
  return [
    ...policy.edgeAllowances.filter((a) => !used.has(a)).map((a) => `edge allowance ${a.from} → ${a.to}${a.types ? ' (types)' : ''}`),
    ...policy.purityAllowances.filter((a) => !used.has(a)).map((a) => `purity allowance ${a.file}: ${a.what}`),
    ...policy.constructionAllowances.filter((a) => !used.has(a)).map((a) => `construction allowance ${a.file}: ${a.name}`),
    ...policy.knownCycles.filter((c) => !used.has(c)).map((c) => `known cycle ${c}`),
  ]
}

/**
 * The rsync tree writer recycles a replaced tree that the retention rule lets go (issue 22, defect 2): a cycle costs
 * what changed since that tree, not a link per file of the repository, and the tree it builds is exactly the one a
 * fresh build makes (same files, same content, no directory left over), cycle after cycle, whatever changed.
 */
import t from 'tap'
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { ContentChange } from '../../../src/pubd/content.js'
import { RSYNC, writersSetup } from '../../helpers/writers.js'

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex')
const bytes = (s: string) => new TextEncoder().encode(s)

/** Every file (relative path → content) and every directory below `root`. */
function walk(tree: string): { files: Map<string, string>; dirs: string[] } {
  const root = realpathSync(tree)
  const files = new Map<string, string>()
  const dirs: string[] = []
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const rel = relative(root, join(e.parentPath, e.name))
    if (e.isDirectory()) dirs.push(rel)
    else files.set(rel, readFileSync(join(root, rel), 'utf8'))
  }
  return { files, dirs: dirs.sort() }
}

t.test('a recycled tree equals what the store holds, through publishes, replaces, withdrawals and files becoming directories', async (t) => {
  const w = writersSetup(t, { now: () => new Date('2026-01-01T00:00:00Z'), graceSeconds: 3600, maxTrees: 2 })
  w.rsync.init()
  const held = new Map<string, string>() // uri → content
  let seed = 7
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n)
  let recycled = 0
  for (let cycle = 0; cycle < 60; cycle++) {
    const changes: ContentChange[] = []
    const touched = new Set<string>()
    for (let k = 0; k < 1 + random(6); k++) {
      // Names that collide as file and directory over time: d3 is a file in one cycle, the directory of d3/x.roa in another.
      const name = random(3) === 0 ? `d${random(4)}` : `d${random(4)}/${random(2) === 0 ? `s${random(3)}/` : ''}x${random(5)}.roa`
      const uri = RSYNC + 'p/' + name
      if (touched.has(uri)) continue
      const old = held.get(uri)
      const blocked = [...held.keys()].some((u) => u.startsWith(uri + '/') || uri.startsWith(u + '/'))
      const content = `c${cycle}-${k}`
      if (old !== undefined && random(2) === 0) {
        changes.push({ type: 'withdraw', uri, previous: sha(old) })
        held.delete(uri)
      } else if (old !== undefined) {
        changes.push({ type: 'publish', uri, content: bytes(content), hash: sha(content), previous: sha(old) })
        held.set(uri, content)
      } else if (!blocked && ![...touched].some((u) => u.startsWith(uri + '/') || uri.startsWith(u + '/'))) {
        changes.push({ type: 'publish', uri, content: bytes(content), hash: sha(content) })
        held.set(uri, content)
      } else continue
      touched.add(uri)
    }
    if (!changes.length) continue
    w.publish(changes)
    const r = await w.rsync.cycle()
    t.same(r.failed, [], `cycle ${cycle}: no failure`)
    if (r.recycled !== undefined) recycled++
    const tree = walk(w.rsync.modulePath())
    const want = new Map([...held].map(([uri, c]) => [uri.slice(RSYNC.length), c]))
    if (JSON.stringify([...tree.files].sort()) !== JSON.stringify([...want].sort())) {
      t.fail(`cycle ${cycle}: the tree holds exactly the store's objects`, { found: [...tree.files].sort(), wanted: [...want].sort() })
      break
    }
    const parents = new Set([...want.keys()].flatMap((rel) => rel.split('/').slice(0, -1).map((_, i, a) => a.slice(0, i + 1).join('/'))))
    if (JSON.stringify(tree.dirs) !== JSON.stringify([...parents].sort())) {
      t.fail(`cycle ${cycle}: no directory left over`, { found: tree.dirs, wanted: [...parents].sort() })
      break
    }
  }
  t.ok(recycled >= 40, `replaced trees were recycled (${recycled} of the cycles)`)
  t.equal(readdirSync(join(w.dir, 'rsync', 'trees')).length, 3, 'the current tree and rsync_trees_max replaced ones, as before')
})

t.test("a cycle after one publisher's burst costs what changed, not a link per file of the repository", async (t) => {
  const w = writersSetup(t, { now: () => new Date('2026-01-01T00:00:00Z'), graceSeconds: 3600, maxTrees: 1 })
  w.store.addPublisher({ handle: 'q', idCert: bytes('cert'), baseUri: RSYNC + 'q/', created: '2026-01-01T00:00:00Z' })
  w.rsync.init()
  const burst: ContentChange[] = Array.from({ length: 5000 }, (_, i) => ({ type: 'publish', uri: `${RSYNC}p/o/${i}.roa`, content: bytes(`p${i}`), hash: sha(`p${i}`) }))
  w.publish(burst)
  t.match(await w.rsync.cycle(), { files: 5000, written: 5000 }, "the burst's tree writes the burst")
  const inode = statSync(join(w.rsync.modulePath(), 'p', 'o', '17.roa')).ino
  const costs: { written: number; linked: number; recycled?: number }[] = []
  for (let i = 0; i < 4; i++) {
    const c = `roa ${i}`
    w.store.applyChanges('q', [{ type: 'publish', uri: `${RSYNC}q/r${i}.roa`, content: bytes(c), hash: sha(c) }], new Date())
    const r = await w.rsync.cycle()
    costs.push({ written: r.written, linked: r.linked, ...(r.recycled !== undefined ? { recycled: r.recycled } : {}) })
    t.equal(readFileSync(join(w.rsync.modulePath(), 'q', `r${i}.roa`), 'utf8'), c, `another CA's ROA ${i} is in the tree`)
  }
  t.comment(`cycles after the burst: ${JSON.stringify(costs)}`)
  // The first tree after the burst is built afresh (the tree it pushes out of rsync_trees_max is the empty one of
  // the first start, not known); from then on the tree pushed out is recycled, touching the few paths that changed.
  const last = costs.at(-1)!
  t.ok(last.recycled !== undefined && last.written + last.linked <= 3, `the last cycle touched ${last.written + last.linked} files (${JSON.stringify(last)})`)
  t.ok(costs.slice(2).every((c) => c.written + c.linked <= 3), 'every steady cycle touches only what changed')
  t.equal(statSync(join(w.rsync.modulePath(), 'p', 'o', '17.roa')).ino, inode, 'the burst was written once: its files keep their inode')
  t.equal(walk(w.rsync.modulePath()).files.size, 5004, 'and the tree holds everything')
  t.ok(readlinkSync(w.rsync.modulePath()).startsWith('trees/'))
})

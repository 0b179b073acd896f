/**
 * The rsync tree writer (issue 22, defect 2): the cost of a cycle in a repository of N objects (one publisher's burst)
 * when another publisher changes one object. "fresh" is a tree built by linking every file (what every cycle did
 * before, and what a cycle still does when no replaced tree can be recycled), plus the removal of the tree it
 * replaces (what the retention rule then did each cycle); "recycled" is the steady state, a replaced tree brought up
 * to date in place. Run: node --import=./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/rsync-tree.bench.ts [N…]
 */
import { createHash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Test } from 'tap'
import type { ContentChange } from '../src/pubd/content.js'
import { RSYNC, writersSetup } from '../test/helpers/writers.js'

const sha = (s: string) => createHash('sha256').update(s).digest('hex')
const bytes = (s: string) => new TextEncoder().encode(s)

async function bench(n: number): Promise<void> {
  const cleanups: (() => unknown)[] = []
  const t = { teardown: (f: () => unknown) => cleanups.push(f) } as unknown as Test
  try {
    const w = writersSetup(t, { now: () => new Date(), graceSeconds: 3600, maxTrees: 1 })
    w.store.addPublisher({ handle: 'q', idCert: bytes('cert'), baseUri: RSYNC + 'q/', created: new Date().toISOString() })
    w.rsync.init()
    for (let i = 0; i < n; i += 5000) {
      const chunk: ContentChange[] = []
      for (let k = i; k < Math.min(n, i + 5000); k++) chunk.push({ type: 'publish', uri: `${RSYNC}p/${Math.floor(k / 1000)}/${k}.roa`, content: bytes(`object ${k} `.repeat(20)), hash: sha(`object ${k} `.repeat(20)) })
      w.publish(chunk)
    }
    let began = performance.now()
    await w.rsync.cycle()
    const burstMs = performance.now() - began
    const fresh: number[] = []
    const recycled: number[] = []
    let removeMs = 0
    for (let i = 0; i < 8; i++) {
      const c = `roa ${i}`
      w.store.applyChanges('q', [{ type: 'publish', uri: `${RSYNC}q/r${i}.roa`, content: bytes(c), hash: sha(c) }], new Date())
      began = performance.now()
      const r = await w.rsync.cycle()
      const took = performance.now() - began
      if (r.recycled === undefined) fresh.push(took)
      else recycled.push(took)
    }
    // The replaced tree: what removing it costs (before, every cycle under constant change removed one such tree).
    const trees = readdirSync(join(w.dir, 'rsync', 'trees')).filter((name) => !w.rsync.currentTree().endsWith(name))
    if (trees.length) {
      began = performance.now()
      await rm(join(w.dir, 'rsync', 'trees', trees[0]!), { recursive: true, force: true })
      removeMs = performance.now() - began
    }
    const med = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1) : '-')
    console.log(`${n} objects: burst tree ${burstMs.toFixed(0)} ms; one other object changed: fresh tree ${med(fresh)} ms (+ removing a replaced tree ${removeMs.toFixed(0)} ms, n=${fresh.length}), recycled tree ${med(recycled)} ms (median, n=${recycled.length})`)
  } finally {
    for (const f of cleanups.reverse()) await f()
  }
}

const sizes = process.argv.slice(2).map(Number).filter((x) => x > 0)
for (const n of sizes.length ? sizes : [10_000, 50_000]) await bench(n)

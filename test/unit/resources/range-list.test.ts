import t from 'tap'
import {
  BIGINT_LINE, canonicalRuns, coversRuns, findRun, intersectRuns, NUMBER_LINE, run, sameRuns, subtractRuns, unionRuns,
  type Run,
} from '../../../src/resources/range-list.js'

const r = (min: number, max: number): Run<number> => run(min, max)
const plain = (runs: readonly Run<number>[]): [number, number][] => runs.map((x) => [x.min, x.max])

t.test('canonicalRuns sorts and merges overlapping and adjacent runs', async (t) => {
  t.same(plain(canonicalRuns(NUMBER_LINE, [])), [])
  t.same(plain(canonicalRuns(NUMBER_LINE, [r(5, 6), r(1, 2), r(3, 4)])), [[1, 6]])
  t.same(plain(canonicalRuns(NUMBER_LINE, [r(5, 6), r(1, 2), r(3, 3)])), [[1, 3], [5, 6]])
  t.same(plain(canonicalRuns(NUMBER_LINE, [r(1, 2), r(4, 5)])), [[1, 2], [4, 5]])
  t.same(plain(canonicalRuns(NUMBER_LINE, [r(1, 10), r(2, 3), r(9, 12)])), [[1, 12]])
  t.same(plain(canonicalRuns(NUMBER_LINE, [r(0, 0), r(4294967295, 4294967295), r(1, 4294967294)])), [[0, 4294967295]])
  const big = canonicalRuns(BIGINT_LINE, [run(2n ** 128n - 1n, 2n ** 128n - 1n), run(0n, 2n ** 128n - 2n)])
  t.same(big.map((x) => [x.min, x.max]), [[0n, 2n ** 128n - 1n]])
})

t.test('canonical runs are frozen, and the caller\'s objects are not kept', async (t) => {
  const mine = { min: 1, max: 2 }
  const out = canonicalRuns(NUMBER_LINE, [mine])
  t.not(out[0], mine)
  t.ok(Object.isFrozen(out[0]))
})

t.test('set operations at the edges of the number space', async (t) => {
  const all = [r(0, 4294967295)]
  t.same(plain(unionRuns(NUMBER_LINE, [r(0, 0)], [r(1, 4294967295)])), [[0, 4294967295]])
  t.same(plain(subtractRuns(NUMBER_LINE, all, [r(0, 0)])), [[1, 4294967295]])
  t.same(plain(subtractRuns(NUMBER_LINE, all, [r(4294967295, 4294967295)])), [[0, 4294967294]])
  t.same(plain(subtractRuns(NUMBER_LINE, all, all)), [])
  t.same(plain(subtractRuns(NUMBER_LINE, all, [r(5, 6), r(10, 20)])), [[0, 4], [7, 9], [21, 4294967295]])
  t.same(plain(intersectRuns(all, [r(5, 6), r(10, 20)])), [[5, 6], [10, 20]])
  t.same(plain(intersectRuns([r(0, 5), r(10, 15)], [r(3, 12)])), [[3, 5], [10, 12]])
  t.ok(coversRuns(all, [r(0, 0), r(4294967295, 4294967295)]))
  t.notOk(coversRuns([r(0, 5), r(7, 9)], [r(4, 8)]))
  t.ok(coversRuns([], []))
  t.notOk(coversRuns([], [r(1, 1)]))
  t.equal(findRun([r(0, 5), r(7, 9)], 6), -1)
  t.equal(findRun([r(0, 5), r(7, 9)], 9), 1)
  t.ok(sameRuns([r(1, 2)], [r(1, 2)]))
  t.notOk(sameRuns([r(1, 2)], [r(1, 3)]))
})

/** A deterministic PRNG (mulberry32), so a failure can be reproduced. */
function prng(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

const SPACE = 64

function randomRuns(rand: () => number): Run<number>[] {
  const runs: Run<number>[] = []
  const n = Math.floor(rand() * 6)
  for (let i = 0; i < n; i++) {
    const a = Math.floor(rand() * SPACE)
    const b = Math.min(SPACE - 1, a + Math.floor(rand() * 10))
    runs.push(r(a, b))
  }
  return canonicalRuns(NUMBER_LINE, runs)
}

function members(runs: readonly Run<number>[]): Set<number> {
  const s = new Set<number>()
  for (const x of runs) for (let i = x.min; i <= x.max; i++) s.add(i)
  return s
}

function fromMembers(s: Set<number>): [number, number][] {
  const out: [number, number][] = []
  for (let i = 0; i < SPACE; i++) {
    if (!s.has(i)) continue
    const last = out[out.length - 1]
    if (last !== undefined && last[1] === i - 1) last[1] = i
    else out.push([i, i])
  }
  return out
}

t.test('set operations agree with a brute-force model on 2000 random pairs', async (t) => {
  const rand = prng(42)
  let bad = 0
  for (let k = 0; k < 2000; k++) {
    const a = randomRuns(rand)
    const b = randomRuns(rand)
    const ma = members(a)
    const mb = members(b)
    const union = fromMembers(new Set([...ma, ...mb]))
    const inter = fromMembers(new Set([...ma].filter((x) => mb.has(x))))
    const diff = fromMembers(new Set([...ma].filter((x) => !mb.has(x))))
    const covers = [...mb].every((x) => ma.has(x))
    const ok =
      JSON.stringify(plain(unionRuns(NUMBER_LINE, a, b))) === JSON.stringify(union) &&
      JSON.stringify(plain(intersectRuns(a, b))) === JSON.stringify(inter) &&
      JSON.stringify(plain(subtractRuns(NUMBER_LINE, a, b))) === JSON.stringify(diff) &&
      coversRuns(a, b) === covers
    if (!ok && bad++ < 3) t.fail(`mismatch for a=${JSON.stringify(plain(a))} b=${JSON.stringify(plain(b))}`)
  }
  t.equal(bad, 0, 'no mismatches')
})

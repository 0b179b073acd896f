/**
 * Canonical range lists: sorted, disjoint, with overlapping AND adjacent runs merged (RFC 3779 §2.2.3.6 and
 * §3.2.3.6 require this form in certificates). Set algebra as linear merges over two sorted lists, for
 * number (ASNs) and bigint (IP addresses). Used by asn.ts and ip.ts; values are frozen, never mutated.
 */

/** An inclusive run [min, max]. */
export interface Run<T extends number | bigint> {
  readonly min: T
  readonly max: T
}

/** The one piece of arithmetic the algebra needs: the successor (x + 1) and predecessor (x - 1). */
export interface Line<T extends number | bigint> {
  next(x: T): T
  prev(x: T): T
}

export const NUMBER_LINE: Line<number> = { next: (x) => x + 1, prev: (x) => x - 1 }
export const BIGINT_LINE: Line<bigint> = { next: (x) => x + 1n, prev: (x) => x - 1n }

/** A frozen run; the only way runs are made here, so a canonical list cannot be changed behind our back. */
export function run<T extends number | bigint>(min: T, max: T): Run<T> {
  return Object.freeze({ min, max })
}

function byMin<T extends number | bigint>(a: Run<T>, b: Run<T>): number {
  return a.min < b.min ? -1 : a.min > b.min ? 1 : 0
}

/**
 * Sorts and merges runs that overlap or touch (`next.min <= cur.max + 1`). The caller has checked that each
 * run has min ≤ max and lies inside its number space. O(n log n), O(n) when already sorted.
 */
export function canonicalRuns<T extends number | bigint>(line: Line<T>, runs: readonly Run<T>[]): Run<T>[] {
  let sorted = true
  for (let i = 1; i < runs.length && sorted; i++) sorted = runs[i - 1].min <= runs[i].min
  const input = sorted ? runs : [...runs].sort(byMin)
  const out: Run<T>[] = []
  let cur: Run<T> | undefined
  for (const r of input) {
    if (cur !== undefined && r.min <= line.next(cur.max)) {
      if (r.max > cur.max) cur = { min: cur.min, max: r.max }
    } else {
      if (cur !== undefined) out.push(run(cur.min, cur.max))
      cur = r
    }
  }
  if (cur !== undefined) out.push(run(cur.min, cur.max))
  return out
}

/** Union of two canonical lists: a two-pointer merge that coalesces as it goes. O(n + m). */
export function unionRuns<T extends number | bigint>(line: Line<T>, a: readonly Run<T>[], b: readonly Run<T>[]): Run<T>[] {
  if (a.length === 0) return [...b]
  if (b.length === 0) return [...a]
  const out: Run<T>[] = []
  let i = 0
  let j = 0
  let cur: Run<T> | undefined
  while (i < a.length || j < b.length) {
    const r = j >= b.length || (i < a.length && a[i].min <= b[j].min) ? a[i++] : b[j++]
    if (cur !== undefined && r.min <= line.next(cur.max)) {
      if (r.max > cur.max) cur = run(cur.min, r.max)
    } else {
      if (cur !== undefined) out.push(cur)
      cur = r
    }
  }
  if (cur !== undefined) out.push(cur)
  return out
}

/** Intersection of two canonical lists; the result is canonical because both inputs' gaps are kept. O(n + m). */
export function intersectRuns<T extends number | bigint>(a: readonly Run<T>[], b: readonly Run<T>[]): Run<T>[] {
  const out: Run<T>[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    const x = a[i]
    const y = b[j]
    const lo = x.min > y.min ? x.min : y.min
    const hi = x.max < y.max ? x.max : y.max
    if (lo <= hi) out.push(lo === x.min && hi === x.max ? x : lo === y.min && hi === y.max ? y : run(lo, hi))
    if (x.max < y.max) i++
    else j++
  }
  return out
}

/** Everything in `a` that is not in `b`. O(n + m): each run of `b` is visited at most twice. */
export function subtractRuns<T extends number | bigint>(line: Line<T>, a: readonly Run<T>[], b: readonly Run<T>[]): Run<T>[] {
  const out: Run<T>[] = []
  let j = 0
  for (const x of a) {
    let lo = x.min
    // Runs of b that end before this run starts can never matter again.
    while (j < b.length && b[j].max < lo) j++
    let k = j
    while (k < b.length && b[k].min <= x.max) {
      const y = b[k]
      if (y.min > lo) out.push(run(lo, line.prev(y.min)))
      if (y.max >= x.max) break
      lo = line.next(y.max)
      k++
    }
    if (k >= b.length || b[k].min > x.max) out.push(lo === x.min ? x : run(lo, x.max))
    j = k
  }
  return out
}

/** Whether every run of `b` lies inside one run of `a` (both canonical). O(n + m). */
export function coversRuns<T extends number | bigint>(a: readonly Run<T>[], b: readonly Run<T>[]): boolean {
  let i = 0
  for (const y of b) {
    while (i < a.length && a[i].max < y.min) i++
    if (i >= a.length || a[i].min > y.min || a[i].max < y.max) return false
  }
  return true
}

/** The index of the run holding `x`, or -1 (binary search). O(log n). */
export function findRun<T extends number | bigint>(a: readonly Run<T>[], x: T): number {
  let lo = 0
  let hi = a.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid].max < x) lo = mid + 1
    else if (a[mid].min > x) hi = mid - 1
    else return mid
  }
  return -1
}

/** Whether two canonical lists hold the same runs. */
export function sameRuns<T extends number | bigint>(a: readonly Run<T>[], b: readonly Run<T>[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i].min !== b[i].min || a[i].max !== b[i].max) return false
  return true
}

/**
 * Long loops over items in slices (issue 22 defect 8: a 100,000-ROA delta held svcd's event loop for seconds). A
 * loop is written once, as a generator that yields between slices; `runSync` runs it to the end at once (unit tests,
 * small inputs), `runSliced` awaits `pause` at each yield (the caller passes a yield to the event loop: this module
 * is pure, it has no timers). `sortSliced` is a stable merge sort that pauses between slices of work.
 */

/** A computation that yields (nothing) between slices and returns a T. */
export type Sliced<T> = Generator<void, T, void>

/** Items handled between two pauses: a few milliseconds of work for the loops that use it. */
export const SLICE = 2_000

/** Run a sliced computation to the end without pausing. */
export function runSync<T>(g: Sliced<T>): T {
  for (;;) {
    const r = g.next()
    if (r.done) return r.value
  }
}

/** Run a sliced computation, awaiting `pause` between slices (none: as runSync). */
export async function runSliced<T>(g: Sliced<T>, pause?: () => Promise<void>): Promise<T> {
  for (;;) {
    const r = g.next()
    if (r.done) return r.value
    if (pause) await pause()
  }
}

/** A counter for a loop: true every `every` calls (time to yield a slice). */
export function sliceCounter(every = SLICE): () => boolean {
  let n = 0
  return () => ++n % every === 0
}

/**
 * Sort `items` (in place, stable, as Array.prototype.sort does) in slices: runs of SLICE sorted natively, then merged
 * pairwise, yielding every SLICE items merged. Returns the array.
 */
export function* sortSteps<T>(items: T[], compare: (a: T, b: T) => number, slice = SLICE): Sliced<T[]> {
  const n = items.length
  for (let i = 0; i < n; i += slice) {
    const run = items.slice(i, i + slice).sort(compare)
    for (let k = 0; k < run.length; k++) items[i + k] = run[k]!
    if (i + slice < n) yield
  }
  let src = items
  let dst: T[] = new Array<T>(n)
  let since = 0
  for (let width = slice; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n)
      const hi = Math.min(lo + 2 * width, n)
      let i = lo
      let j = mid
      // Runs already in order (a mostly sorted input, such as stored keys) are copied without comparing.
      const ordered = mid >= hi || compare(src[mid - 1]!, src[mid]!) <= 0
      for (let k = lo; k < hi; k++) {
        // Ties take the left run first: stable.
        dst[k] = ordered ? src[k]! : i < mid && (j >= hi || compare(src[i]!, src[j]!) <= 0) ? src[i++]! : src[j++]!
        if (++since === slice) {
          since = 0
          yield
        }
      }
    }
    ;[src, dst] = [dst, src]
  }
  if (src !== items) for (let k = 0; k < n; k++) items[k] = src[k]!
  return items
}

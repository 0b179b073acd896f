/**
 * "Does not hang" checks for unit tests: a wall-clock bound far above the normal time (milliseconds) and far below
 * what a catastrophic path (quadratic or exponential in the input, as with a backtracking regular expression on a
 * megabyte) would take. Speed itself is measured by `make bench`, never by a timed test (the tests run on loaded CI
 * machines, two files at a time): the measured time is printed, not judged.
 */
import type { Test } from 'tap'

export const HANG_MS = 20_000

/** Pass unless more than HANG_MS went by since `start` (a performance.now() reading). */
export function noHang(t: Test, start: number, what: string): void {
  const ms = performance.now() - start
  t.ok(ms < HANG_MS, `${what}: ${ms.toFixed(1)} ms (no hang; speed is measured by make bench)`)
}

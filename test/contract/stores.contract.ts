/**
 * What every store contract (test/contract/*-store.contract.ts, properties.contract.ts) is given: a factory of
 * fresh, empty stores, as an implementation's runner builds them (test/contract/sqlite.test.ts for SQLite).
 */
import type { Test } from 'tap'
import type { Stores } from '../../src/store/interfaces.js'

export interface StoresUnderTest {
  stores: Stores
  /** Another set of stores over the same storage, sharing nothing in memory with `stores` (a second instance). */
  reopen?: () => Stores
  close(): void
}

export type StoresFactory = () => StoresUnderTest

/** Fresh stores for one subtest, closed at its end. */
export function fresh(t: Test, make: StoresFactory): StoresUnderTest {
  const s = make()
  t.teardown(() => s.close())
  return s
}

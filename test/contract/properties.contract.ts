/** The PropertyStore contract (store/interfaces.ts): server properties, key → value. */
import type { Test } from 'tap'
import { fresh, type StoresFactory } from './stores.contract.js'

export function propertyStoreContract(t: Test, make: StoresFactory): void {
  t.test('get, set, overwrite; kept across instances', async (t) => {
    const under = fresh(t, make)
    const p = under.stores.properties
    t.equal(p.get('version'), undefined, 'unset')
    p.set('version', '0.1.0')
    p.set('created', '2026-01-01T00:00:00Z')
    t.equal(p.get('version'), '0.1.0')
    p.set('version', '0.2.0')
    t.equal(p.get('version'), '0.2.0', 'set overwrites')
    t.equal(p.get('created'), '2026-01-01T00:00:00Z', 'other keys untouched')
    if (under.reopen) t.equal(under.reopen().properties.get('version'), '0.2.0', 'a second instance reads it')
  })
}

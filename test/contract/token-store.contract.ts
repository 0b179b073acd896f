/**
 * The TokenStore contract (store/interfaces.ts; design.md §9): scoped API tokens under their public id with the hash
 * of their secret; names unique per owner among live tokens; a use and a revocation seen by every instance on the
 * database at once.
 */
import type { Test } from 'tap'
import type { StoredToken } from '../../src/store/interfaces.js'
import { fresh, type StoresFactory } from './stores.contract.js'

const token = (id: string, over: Partial<StoredToken> = {}): StoredToken => ({
  id, name: 'ci', owner: 'joe@example.com', ownerProvider: 'config-file', role: { name: 'custom', permissions: ['routes-read', 'routes-update'], cas: ['ca1'] },
  secretHash: 'ab'.repeat(32), created: 1000, expires: 100_000, lastUsed: undefined, revoked: undefined, ...over,
})

export function tokenStoreContract(t: Test, make: StoresFactory): void {
  t.test('create, get, list; names unique per owner', async (t) => {
    const s = fresh(t, make)
    const r = s.stores.tokens
    t.ok(r.create(token('a'), 1000), 'created')
    t.same(r.get('a'), token('a'), 'read back as stored')
    t.equal(r.get('nope'), undefined, 'unknown')
    t.equal(r.secretHash('a'), 'ab'.repeat(32), "a token's secret hash")
    t.equal(r.secretHash('nope'), '', 'none for an unknown id')
    t.notOk(r.create(token('b'), 1000), 'the same owner cannot have two live tokens of one name')
    t.equal(r.get('b'), undefined, 'nothing stored')
    t.ok(r.create(token('c', { owner: 'ann', created: 2000 }), 2000), 'another owner may use the name')
    t.ok(r.create(token('d', { name: 'dash', created: 3000, expires: undefined, role: { name: 'readonly', permissions: ['ca-read'], cas: null } }), 3000))
    t.same(r.get('d')!.role, { name: 'readonly', permissions: ['ca-read'], cas: null }, 'a role for every CA')
    t.equal(r.get('d')!.expires, undefined, 'no expiry')
    t.same(r.list().map((x) => x.id), ['a', 'c', 'd'], 'every token, oldest first')
    t.same(r.list({ owner: 'joe@example.com', provider: 'config-file' }).map((x) => x.id), ['a', 'd'], "an owner's")
    t.same(r.list({ owner: 'joe@example.com', provider: 'openid-connect' }), [], 'the same id from another provider owns none')
  })

  t.test('touch and revoke; another instance sees them at once; a dead name is free again', async (t) => {
    const s = fresh(t, make)
    const r = s.stores.tokens
    r.create(token('a'), 1000)
    r.touch('a', 5000)
    r.touch('a', 4000)
    t.equal(r.get('a')!.lastUsed, 5000, 'last_used moves forward only')
    const other = s.reopen?.().tokens
    if (other) t.equal(other.get('a')!.lastUsed, 5000, 'another instance reads it')
    t.ok((other ?? r).revoke('a', 6000), 'revoked')
    t.notOk(r.revoke('a', 7000), 'revoking twice changes nothing')
    t.notOk(r.revoke('nope', 7000), 'unknown')
    t.equal(r.get('a')!.revoked, 6000, 'revoked on every instance at once')
    t.ok(r.create(token('b'), 8000), 'the name of a revoked token can be used again')
    t.equal(r.get('a'), undefined, 'the revoked token of that name is forgotten')
    r.create(token('c', { name: 'short', expires: 9000 }), 8000)
    t.notOk(r.create(token('d', { name: 'short' }), 8999), 'a live token keeps its name')
    t.ok(r.create(token('d', { name: 'short' }), 9000), 'an expired one does not')
    t.same(r.list().map((x) => x.id).sort(), ['b', 'd'])
  })
}

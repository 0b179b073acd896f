/**
 * The SessionStore and AuditStore contracts (store/interfaces.ts; design.md §9): sessions under the hash of their
 * secret, seen and revoked on every instance on the database at once; the audit trail appended to and read back
 * filtered and paged, newest or oldest first.
 */
import type { Test } from 'tap'
import type { StoredSession } from '../../src/store/interfaces.js'
import { fresh, type StoresFactory } from './stores.contract.js'

const session = (id: string, over: Partial<StoredSession> = {}): StoredSession => ({
  id, userId: 'joe@example.com', provider: 'config-file', role: 'readonly', created: 1000, lastSeen: 1000, expires: 100_000, revoked: undefined, data: { hint: 'x' }, ...over,
})

export function sessionStoreContract(t: Test, make: StoresFactory): void {
  t.test('create, get, touch, revoke; another instance sees the same at once', async (t) => {
    const s = fresh(t, make)
    const r = s.stores.sessions
    r.create(session('a'))
    r.create(session('b', { userId: 'ann' }))
    t.same(r.get('a'), session('a'), 'read back as stored')
    t.equal(r.get('nope'), undefined, 'unknown')
    r.touch('a', 5000)
    r.touch('a', 4000)
    t.equal(r.get('a')!.lastSeen, 5000, 'a use moves last_seen forward only')
    const other = s.reopen?.().sessions
    if (other) t.equal(other.get('a')!.lastSeen, 5000, 'another instance reads it')
    t.ok((other ?? r).revoke('a', 6000), 'revoked')
    t.notOk(r.revoke('a', 7000), 'revoking twice changes nothing')
    t.equal(r.get('a')!.revoked, 6000, 'revoked on every instance at once')
    t.equal(r.get('b')!.revoked, undefined, 'another session kept')
  })

  t.test('revoke every session of a user; purge the ended ones', async (t) => {
    const { stores } = fresh(t, make)
    const r = stores.sessions
    r.create(session('a'))
    r.create(session('b'))
    r.create(session('c', { provider: 'openid-connect' }))
    r.create(session('d', { userId: 'ann', expires: 2000 }))
    t.equal(r.revokeUser('joe@example.com', 'config-file', 3000), 2, "both of the user's sessions of that provider")
    t.equal(r.get('c')!.revoked, undefined, 'the same id from another provider is another user')
    t.equal(r.purge(2500), 1, 'only the session that expired before the time is forgotten')
    t.equal(r.get('d'), undefined)
    t.equal(r.purge(3001), 2, 'then the revoked ones')
    t.ok(r.get('c'))
  })
}

export function auditStoreContract(t: Test, make: StoresFactory): void {
  t.test('append and list: filters, paging, order, total', async (t) => {
    const s = fresh(t, make)
    const a = s.stores.audit
    const base = { provider: 'config-file', token: undefined, success: true, source: '127.0.0.1', details: {} }
    const seqs = [
      a.append({ ...base, time: 1000, actor: 'joe', kind: 'login', ca: undefined }),
      a.append({ ...base, time: 2000, actor: 'joe', kind: 'route-authorizations-update', ca: 'ca1', details: { added: 2 } }),
      a.append({ ...base, time: 3000, actor: 'ann', kind: 'route-authorizations-update', ca: 'ca2', token: 'ci', provider: 'api-token' }),
      a.append({ ...base, time: 4000, actor: 'ann', kind: 'login-failed', ca: undefined, success: false, source: undefined }),
    ]
    t.same(seqs, [...seqs].sort((x, y) => x - y), 'numbers grow')
    t.equal(new Set(seqs).size, 4)
    const all = a.list({ offset: 0, limit: 10, order: 'asc' })
    t.equal(all.total, 4)
    t.same(all.records.map((r) => r.kind), ['login', 'route-authorizations-update', 'route-authorizations-update', 'login-failed'])
    t.same(all.records[1], { seq: seqs[1], time: 2000, actor: 'joe', provider: 'config-file', token: undefined, kind: 'route-authorizations-update', ca: 'ca1', success: true, source: '127.0.0.1', details: { added: 2 } }, 'every field read back')
    t.same(all.records[2]!.token, 'ci')
    t.equal(all.records[3]!.success, false)
    t.same(a.list({ actor: 'ann', offset: 0, limit: 10, order: 'desc' }).records.map((r) => r.time), [4000, 3000], 'by actor, newest first')
    t.same(a.list({ ca: 'ca1', offset: 0, limit: 10, order: 'asc' }).records.map((r) => r.actor), ['joe'], 'by CA')
    t.same(a.list({ kind: 'route-authorizations-update', since: 2500, offset: 0, limit: 10, order: 'asc' }).records.map((r) => r.ca), ['ca2'], 'by kind and time')
    t.same(a.list({ until: 2000, offset: 0, limit: 10, order: 'asc' }).records.map((r) => r.time), [1000], 'until is exclusive')
    const page = a.list({ offset: 1, limit: 2, order: 'desc' })
    t.equal(page.total, 4, 'the total counts every match, not the page')
    t.same(page.records.map((r) => r.time), [3000, 2000], 'a page')
    const other = s.reopen?.().audit
    if (other) {
      const n = other.append({ ...base, time: 5000, actor: 'svc', kind: 'publish', ca: 'ca1', provider: 'svc' })
      t.ok(n > seqs[3]!, 'another instance appends after')
      t.equal(a.list({ offset: 0, limit: 1, order: 'desc' }).records[0]!.seq, n, 'and it is seen here')
    }
  })

  t.test('list only what a caller may see (visible)', async (t) => {
    const s = fresh(t, make)
    const a = s.stores.audit
    const base = { provider: 'config-file', token: undefined, success: true, source: undefined, details: {} }
    a.append({ ...base, time: 1, actor: 'joe', kind: 'login', ca: undefined })
    a.append({ ...base, time: 2, actor: 'joe', kind: 'roas-update', ca: 'ca1' })
    a.append({ ...base, time: 3, actor: 'ann', kind: 'roas-update', ca: 'ca2', provider: 'api-token', token: 'ci' })
    a.append({ ...base, time: 4, actor: 'admin-token', kind: 'publisher-add', ca: undefined, provider: 'admin-token' })
    a.append({ ...base, time: 5, actor: 'ann', kind: 'token-add', ca: undefined })
    const times = (visible: NonNullable<Parameters<typeof a.list>[0]['visible']>, more: { kind?: string } = {}) => {
      const r = a.list({ ...more, offset: 0, limit: 10, order: 'asc', visible })
      t.equal(r.total, r.records.length, 'the total counts only what is visible')
      return r.records.map((x) => x.time)
    }
    t.same(times({ cas: 'all', withoutCa: 'all' }), [1, 2, 3, 4, 5], 'everything')
    t.same(times({ cas: ['ca1'], withoutCa: 'none' }), [2], 'one CA, nothing without a CA')
    t.same(times({ cas: [], withoutCa: 'none' }), [], 'nothing at all')
    t.same(times({ cas: 'all', withoutCa: 'publishers' }), [2, 3, 4], 'every CA and the publication server')
    t.same(times({ cas: ['ca1'], withoutCa: 'none', own: { actor: 'ann', provider: 'config-file', token: undefined } }), [2, 5], 'her own (not her token): the same provider and no token')
    t.same(times({ cas: [], withoutCa: 'none', own: { actor: 'ann', provider: 'api-token', token: 'ci' } }), [3], 'a token sees its own')
    t.same(times({ cas: 'all', withoutCa: 'none' }, { kind: 'roas-update' }), [2, 3], 'with the other filters')
  })
}

export function loginStoreContract(t: Test, make: StoresFactory): void {
  t.test('create, take once (on every instance), purge the old ones', async (t) => {
    const s = fresh(t, make)
    const r = s.stores.logins
    const login = { id: 'a'.repeat(64), verifier: 'v1', nonce: 'n1', created: 1000, data: {} }
    r.create(login)
    r.create({ id: 'b'.repeat(64), verifier: 'v2', nonce: 'n2', created: 2000, data: { kind: 'exchange', user: 'joe' } })
    r.create({ id: 'c'.repeat(64), verifier: 'v3', nonce: 'n3', created: 3000, data: {} })
    t.throws(() => r.create({ ...login, verifier: 'other' }), 'an id is stored once')
    const other = s.reopen?.().logins ?? r
    t.same(other.take('a'.repeat(64)), login, 'taken as stored, by another instance too')
    t.equal(r.take('a'.repeat(64)), undefined, 'a login is taken once')
    t.equal(r.take('nope'), undefined, 'unknown')
    t.equal(r.purge(2500), 1, 'only the logins created before the time are forgotten')
    t.equal(r.take('b'.repeat(64)), undefined)
    t.same(r.take('c'.repeat(64))?.verifier, 'v3')
  })
}

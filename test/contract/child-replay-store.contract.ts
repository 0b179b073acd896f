/**
 * The ChildReplayStore contract (store/interfaces.ts; issue 22, defect 3): RFC 6492 replay state per (CA, child) in
 * the database, seen by every instance on it (a second set of stores, sharing nothing in memory) and after a restart;
 * forgotten with the child or the CA. And PublicationStore.transaction, in which the RFC 8181 endpoint checks a message's
 * replay state and applies it: all of it lands, or none.
 */
import type { Test } from 'tap'
import { caState, command } from './ca-store.contract.js'
import { fresh, type StoresFactory } from './stores.contract.js'

export function childReplayStoreContract(t: Test, make: StoresFactory): void {
  t.test('get, save, remove per (CA, child); another instance sees the same', async (t) => {
    const s = fresh(t, make)
    const r = s.stores.childReplay
    t.equal(r.get('ca1', 'kid'), undefined, 'nothing seen yet')
    r.save('ca1', 'kid', { signingTime: '2026-01-01T00:00:00.000Z', digests: ['a'] })
    r.save('ca1', 'kid', { signingTime: '2026-01-01T00:00:00.000Z', digests: ['a', 'b'] })
    r.save('ca1', 'other', { signingTime: '2026-01-01T00:00:07.000Z', digests: [] })
    r.save('ca2', 'kid', { signingTime: '2026-01-01T00:00:09.000Z', digests: ['c'] })
    t.same(r.get('ca1', 'kid'), { signingTime: '2026-01-01T00:00:00.000Z', digests: ['a', 'b'] }, 'the last state saved')
    t.same(r.get('ca2', 'kid'), { signingTime: '2026-01-01T00:00:09.000Z', digests: ['c'] }, 'per CA')
    if (s.reopen) {
      const other = s.reopen().childReplay
      t.same(other.get('ca1', 'kid'), { signingTime: '2026-01-01T00:00:00.000Z', digests: ['a', 'b'] }, 'another instance on the database reads it')
      other.save('ca1', 'kid', { signingTime: '2026-01-01T00:00:03.000Z', digests: ['d'] })
      t.same(r.get('ca1', 'kid'), { signingTime: '2026-01-01T00:00:03.000Z', digests: ['d'] }, 'and what it saves is read here at once (no cache)')
    }
    r.remove('ca1', 'other')
    t.equal(r.get('ca1', 'other'), undefined, 'a child forgotten')
    t.ok(r.get('ca1', 'kid'), 'its sibling kept')
    r.remove('ca2')
    t.equal(r.get('ca2', 'kid'), undefined, "every child of a CA forgotten")
    t.ok(r.get('ca1', 'kid'), 'another CA kept')
  })

  t.test("a removed CA leaves no children's replay state", async (t) => {
    const { stores } = fresh(t, make)
    stores.cas.create(command('ca1', '2026-01-01T00:00:01.000Z', 'ca-add'), caState('ca1', [], []))
    stores.childReplay.save('ca1', 'kid', { signingTime: '2026-01-01T00:00:00.000Z', digests: ['a'] })
    stores.cas.remove('ca1')
    t.equal(stores.childReplay.get('ca1', 'kid'), undefined)
  })

  t.test('PublicationStore.transaction: the replay state and the changes of a message land together or not at all', async (t) => {
    const { stores } = fresh(t, make)
    const p = stores.publication
    const base = 'rsync://localhost/repo/bob/'
    p.addPublisher({ handle: 'bob', idCert: new Uint8Array([1]), baseUri: base, created: '2026-01-01T00:00:00.000Z' })
    const change = { type: 'publish' as const, uri: `${base}a.cer`, content: new Uint8Array([1]), hash: 'h(a)' }
    t.throws(() => p.transaction(() => {
      p.saveReplayState('bob', { signingTime: '2026-01-01T00:00:01.000Z', digests: [] })
      p.applyChanges('bob', [change], new Date(), { signingTime: '2026-01-01T00:00:01.000Z', digests: ['d'] })
      throw new Error('boom')
    }), /boom/)
    t.equal(p.replayState('bob'), undefined, 'no replay state')
    t.same(p.listObjects('bob'), [], 'no object')
    const seq = p.transaction(() => {
      t.throws(() => p.transaction(() => {
        p.saveReplayState('bob', { signingTime: '2026-01-01T00:00:02.000Z', digests: [] })
        throw new Error('inner')
      }), /inner/)
      return p.applyChanges('bob', [change], new Date(), { signingTime: '2026-01-01T00:00:03.000Z', digests: ['e'] })
    })
    t.ok(seq !== undefined, 'a nested transaction that failed leaves the outer one usable')
    t.same(p.replayState('bob'), { signingTime: '2026-01-01T00:00:03.000Z', digests: ['e'] })
    t.same(p.listObjects('bob').map((o) => o.uri), [`${base}a.cer`])
  })
}

/**
 * The CaObjectsStore contract (store/interfaces.ts): the current objects of each CA key, replaced atomically per CA;
 * ROAs without bytes, one object's bytes, and a revision string that changes with the objects.
 */
import type { Test } from 'tap'
import type { CaKeyObjects, KeyObjectsState, StoredCaObject } from '../../src/ca/object-model.js'
import { fresh, type StoresFactory } from './stores.contract.js'

function keyState(className: string, revision: string): KeyObjectsState {
  return { className, dir: `rsync://x/repo/ca/${className}/`, revision, thisUpdate: '2026-01-01T00:00:00Z', nextUpdate: '2026-01-02T00:00:00Z', revocations: [{ serial: '5', date: '2026-01-01T00:00:00Z', expires: '2027-01-01T00:00:00Z' }], roaMode: 'simple' }
}

function obj(name: string, kind: StoredCaObject['kind'], byte: number, meta: StoredCaObject['meta'] = { serial: String(byte) }): StoredCaObject {
  return { name, kind, der: new Uint8Array([byte, byte + 1, byte + 2]), hash: `hash-${name}-${byte}`, notAfter: '2027-01-01T00:00:00Z', meta }
}

function keys(): CaKeyObjects[] {
  return [
    { keyId: 'AAAA', state: keyState('0', '1'), objects: [obj('AAAA.crl', 'crl', 1), obj('AAAA.mft', 'mft', 2), obj('r1.roa', 'roa', 3, { serial: '3', payloads: ['10.0.0.0/24-24 => 65000'] }), obj('child.cer', 'cer', 4, { serial: '4', child: 'child' })] },
    { keyId: 'BBBB', state: keyState('1', '7'), objects: [obj('BBBB.crl', 'crl', 5), obj('BBBB.mft', 'mft', 6), obj('r2.roa', 'roa', 7, { serial: '7', payloads: ['10.1.0.0/24-24 => 65001'] })] },
  ]
}

/** `load()` compares with what was saved in any key order: keys and objects are sorted here. */
function sorted(ks: readonly CaKeyObjects[]): CaKeyObjects[] {
  return [...ks].sort((a, b) => (a.keyId < b.keyId ? -1 : 1)).map((k) => ({ ...k, objects: [...k.objects].sort((a, b) => (a.name < b.name ? -1 : 1)) }))
}

export function caObjectsStoreContract(t: Test, make: StoresFactory): void {
  t.test('save and load; der, roas, revisions', async (t) => {
    const { stores } = fresh(t, make)
    t.same(stores.objects.load('ca1'), [], 'nothing before the first save')
    stores.objects.save('ca1', keys())
    stores.objects.save('ca2', [keys()[0]])
    t.same(sorted(stores.objects.load('ca1')), sorted(keys()), 'what was saved')
    const withoutBytes = (ks: readonly CaKeyObjects[]) => ks.map((k) => ({ ...k, objects: k.objects.map(({ der: _der, ...o }) => o) }))
    t.same(stores.objects.summaries('ca1'), withoutBytes(sorted(keys())), 'summaries: the same without bytes, keys and objects in order')
    t.same(stores.objects.summaries('ca3'), [], 'summaries of a CA without objects')
    t.same(stores.objects.der('ca1', 'AAAA', 'r1.roa'), new Uint8Array([3, 4, 5]), 'one object by key and name')
    t.equal(stores.objects.der('ca1', 'AAAA', 'r2.roa'), undefined, 'not under another key')
    t.same(stores.objects.roas('ca1').sort((a, b) => (a.name < b.name ? -1 : 1)), [
      { keyId: 'AAAA', className: '0', name: 'r1.roa', hash: 'hash-r1.roa-3', meta: { serial: '3', payloads: ['10.0.0.0/24-24 => 65000'] } },
      { keyId: 'BBBB', className: '1', name: 'r2.roa', hash: 'hash-r2.roa-7', meta: { serial: '7', payloads: ['10.1.0.0/24-24 => 65001'] } },
    ], 'the ROAs without bytes, with the class of their key')
    const r1 = stores.objects.revisions('ca1')
    t.equal(stores.objects.revisions('ca1'), r1, 'revisions is stable')
    const next = keys()
    next[1].state.revision = '8'
    stores.objects.save('ca1', next)
    t.not(stores.objects.revisions('ca1'), r1, 'revisions changes with a manifest number')
    t.not(stores.objects.revisions('ca2'), stores.objects.revisions('ca1'))
  })

  t.test('counts: objects per CA and kind in one query, following saves and removal', async (t) => {
    const { stores } = fresh(t, make)
    t.same(stores.objects.counts(), [], 'nothing stored')
    stores.objects.save('ca1', keys())
    stores.objects.save('ca2', [keys()[0]])
    t.same(stores.objects.counts(), [
      { handle: 'ca1', kind: 'cer', count: 1 }, { handle: 'ca1', kind: 'crl', count: 2 }, { handle: 'ca1', kind: 'mft', count: 2 }, { handle: 'ca1', kind: 'roa', count: 2 },
      { handle: 'ca2', kind: 'cer', count: 1 }, { handle: 'ca2', kind: 'crl', count: 1 }, { handle: 'ca2', kind: 'mft', count: 1 }, { handle: 'ca2', kind: 'roa', count: 1 },
    ], 'every CA and kind, ordered by CA and kind, counts as numbers')
    stores.objects.save('ca2', [])
    t.same(stores.objects.counts().map((c) => c.handle), ['ca1', 'ca1', 'ca1', 'ca1'], 'a CA without objects has no rows')
  })

  t.test('save replaces: objects added, changed and removed, keys added and removed; other CAs untouched', async (t) => {
    const { stores } = fresh(t, make)
    stores.objects.save('ca1', keys())
    stores.objects.save('ca2', keys())
    const next: CaKeyObjects[] = [
      { keyId: 'AAAA', state: { ...keyState('0', '2'), revocations: [] }, objects: [obj('AAAA.crl', 'crl', 11), obj('AAAA.mft', 'mft', 12), obj('r3.roa', 'roa', 13, { serial: '13', payloads: ['x'] }), obj('child.cer', 'cer', 4, { serial: '4', child: 'renamed' })] },
      { keyId: 'CCCC', state: keyState('2', '1'), objects: [obj('CCCC.mft', 'mft', 20)] },
    ]
    stores.objects.save('ca1', next)
    t.same(sorted(stores.objects.load('ca1')), sorted(next), 'exactly the new content (same bytes with new metadata too)')
    t.same(stores.objects.summaries('ca1').map((k) => [k.keyId, k.state.revision, k.objects.map((o) => o.name)]), [['AAAA', '2', ['AAAA.crl', 'AAAA.mft', 'child.cer', 'r3.roa']], ['CCCC', '1', ['CCCC.mft']]], 'summaries follow the save')
    t.equal(stores.objects.der('ca1', 'AAAA', 'r1.roa'), undefined, 'a removed object is gone')
    t.equal(stores.objects.der('ca1', 'BBBB', 'BBBB.mft'), undefined, "a removed key's objects are gone")
    t.same(stores.objects.der('ca1', 'AAAA', 'AAAA.mft'), new Uint8Array([12, 13, 14]), 'a changed object has its new bytes')
    t.same(stores.objects.roas('ca1').map((r) => r.name), ['r3.roa'])
    t.same(sorted(stores.objects.load('ca2')), sorted(keys()), 'the other CA untouched')
    stores.objects.save('ca1', next)
    t.same(sorted(stores.objects.load('ca1')), sorted(next), 'saving the same content again changes nothing')
    stores.objects.save('ca1', [])
    t.same(stores.objects.load('ca1'), [], 'saving no keys leaves nothing')
    t.same(stores.objects.roas('ca1'), [])
  })

  // A save that fails half-way (an object without bytes is refused by the store) must leave the previous content.
  t.test('a failing save leaves the previous content', async (t) => {
    const { stores } = fresh(t, make)
    stores.objects.save('ca1', keys())
    const bad = keys()
    bad[0].state.revision = '99'
    bad[0].objects[1] = obj('AAAA.mft', 'mft', 50)
    bad[1].objects.push({ ...obj('broken.roa', 'roa', 60), der: null as unknown as Uint8Array })
    t.throws(() => stores.objects.save('ca1', bad), 'a save with an object without bytes throws')
    t.same(sorted(stores.objects.load('ca1')), sorted(keys()), 'nothing of it landed: not the key state, not the object saved before the bad one')
  })
}

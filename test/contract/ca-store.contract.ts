/**
 * The CaStore contract (store/interfaces.ts): CAs with their state, optimistic version check and history. Every
 * implementation runs it (test/contract/sqlite.test.ts). Only the documented behaviour is checked, never storage.
 */
import type { Test } from 'tap'
import type { CaState, ChildInfo } from '../../src/ca/state.js'
import type { RoaConfig } from '../../src/ca/roas.js'
import type { StoredCommand } from '../../src/eventsourcing.js'
import { fresh, type StoresFactory } from './stores.contract.js'

/** A command record as a service stores it (the store assigns `seq`). */
export function command(handle: string, time: string, kind = 'cmd', result: 'success' | 'error' = 'success'): Omit<StoredCommand, 'seq'> {
  return {
    handle,
    time,
    actor: 'test',
    kind,
    summary: { label: `cmd-${kind}`, msg: `${kind} at ${time}`, args: {} },
    details: { type: kind },
    effect: result === 'success' ? { result, events: [{ type: `${kind}-done` }] } : { result, label: 'ca-unknown', msg: 'no' },
  }
}

export function child(handle: string, resources = '10.0.0.0/24'): ChildInfo {
  return {
    handle,
    idCert: `id-cert-of-${handle}`,
    resources: { asn: '', ipv4: resources, ipv6: '' },
    issued: { [`KEY-${handle}`]: { keyId: `KEY-${handle}`, className: '0', der: 'AAAA', uri: `rsync://x/${handle}.cer`, serial: '1', notAfter: '2030-01-01T00:00:00Z', resources: { asn: '', ipv4: resources, ipv6: '' }, signedBy: 'PARENTKEY' } },
  }
}

export function route(asn: number, prefix: string, maxLength: number, comment?: string): [string, RoaConfig] {
  return [`${prefix}-${maxLength} => ${asn}`, { asn, prefix, maxLength, since: '2026-01-01T00:00:00Z', ...(comment ? { comment } : {}) }]
}

/** A CA state with `children` and `routes`. */
export function caState(handle: string, children: ChildInfo[] = [], routes: [string, RoaConfig][] = []): CaState {
  return {
    handle,
    idKey: 'IDKEY',
    idCert: 'IDCERT',
    repo: { embedded: true, publisherHandle: handle, serviceUri: 'https://x/rfc8181/' + handle, siaBase: `rsync://x/repo/${handle}/`, rrdpNotificationUri: 'https://x/rrdp/notification.xml', serverIdCert: 'SRV' },
    parents: { testbed: { name: 'testbed', parentHandle: 'testbed', childHandle: handle, serviceUri: 'https://x/rfc6492/testbed', idCert: 'PID' } },
    classes: { '0': { name: '0', parent: 'testbed', parentClass: '0', entitled: { asn: '', ipv4: '10.0.0.0/8', ipv6: '' }, notAfter: '2030-01-01T00:00:00Z', current: { keyId: 'PARENTKEY' } } },
    nextClass: 1,
    children: Object.fromEntries(children.map((c) => [c.handle, c])),
    routes: Object.fromEntries(routes),
  }
}

const T = (n: number) => `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`

export function caStoreContract(t: Test, make: StoresFactory): void {
  t.test('create, load, exists, handles, version', async (t) => {
    const { stores } = fresh(t, make)
    const s = caState('ca1', [child('c1')], [route(65000, '10.0.0.0/24', 24)])
    t.equal(stores.cas.load('ca1'), undefined, 'no CA before create')
    t.notOk(stores.cas.exists('ca1'))
    stores.cas.create(command('ca1', T(1), 'ca-add'), s)
    stores.cas.create(command('ca0', T(1), 'ca-add'), caState('ca0'))
    t.same(stores.cas.load('ca1'), { version: 1, state: s }, 'the state as created, at version 1')
    t.ok(stores.cas.exists('ca1'))
    t.same(stores.cas.handles(), ['ca0', 'ca1'], 'handles in order')
    t.equal(stores.cas.version('ca1'), 1)
    t.equal(stores.cas.version('nope'), undefined)
    t.same(stores.cas.history('ca1', { offset: 0, rows: 10, full: true }).records.map((r) => [r.seq, r.kind]), [[1, 'ca-add']], 'create is the first history entry')
  })

  t.test('save checks the version: a stale save throws and changes nothing', async (t) => {
    const { stores } = fresh(t, make)
    stores.cas.create(command('ca1', T(1)), caState('ca1'))
    const s2 = caState('ca1', [child('c1')])
    t.equal(stores.cas.save(command('ca1', T(2)), s2, 1), 2, 'save returns the new history seq')
    t.same(stores.cas.load('ca1'), { version: 2, state: s2 })
    t.throws(() => stores.cas.save(command('ca1', T(3)), caState('ca1', [child('other')]), 1), 'a save at a stale version throws')
    t.same(stores.cas.load('ca1'), { version: 2, state: s2 }, 'state and version unchanged')
    t.equal(stores.cas.history('ca1', { offset: 0, rows: 10, full: true }).total, 2, 'no history entry for the refused save')
    t.equal(stores.cas.save(command('ca1', T(4), 'cmd', 'error'), undefined, 2), 3, 'a failed command is recorded without a state')
    t.same(stores.cas.load('ca1'), { version: 2, state: s2 }, 'a command without state keeps the version')
  })

  t.test('history: paging, after/before, full, command(seq)', async (t) => {
    const { stores } = fresh(t, make)
    stores.cas.create(command('ca1', T(1), 'ca-add'), caState('ca1'))
    let v = 1
    for (let i = 2; i <= 6; i++) stores.cas.save(command('ca1', T(i), `cmd${i}`), caState('ca1', [child(`c${i}`)]), v++)
    stores.cas.appendPublication('ca1', T(7), { label: 'pub', msg: 'published', args: {} })
    stores.cas.save(command('ca1', T(8), 'cmd8', 'error'), undefined, v)
    stores.cas.create(command('other', T(5)), caState('other'))
    const all = stores.cas.history('ca1', { offset: 0, rows: 100, full: true })
    t.equal(all.total, 8, 'every command and the publication')
    t.same(all.records.map((r) => r.seq), [1, 2, 3, 4, 5, 6, 7, 8], 'in seq order')
    const noPub = stores.cas.history('ca1', { offset: 0, rows: 100, full: false })
    t.equal(noPub.total, 7, 'without full: no publication entry')
    t.notOk(noPub.records.some((r) => r.kind === 'publish'))
    const page = stores.cas.history('ca1', { offset: 2, rows: 3, full: true })
    t.same([page.total, page.records.map((r) => r.seq)], [8, [3, 4, 5]], 'a page: offset and rows, total of all')
    t.same(stores.cas.history('ca1', { offset: 0, rows: 100, full: true, after: T(3), before: T(7) }).records.map((r) => r.seq), [4, 5, 6], 'after and before are exclusive')
    t.equal(stores.cas.history('ca1', { offset: 0, rows: 100, full: true, after: T(3) }).total, 5, 'total counts the filtered entries')
    const c = stores.cas.command('ca1', 4)
    t.same(c, { ...command('ca1', T(4), 'cmd4'), seq: 4 }, 'command(seq) is the stored record with its seq')
    t.equal(stores.cas.command('ca1', 99), undefined)
    t.same(stores.cas.command('ca1', 8)?.effect, { result: 'error', label: 'ca-unknown', msg: 'no' }, 'an error record')
    t.same(stores.cas.history('other', { offset: 0, rows: 100, full: true }).records.map((r) => r.seq), [1], "another CA's history is its own")
  })

  t.test('history: newest first, and a search in the label, message and actor (issue 23, the console)', async (t) => {
    const { stores } = fresh(t, make)
    stores.cas.create(command('ca1', T(1), 'ca-add'), caState('ca1'))
    for (let i = 2; i <= 6; i++) stores.cas.save(command('ca1', T(i), i % 2 ? 'Odd_50%' : 'even'), caState('ca1', [child(`c${i}`)]), i - 1)
    const seqs = (q: Partial<Parameters<typeof stores.cas.history>[1]>) => stores.cas.history('ca1', { offset: 0, rows: 100, full: true, ...q }).records.map((r) => r.seq)
    t.same(seqs({ order: 'desc' }), [6, 5, 4, 3, 2, 1], 'newest first')
    t.same(seqs({ order: 'desc', offset: 1, rows: 2 }), [5, 4], 'the offset counts from the newest')
    t.same(seqs({ q: 'CMD-EVEN' }), [2, 4, 6], 'in the label, case-insensitive')
    t.same(seqs({ q: 'odd_50%', order: 'desc' }), [5, 3], '% and _ are text, not patterns')
    t.same(seqs({ q: 'odd_5_%' }), [], 'no pattern matching')
    t.same(seqs({ q: `even at ${T(4)}` }), [4], 'in the message')
    t.equal(stores.cas.history('ca1', { offset: 1, rows: 1, full: true, q: 'test' }).total, 6, 'in the actor; the total counts the matches')
    t.same(seqs({ q: 'even-done' }), [], 'not in the details or events')
    t.same(seqs({ q: 'ÉVEN' }), [], 'any text')
  })

  t.test('remove removes everything of that CA and nothing of another', async (t) => {
    const { stores } = fresh(t, make)
    for (const h of ['ca1', 'ca2']) {
      stores.cas.create(command(h, T(1)), caState(h, [child('c1')], [route(65000, '10.0.0.0/24', 24)]))
      stores.cas.appendPublication(h, T(2), { label: 'pub', msg: 'p', args: {} })
      stores.objects.save(h, [{ keyId: 'K', state: { className: '0', dir: 'd', revision: '1', thisUpdate: T(1), nextUpdate: T(9), revocations: [], roaMode: 'simple' }, objects: [{ name: 'K.mft', kind: 'mft', der: new Uint8Array([1]), hash: 'h', notAfter: T(9), meta: { serial: '1' } }] }])
      stores.status.record(h, 'parent', 'testbed', { time: T(3), uri: 'u', result: 'success' })
    }
    const before2 = { state: stores.cas.load('ca2'), objects: stores.objects.load('ca2'), status: stores.status.all('ca2'), history: stores.cas.history('ca2', { offset: 0, rows: 10, full: true }) }
    stores.cas.remove('ca1')
    t.equal(stores.cas.load('ca1'), undefined, 'state gone')
    t.notOk(stores.cas.exists('ca1'))
    t.equal(stores.cas.version('ca1'), undefined)
    t.equal(stores.cas.history('ca1', { offset: 0, rows: 10, full: true }).total, 0, 'history gone')
    t.same(stores.objects.load('ca1'), [], 'objects gone')
    t.same(stores.objects.roas('ca1'), [])
    t.same(stores.status.all('ca1'), [], 'status gone')
    t.same(stores.cas.handles(), ['ca2'])
    t.same({ state: stores.cas.load('ca2'), objects: stores.objects.load('ca2'), status: stores.status.all('ca2'), history: stores.cas.history('ca2', { offset: 0, rows: 10, full: true }) }, before2, 'the other CA untouched')
    stores.cas.create(command('ca1', T(5)), caState('ca1'))
    t.same(stores.cas.load('ca1'), { version: 1, state: caState('ca1') }, 'a CA created again under the same handle starts afresh (no children of the old one)')
  })

  t.test('the loaded state is read-only, and no caller can change what the store holds', async (t) => {
    const { stores } = fresh(t, make)
    const s = caState('ca1', [child('c1')], [route(65000, '10.0.0.0/24', 24)])
    stores.cas.create(command('ca1', T(1)), s)
    const { state } = stores.cas.load('ca1')!
    t.ok(Object.isFrozen(state), 'the state is frozen')
    t.ok(Object.isFrozen(state.children) && Object.isFrozen(state.children.c1) && Object.isFrozen(state.children.c1.issued['KEY-c1']), 'children deep-frozen')
    t.ok(Object.isFrozen(state.routes) && Object.isFrozen(Object.values(state.routes)[0]), 'routes frozen')
    t.ok(Object.isFrozen(state.classes['0'].current), 'the rest deep-frozen')
    t.throws(() => ((state.children as Record<string, ChildInfo>).c2 = child('c2')), TypeError, 'adding a child throws')
    t.throws(() => ((state.children.c1 as { resources: unknown }).resources = {}), TypeError, 'changing a child throws')
    t.throws(() => ((state as { nextClass: number }).nextClass = 7), TypeError)
    const s2 = structuredClone(state)
    s2.children.c2 = child('c2')
    stores.cas.save(command('ca1', T(2)), s2, 1)
    s2.children.c1.resources = { asn: 'AS1', ipv4: '', ipv6: '' }
    delete s2.children.c2
    s2.routes = {}
    t.same(stores.cas.load('ca1')?.state, caState('ca1', [child('c1'), child('c2')], [route(65000, '10.0.0.0/24', 24)]), 'changing the saved object afterwards changes nothing stored')
    t.same(s, caState('ca1', [child('c1')], [route(65000, '10.0.0.0/24', 24)]), 'the object given to create is not frozen or changed')
  })

  t.test('children and routes: add, update and remove round-trip exactly', async (t) => {
    const under = fresh(t, make)
    const { stores } = under
    const routes = [route(65000, '10.0.0.0/24', 24), route(65001, '10.0.1.0/24', 25, 'a comment'), route(65002, '10.0.2.0/24', 24)]
    stores.cas.create(command('ca1', T(1)), caState('ca1', [child('a'), child('b'), child('c')], routes))
    stores.cas.create(command('ca2', T(1)), caState('ca2', [child('a')], [routes[0]]))
    const steps: CaState[] = [
      caState('ca1', [child('a'), child('b', '10.9.0.0/24'), child('c'), child('d')], [routes[0], route(65001, '10.0.1.0/24', 25, 'changed'), routes[2], route(65003, '10.0.3.0/24', 24)]),
      caState('ca1', [child('b', '10.9.0.0/24'), child('d')], [routes[2]]),
      caState('ca1', [], []),
      caState('ca1', [child('e'), child('a')], [routes[1], routes[0]]),
    ]
    let version = 1
    for (const [i, s] of steps.entries()) {
      const cur = structuredClone(stores.cas.load('ca1')!.state)
      Object.assign(cur, { children: s.children, routes: s.routes })
      stores.cas.save(command('ca1', T(2 + i)), cur, version++)
      t.same(stores.cas.load('ca1'), { version, state: s }, `step ${i + 1}: the state as saved`)
      if (under.reopen) t.same(under.reopen().cas.load('ca1'), { version, state: s }, `step ${i + 1}: the same from a second instance`)
    }
    // Fields holding undefined are no fields, as in JSON.
    const cur = structuredClone(stores.cas.load('ca1')!.state)
    cur.routes[routes[1][0]] = { ...routes[1][1], comment: undefined }
    stores.cas.save(command('ca1', T(9)), cur, version++)
    t.notOk('comment' in stores.cas.load('ca1')!.state.routes[routes[1][0]], 'a field set to undefined is not stored')
    t.same(stores.cas.load('ca2'), { version: 1, state: caState('ca2', [child('a')], [routes[0]]) }, 'the other CA untouched')
  })

  t.test('a save prepared in slices (prepareSave) stores exactly what a plain save stores; a stale one is ignored', async (t) => {
    const under = fresh(t, make)
    const { stores } = under
    const cas = stores.cas
    if (!cas.prepareSave) return t.pass('skipped: the implementation prepares nothing')
    const many = Array.from({ length: 5_000 }, (_, i) => route(65000 + (i % 7), `10.${i >> 8}.${i & 255}.0/24`, 24, i % 3 === 0 ? `c${i}` : undefined))
    cas.create(command('ca1', T(1)), caState('ca1', [child('a')], many.slice(0, 100)))
    let pauses = 0
    const pause = async () => void pauses++
    // Add 4,900, change a comment, remove 10, add a child: prepared, then saved.
    const next = caState('ca1', [child('a'), child('b')], [...many.slice(10, 50), route(65001, '10.0.50.0/24', 24, 'changed'), ...many.slice(51)])
    const cmd = command('ca1', T(2))
    cas.load('ca1')
    const prepared = await cas.prepareSave(cmd, next, 1, pause)
    t.ok(pauses > 1, `the work was cut into slices (${pauses} pauses)`)
    const seq = cas.save(cmd, next, 1, prepared)
    t.same(cas.load('ca1'), { version: 2, state: next }, 'the state as saved')
    t.same(Object.keys(cas.load('ca1')!.state.routes), Object.keys(next.routes).sort(), 'routes in key order, as a load gives them')
    t.same(cas.command('ca1', seq), { ...cmd, seq }, 'the history record as saved')
    if (under.reopen) t.same(under.reopen().cas.load('ca1'), { version: 2, state: next }, 'the same from a second instance')
    // Prepared against version 2, but another save came first: ignored, the save goes by the version check.
    const later = caState('ca1', [child('b')], many.slice(0, 3))
    const stale = await cas.prepareSave(command('ca1', T(3)), later, 2, pause)
    cas.save(command('ca1', T(4)), caState('ca1', [], many.slice(0, 2)), 2)
    t.throws(() => cas.save(command('ca1', T(3)), later, 2, stale), 'a stale save throws')
    cas.save(command('ca1', T(5)), later, 3, stale)
    t.same(cas.load('ca1'), { version: 4, state: later }, 'a prepared save of another version is ignored: the state as saved')
    if (under.reopen) t.same(under.reopen().cas.load('ca1'), { version: 4, state: later }, 'the same from a second instance')
  })

  t.test('two instances over one storage: each sees the other\'s saves; the version check holds across them', async (t) => {
    const under = fresh(t, make)
    if (!under.reopen) return t.pass('skipped: the implementation has no second instance over the same storage')
    const a = under.stores
    const b = under.reopen()
    a.cas.create(command('ca1', T(1)), caState('ca1', [child('a')]))
    t.same(a.cas.load('ca1')?.version, 1)
    b.cas.save(command('ca1', T(2)), caState('ca1', [child('a'), child('b')]), 1)
    t.same(a.cas.load('ca1'), { version: 2, state: caState('ca1', [child('a'), child('b')]) }, "a sees b's save")
    t.throws(() => a.cas.save(command('ca1', T(3)), caState('ca1'), 1), 'a stale save through a throws')
    a.cas.save(command('ca1', T(4)), caState('ca1', [child('b')]), 2)
    t.same(b.cas.load('ca1'), { version: 3, state: caState('ca1', [child('b')]) }, "b sees a's save")
    b.cas.remove('ca1')
    b.cas.create(command('ca1', T(5)), caState('ca1', [child('z')]))
    t.same(a.cas.load('ca1'), { version: 1, state: caState('ca1', [child('z')]) }, 'a sees a CA removed and created again at version 1 by b')
  })

  t.test('a save rolled back with its enclosing transaction leaves nothing, not even in what load returns', async (t) => {
    const { stores } = fresh(t, make)
    stores.cas.create(command('ca1', T(1)), caState('ca1', [child('a')]))
    stores.cas.load('ca1')
    t.throws(() =>
      stores.transaction(() => {
        stores.cas.save(command('ca1', T(2)), caState('ca1', [child('rolled-back')]), 1)
        stores.properties.set('x', '1')
        throw new Error('abort')
      }),
    )
    t.same(stores.cas.load('ca1'), { version: 1, state: caState('ca1', [child('a')]) }, 'the state before the transaction')
    t.equal(stores.properties.get('x'), undefined, 'the other store rolled back too')
    t.equal(stores.cas.history('ca1', { offset: 0, rows: 10, full: true }).total, 1, 'no history entry')
    stores.cas.save(command('ca1', T(3)), caState('ca1', [child('b')]), 1)
    t.same(stores.cas.load('ca1'), { version: 2, state: caState('ca1', [child('b')]) }, 'the next save at that version is what load returns')
  })
}

/**
 * The PublicationStore contract (store/interfaces.ts): publishers, their objects, atomic and ownership-checked changes
 * (RFC 8181: a message lands whole or not at all), replay state, and the RRDP session, serials and deltas.
 */
import type { Test } from 'tap'
import type { ContentChange } from '../../src/pubd/content.js'
import type { Publisher } from '../../src/pubd/publishers.js'
import type { RrdpState } from '../../src/store/interfaces.js'
import { fresh, type StoresFactory } from './stores.contract.js'

const BASE = 'rsync://localhost/repo/'

function publisher(handle: string): Publisher {
  return { handle, idCert: new Uint8Array([1, 2, 3, handle.length]), baseUri: `${BASE}${handle}/`, created: '2026-01-01T00:00:00.000Z' }
}

function publish(uri: string, text: string, previous?: string): ContentChange {
  const content = new TextEncoder().encode(text)
  return { type: 'publish', uri, content, hash: `h(${text})`, ...(previous ? { previous } : {}) }
}

function rrdp(serial: number, session = 'S1'): RrdpState {
  return { session, serial, snapshotPath: `${session}/${serial}/snapshot.xml`, snapshotHash: `sh${serial}`, snapshotSize: 100 + serial, updated: `2026-01-01T00:00:0${serial % 10}.000Z` }
}

export function pubdStoreContract(t: Test, make: StoresFactory): void {
  t.test('publishers: add, list, get, stats', async (t) => {
    const { stores } = fresh(t, make)
    const p = stores.publication
    t.same(p.publishers(), [])
    p.addPublisher(publisher('bob'))
    p.addPublisher(publisher('alice'))
    t.same(p.publishers().map((x) => x.handle), ['alice', 'bob'], 'in handle order')
    const bob = p.publisher('bob')!
    t.same([bob.handle, bob.baseUri, bob.created, [...bob.idCert]], ['bob', `${BASE}bob/`, '2026-01-01T00:00:00.000Z', [1, 2, 3, 3]], 'as added')
    t.equal(bob.lastPublish, undefined, 'no publication yet')
    t.equal(p.publisher('nobody'), undefined)
    t.throws(() => p.addPublisher(publisher('bob')), 'a second publisher with the same handle is refused')
    p.updatePublisherIdCert('bob', new Uint8Array([9, 8, 7]))
    t.same([...p.publisher('bob')!.idCert], [9, 8, 7], "a publisher's new identity certificate (issue 25)")
    t.same([...p.publisher('alice')!.idCert], [1, 2, 3, 5], 'the other publisher keeps its own')
    p.updatePublisherIdCert('bob', bob.idCert)
    p.applyChanges('bob', [publish(`${BASE}bob/a.cer`, 'aaa'), publish(`${BASE}bob/b.roa`, 'bb')], new Date('2026-02-01T00:00:00Z'))
    t.equal(p.publisher('bob')?.lastPublish, '2026-02-01T00:00:00.000Z', 'lastPublish is the time of the last change')
    t.same(p.stats(), [
      { handle: 'alice', objects: 0, size: 0, lastPublish: undefined, selfService: false },
      { handle: 'bob', objects: 2, size: 5, lastPublish: '2026-02-01T00:00:00.000Z', selfService: false },
    ], 'stats per publisher')
  })

  t.test('self-service publishers (issue 22): the flag, objectSize, and the usage the quota rule reads', async (t) => {
    const { stores } = fresh(t, make)
    const p = stores.publication
    p.addPublisher(publisher('bob'))
    p.addPublisher({ ...publisher('anon'), selfService: true })
    p.addPublisher({ ...publisher('anon2'), selfService: true })
    t.equal(p.publisher('bob')?.selfService, undefined, 'an operator-added publisher is not flagged')
    t.equal(p.publisher('anon')?.selfService, true, 'a self-service one is, as stored')
    t.same(p.publishers().filter((x) => x.selfService).map((x) => x.handle), ['anon', 'anon2'])
    t.same(p.quotaUsage('bob'), { publisher: { objects: 0, bytes: 0 }, selfService: { objects: 0, bytes: 0 } }, 'nothing held: zeros, not null')
    t.same(p.totalUsage(), { objects: 0, bytes: 0 })
    p.applyChanges('bob', [publish(`${BASE}bob/a.cer`, 'aaaa'), publish(`${BASE}bob/b.roa`, 'bb')], new Date('2026-02-01T00:00:00Z'))
    p.applyChanges('anon', [publish(`${BASE}anon/a.cer`, 'xyz')], new Date('2026-02-01T00:00:00Z'))
    p.applyChanges('anon2', [publish(`${BASE}anon2/a.cer`, 'q'), publish(`${BASE}anon2/b.cer`, 'qq')], new Date('2026-02-01T00:00:00Z'))
    t.same(p.quotaUsage('anon'), { publisher: { objects: 1, bytes: 3 }, selfService: { objects: 3, bytes: 6 } })
    t.same(p.totalUsage(), { objects: 5, bytes: 12 })
    t.same(p.quotaUsage('bob').publisher, { objects: 2, bytes: 6 })
    t.equal(p.objectSize('bob', `${BASE}bob/a.cer`), 4)
    t.equal(p.objectSize('anon', `${BASE}bob/a.cer`), undefined, "not another publisher's")
    t.same(p.stats().map((x) => [x.handle, x.selfService]), [['anon', true], ['anon2', true], ['bob', false]])
  })

  t.test('objects: applyChanges, objectHash, listObjects, objectsWithContent, objectsUnder, removePublisher', async (t) => {
    const { stores } = fresh(t, make)
    const p = stores.publication
    p.addPublisher(publisher('bob'))
    p.addPublisher(publisher('alice'))
    const now = new Date('2026-02-01T00:00:00Z')
    p.applyChanges('bob', [publish(`${BASE}bob/0/a.cer`, 'a'), publish(`${BASE}bob/0/b.roa`, 'b'), publish(`${BASE}bob/0/sub/c.roa`, 'c'), publish(`${BASE}bob/1/d.mft`, 'd'), publish(`${BASE}bob/0x`, 'x')], now)
    p.applyChanges('alice', [publish(`${BASE}alice/0/a.cer`, 'A')], now)
    t.equal(p.objectHash('bob', `${BASE}bob/0/a.cer`), 'h(a)')
    t.equal(p.objectHash('alice', `${BASE}bob/0/a.cer`), undefined, 'only for the publisher that holds it')
    t.same([...p.objectsUnder('bob', `${BASE}bob/0/`)], [`${BASE}bob/0/a.cer`, `${BASE}bob/0/b.roa`, `${BASE}bob/0/sub/c.roa`], 'objectsUnder: strictly below the directory, in order')
    t.same([...p.objectsUnder('alice', `${BASE}bob/0/`)], [], "not another publisher's")
    p.applyChanges('bob', [publish(`${BASE}bob/0/a.cer`, 'a2', 'h(a)'), { type: 'withdraw', uri: `${BASE}bob/0/b.roa`, previous: 'h(b)' }], now)
    t.same(p.listObjects('bob'), [
      { uri: `${BASE}bob/0/a.cer`, hash: 'h(a2)', size: 2 },
      { uri: `${BASE}bob/0/sub/c.roa`, hash: 'h(c)', size: 1 },
      { uri: `${BASE}bob/0x`, hash: 'h(x)', size: 1 },
      { uri: `${BASE}bob/1/d.mft`, hash: 'h(d)', size: 1 },
    ], 'replaced and withdrawn, in URI order')
    const withContent = p.objectsWithContent('bob')
    t.same(withContent.map((o) => [o.uri, new TextDecoder().decode(o.content)]), [[`${BASE}bob/0/a.cer`, 'a2'], [`${BASE}bob/0/sub/c.roa`, 'c'], [`${BASE}bob/0x`, 'x'], [`${BASE}bob/1/d.mft`, 'd']], 'with their bytes')
    t.equal(p.removePublisher('bob'), 4, 'removePublisher withdraws all its objects and says how many')
    t.equal(p.publisher('bob'), undefined)
    t.same(p.listObjects('bob'), [])
    t.same(p.listObjects('alice').map((o) => o.uri), [`${BASE}alice/0/a.cer`], "another publisher's objects stay")
  })

  t.test("applyChanges is atomic and ownership-checked: a change to another publisher's URI throws and nothing lands", async (t) => {
    const { stores } = fresh(t, make)
    const p = stores.publication
    p.addPublisher(publisher('bob'))
    p.addPublisher(publisher('alice'))
    const t1 = new Date('2026-02-01T00:00:00Z')
    p.applyChanges('alice', [publish(`${BASE}alice/x.cer`, 'alice')], t1, { signingTime: '2026-02-01T00:00:00Z', digests: ['d0'] })
    p.applyChanges('bob', [publish(`${BASE}bob/keep.cer`, 'keep')], t1)
    const before = { bob: p.objectsWithContent('bob'), alice: p.objectsWithContent('alice'), replay: p.replayState('bob'), stats: p.stats() }
    t.throws(() => p.applyChanges('bob', [publish(`${BASE}bob/new.cer`, 'new'), { type: 'withdraw', uri: `${BASE}bob/keep.cer`, previous: 'h(keep)' }, publish(`${BASE}alice/x.cer`, 'stolen')], new Date('2026-03-01T00:00:00Z'), { signingTime: '2026-03-01T00:00:00Z', digests: ['d1'] }), "publishing over alice's object throws")
    t.throws(() => p.applyChanges('bob', [publish(`${BASE}bob/new.cer`, 'new'), { type: 'withdraw', uri: `${BASE}alice/x.cer`, previous: 'h(alice)' }], new Date('2026-03-01T00:00:00Z')), "withdrawing alice's object throws")
    t.throws(() => p.applyChanges('bob', [publish(`${BASE}bob/new.cer`, 'new'), { type: 'withdraw', uri: `${BASE}bob/none.cer`, previous: 'h' }], new Date('2026-03-01T00:00:00Z')), 'withdrawing nothing throws')
    t.same({ bob: p.objectsWithContent('bob'), alice: p.objectsWithContent('alice'), replay: p.replayState('bob'), stats: p.stats() }, before, 'nothing of the messages landed: objects, replay state, lastPublish')
  })

  t.test('replay state', async (t) => {
    const { stores } = fresh(t, make)
    const p = stores.publication
    p.addPublisher(publisher('bob'))
    t.equal(p.replayState('bob'), undefined)
    p.saveReplayState('bob', { signingTime: '2026-01-01T00:00:00Z', digests: ['a', 'b'] })
    t.same(p.replayState('bob'), { signingTime: '2026-01-01T00:00:00Z', digests: ['a', 'b'] })
    p.applyChanges('bob', [publish(`${BASE}bob/a.cer`, 'a')], new Date(), { signingTime: '2026-01-01T00:00:05Z', digests: ['c'] })
    t.same(p.replayState('bob'), { signingTime: '2026-01-01T00:00:05Z', digests: ['c'] }, 'applyChanges saves the replay state after the message')
    p.applyChanges('bob', [publish(`${BASE}bob/b.cer`, 'b')], new Date())
    t.same(p.replayState('bob'), { signingTime: '2026-01-01T00:00:05Z', digests: ['c'] }, 'without one, the replay state stays')
    p.removePublisher('bob')
    p.addPublisher(publisher('bob'))
    t.equal(p.replayState('bob'), undefined, 'a removed publisher leaves no replay state')
  })

  t.test('RRDP: recordSerial, rrdpDeltas, resetSession', async (t) => {
    const { stores } = fresh(t, make)
    const p = stores.publication
    t.equal(p.rrdpState(), undefined, 'no session before the first serial')
    t.same(p.rrdpDeltas(), [])
    p.recordSerial(rrdp(1), undefined, [], [])
    t.same(p.rrdpState(), rrdp(1))
    for (let s = 2; s <= 4; s++) p.recordSerial(rrdp(s), { serial: s, path: `S1/${s}/delta.xml`, hash: `dh${s}`, size: s, time: `t${s}` }, [], [])
    t.same(p.rrdpState(), rrdp(4), 'the latest serial')
    t.same(p.rrdpDeltas().map((d) => d.serial), [4, 3, 2], 'deltas, newest first')
    t.same(p.rrdpDeltas()[0], { serial: 4, path: 'S1/4/delta.xml', hash: 'dh4', size: 4, time: 't4' })
    p.recordSerial(rrdp(5), { serial: 5, path: 'S1/5/delta.xml', hash: 'dh5', size: 5, time: 't5' }, [], [2, 3])
    t.same(p.rrdpDeltas().map((d) => d.serial), [5, 4], 'the dropped deltas are gone')
    p.resetSession(rrdp(1, 'S2'), [])
    t.same(p.rrdpState(), rrdp(1, 'S2'), 'a new session')
    t.same(p.rrdpDeltas(), [], 'with no deltas')
  })
}

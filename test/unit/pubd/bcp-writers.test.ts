/**
 * The writers' part of issue 12 (publication-server BCP, RFC 9697, safety floor): gzip copies of every RRDP file, a
 * new session when the database is behind what was served, the safety floor's hook with the object counts,
 * deterministic rsync mtimes, and the bound on replaced rsync trees.
 */
import t, { type Test } from 'tap'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { decodeCert } from '../../../src/objects/cert.js'
import { decodeCrl } from '../../../src/objects/crl.js'
import { decodeSignedObject } from '../../../src/objects/signed-object.js'
import { decodeNotification } from '../../../src/protocol/rrdp.js'
import type { ContentChange } from '../../../src/pubd/content.js'
import { servedOnDisk } from '../../../src/pubd/rrdp/files.js'
import { restoreReason, RrdpWriter, type RrdpState } from '../../../src/pubd/rrdp/index.js'
import { GZIP_BEFORE_NOTIFICATION_BYTES } from '../../../src/pubd/rrdp/writer.js'
import { publishedTime, RsyncWriter } from '../../../src/pubd/rsync-writer.js'
import { Db } from '../../../src/store/db.js'
import { PubdReader, SqlPublicationStore } from '../../../src/store/pubd-store.js'
import { tempDir } from '../../helpers/daemon.js'
import { RRDP, RSYNC, writersSetup } from '../../helpers/writers.js'

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex')
const bytes = (s: string) => new TextEncoder().encode(s)
const sample = (p: string) => readFileSync(new URL(`../../../fixtures/objects/sample/${p}`, import.meta.url))
const CRL = sample('repo/ca/1EB86521C59E475B6E9E5E9239C3670FC8FED843.crl')
const MFT = sample('repo/ca/1EB86521C59E475B6E9E5E9239C3670FC8FED843.mft')
const CER = sample('repo/ta/1EB86521C59E475B6E9E5E9239C3670FC8FED843.cer')

function setup(t: Test, o: { hold?: (b: number, a: number) => string | undefined; graceSeconds?: number; maxTrees?: number } = {}) {
  const w = writersSetup(t, { now: () => new Date(), ...o })
  const put = (name: string, content: Uint8Array) => w.publish([{ type: 'publish', uri: RSYNC + 'p/' + name, content, hash: sha(content) }])
  const withdraw = (name: string, content: Uint8Array) => w.publish([{ type: 'withdraw', uri: RSYNC + 'p/' + name, previous: sha(content) }])
  return { ...w, put, withdraw }
}

t.test('every RRDP file has a gzip copy with the same bytes; old copies go with their files', async (t) => {
  const s = setup(t)
  await s.rrdp.init()
  for (let i = 0; i < 5; i++) {
    s.put(`o${i}.cer`, bytes(`object ${i}`))
    await s.rrdp.cycle()
  }
  const n = s.notification()
  const rel = (uri: string) => join(s.dir, 'rrdp', uri.slice(RRDP.length))
  for (const path of [join(s.dir, 'rrdp', 'notification.xml'), rel(n.snapshot.uri), ...n.deltas.map((d) => rel(d.uri))]) {
    t.same(gunzipSync(readFileSync(`${path}.gz`)), readFileSync(path), `${path.slice(s.dir.length)}.gz`)
  }
  const files = readdirSync(join(s.dir, 'rrdp', n.sessionId), { recursive: true }).map(String).filter((f) => f.endsWith('.xml') || f.endsWith('.gz'))
  t.equal(files.filter((f) => f.endsWith('.gz')).length, files.filter((f) => f.endsWith('.xml')).length, 'a copy per file, none left over')
  t.equal(files.filter((f) => f.endsWith('delta.xml')).length, n.deltas.length, 'unreferenced deltas and their copies are gone')
})

t.test('a snapshot larger than GZIP_BEFORE_NOTIFICATION_BYTES gets its gzip copy too, written in the background after the notification', async (t) => {
  const s = setup(t)
  await s.rrdp.init()
  const big = new Uint8Array(GZIP_BEFORE_NOTIFICATION_BYTES / 4).fill(7) // base64 grows it by a third: 4 make > the bound
  for (let i = 0; i < 4; i++) s.put(`big${i}.cer`, big.map((b, j) => (b + i + j) & 0xff))
  await s.rrdp.cycle()
  s.put('small.cer', bytes('small')) // an incremental serial, the snapshot copied from the previous one
  await s.rrdp.cycle()
  const n = s.notification()
  const snapshot = join(s.dir, 'rrdp', n.snapshot.uri.slice(RRDP.length))
  t.ok(statSync(snapshot).size > GZIP_BEFORE_NOTIFICATION_BYTES, 'the snapshot is over the bound')
  await s.rrdp.settled() // the copy is written in the background
  t.same(gunzipSync(readFileSync(`${snapshot}.gz`)), readFileSync(snapshot), 'its copy has the same bytes')
  t.ok(statSync(`${snapshot}.gz`).mtimeMs >= statSync(join(s.dir, 'rrdp', 'notification.xml')).mtimeMs, 'written once the notification was')
  await s.rrdp.resetSession() // a new session's first snapshot (every start without a layout): the same
  await s.rrdp.settled()
  const first = join(s.dir, 'rrdp', s.notification().snapshot.uri.slice(RRDP.length))
  t.same(gunzipSync(readFileSync(`${first}.gz`)), readFileSync(first), 'a new session\'s large snapshot has its copy too')
})

/** What the directory shows was served (files.ts), judged by the model (model.ts restoreReason), as the writer's init does. */
async function servedAhead(dir: string, state: RrdpState): Promise<string | undefined> {
  const disk = await servedOnDisk(dir, state.session)
  return restoreReason(state, disk.served, disk.serialDirs)
}

t.test('a database behind what was served starts a new session (RFC 9697)', async (t) => {
  const dir = tempDir(t)
  const state = { session: '11111111-1111-4111-8111-111111111111', serial: 5, snapshotPath: 'x', snapshotHash: 'h', snapshotSize: 1, updated: '' }
  const note = (session: string, serial: number) => writeFileSync(join(dir, 'notification.xml'), `<notification xmlns="http://www.ripe.net/rpki/rrdp" version="1" session_id="${session}" serial="${serial}">\n`)
  t.equal(await servedAhead(dir, state), undefined, 'nothing served yet')
  note(state.session, 5)
  t.equal(await servedAhead(dir, state), undefined, 'the same serial')
  note(state.session, 4)
  t.equal(await servedAhead(dir, state), undefined, 'an older serial (a crash before the notification was replaced)')
  mkdirSync(join(dir, state.session, '6'), { recursive: true })
  t.equal(await servedAhead(dir, state), undefined, 'the next serial written but never recorded')
  mkdirSync(join(dir, state.session, '7'), { recursive: true })
  t.match(await servedAhead(dir, state), /serial 7 was written, the database is at 5/)
  note(state.session, 9)
  t.match(await servedAhead(dir, state), /served serial 9, the database is at 5/)
  note('22222222-2222-4222-8222-222222222222', 1)
  t.match(await servedAhead(dir, state), /served session 22222222/)

  const s = setup(t)
  await s.rrdp.init()
  s.put('a.cer', bytes('A'))
  await s.rrdp.cycle()
  const served = s.notification()
  const saved = readFileSync(join(s.dir, 'rrdp', 'notification.xml'))
  s.put('b.cer', bytes('B'))
  await s.rrdp.cycle()
  s.store.recordSerial({ ...s.store.rrdpState()!, serial: Number(served.serial) - 1 }, undefined, [], [])
  writeFileSync(join(s.dir, 'rrdp', 'notification.xml'), saved)
  t.match(await s.rrdp.init(), /the notification served serial/, 'init says why')
  t.not(s.notification().sessionId, served.sessionId, 'a new session')
  t.equal(s.notification().serial, 1)
})

t.test('the safety floor hook sees the object counts; a held serial writes nothing and keeps the changes pending', async (t) => {
  const calls: [number, number][] = []
  let hold = true
  const s = setup(t, { hold: (b, a) => (calls.push([b, a]), hold && a < b ? 'too many' : undefined) })
  await s.rrdp.init()
  for (const n of ['a', 'b', 'c']) s.put(`${n}.cer`, bytes(n))
  t.notOk((await s.rrdp.cycle())?.held)
  t.same(calls, [[0, 3]])
  s.withdraw('b.cer', bytes('b'))
  s.withdraw('c.cer', bytes('c'))
  s.put('d.cer', bytes('d'))
  const serial = s.notification().serial
  t.equal((await s.rrdp.cycle())?.held, 'too many')
  t.same(calls[1], [3, 2], 'before: 3 objects; after: 2 (one added, two withdrawn)')
  t.equal(s.notification().serial, serial, 'no new serial')
  hold = false
  const r = await s.rrdp.cycle()
  t.equal(r?.serial, Number(serial) + 1, 'the pending changes land in the next serial')
  t.equal(r?.elements, 3)
})

t.test('rsync: written files get the time of their object; a held tree stays', async (t) => {
  let hold = false
  const s = setup(t, { hold: (b, a) => (hold && a < b ? 'too many' : undefined) })
  s.rsync.init()
  s.put('ca.crl', CRL)
  s.put('ca.mft', MFT)
  s.put('ca.cer', CER)
  s.put('x.roa', bytes('not a ROA'))
  await s.rsync.cycle()
  const mtime = (name: string) => statSync(join(s.rsync.currentTree(), 'p', name)).mtime.toISOString()
  t.equal(mtime('ca.crl'), decodeCrl(CRL).thisUpdate.toISOString(), 'CRL: thisUpdate')
  t.equal(mtime('ca.mft'), decodeSignedObject(MFT).attributes.signingTime!.toISOString(), 'signed object: signing-time')
  t.equal(mtime('ca.cer'), decodeCert(CER).notBefore.toISOString(), 'certificate: notBefore')
  t.equal(publishedTime('x.roa', bytes('not a ROA')), undefined, 'no time for what does not decode')
  s.put('y.cer', bytes('Y'))
  await s.rsync.cycle()
  t.equal(mtime('ca.crl'), decodeCrl(CRL).thisUpdate.toISOString(), 'a linked file keeps it')

  hold = true
  s.withdraw('ca.crl', CRL)
  s.withdraw('ca.mft', MFT)
  s.withdraw('ca.cer', CER)
  const held = await s.rsync.cycle()
  t.equal(held.held, 'too many')
  t.ok(existsSync(join(s.rsync.currentTree(), 'p', 'ca.crl')), 'the current tree stays')
})

t.test('replaced rsync trees: kept for the grace period, at most maxTrees of them', async (t) => {
  const s = setup(t, { graceSeconds: 3600, maxTrees: 2 })
  s.rsync.init()
  const trees = () => readdirSync(join(s.dir, 'rsync', 'trees'))
  for (let i = 0; i < 6; i++) {
    s.put(`o${i}.cer`, bytes(`o${i}`))
    await s.rsync.cycle()
    t.ok(trees().length <= 3, `cycle ${i}: ${trees().length} trees`)
  }
  t.equal(trees().length, 3, 'the current tree and the two newest replaced ones')
  t.ok(trees().includes(s.rsync.currentTree().split('/').pop()!), 'the current tree is one of them')
})

/**
 * repoDelta (app/ca-repo.ts): the RFC 8181 delta that turns what the repository holds (its `list` reply, uri → hash)
 * into the CA's files. A file the repository lacks is published without a hash; a changed one is published with the
 * hash it replaces (RFC 8181 §3.2); an unchanged one is left alone; a held file the CA no longer has is withdrawn
 * with its hash; files outside the publisher's jail are never sent. Publishes come first, in the CA's order, then
 * withdraws, in the repository's order.
 */
import t from 'tap'
import { createHash } from 'node:crypto'
import { repoDelta } from '../../../src/ca/repo-delta.js'
import type { PublishedFile } from '../../../src/ca/object-model.js'

const JAIL = 'rsync://repo.example/repo/ca1/'

function file(name: string, content: string, base = JAIL): PublishedFile {
  const der = new TextEncoder().encode(content)
  return { uri: base + name, der, hash: createHash('sha256').update(der).digest('hex') }
}

const held = (...files: PublishedFile[]) => new Map(files.map((f) => [f.uri, f.hash]))

t.test('a file the repository lacks is published without a hash', async (t) => {
  const mft = file('0/key.mft', 'manifest')
  t.strictSame(repoDelta(new Map(), [mft], JAIL), [{ type: 'publish', uri: mft.uri, content: mft.der }])
})

t.test('a changed file is published with the hash of the object it replaces', async (t) => {
  const old = file('0/key.crl', 'crl 1')
  const now = file('0/key.crl', 'crl 2')
  t.strictSame(repoDelta(held(old), [now], JAIL), [{ type: 'publish', uri: now.uri, hash: old.hash, content: now.der }])
})

t.test('an unchanged file is not sent: a repository in sync gets an empty delta', async (t) => {
  const files = [file('0/key.mft', 'manifest'), file('0/key.crl', 'crl'), file('0/a.roa', 'roa')]
  t.strictSame(repoDelta(held(...files), files, JAIL), [])
})

t.test('a held file the CA no longer has is withdrawn with its hash', async (t) => {
  const kept = file('0/key.mft', 'manifest')
  const gone = file('0/old.roa', 'old roa')
  t.strictSame(repoDelta(held(kept, gone), [kept], JAIL), [{ type: 'withdraw', uri: gone.uri, hash: gone.hash }])
})

t.test('with nothing wanted, everything held is withdrawn (cleaning up a repository the CA left)', async (t) => {
  const a = file('0/key.mft', 'manifest')
  const b = file('0/key.crl', 'crl')
  t.strictSame(repoDelta(held(a, b), [], JAIL), [
    { type: 'withdraw', uri: a.uri, hash: a.hash },
    { type: 'withdraw', uri: b.uri, hash: b.hash },
  ])
})

t.test('files outside the jail are not sent, including a sibling directory that shares the prefix', async (t) => {
  const inside = file('0/key.mft', 'manifest')
  const outside = [
    file('ca2/0/key.mft', 'other CA', 'rsync://repo.example/repo/'),
    file('0/key.mft', 'sibling', 'rsync://repo.example/repo/ca10/'),
    file('0/key.mft', 'other host', 'rsync://other.example/repo/ca1/'),
  ]
  t.strictSame(repoDelta(new Map(), [...outside, inside], JAIL), [{ type: 'publish', uri: inside.uri, content: inside.der }])
  t.strictSame(repoDelta(new Map(), outside, JAIL), [], 'nothing at all when every file is outside')
})

t.test('a mixed delta: publishes in the order of the CA, then withdraws in the order of the repository', async (t) => {
  const same = file('0/same.roa', 'same')
  const changedOld = file('0/key.crl', 'crl 1')
  const changedNew = file('0/key.crl', 'crl 2')
  const added = file('0/new.roa', 'new')
  const gone1 = file('0/gone1.roa', 'gone 1')
  const gone2 = file('0/gone2.roa', 'gone 2')
  const foreign = file('x.cer', 'foreign', 'rsync://repo.example/repo/')
  const pdus = repoDelta(held(gone2, same, changedOld, gone1), [added, same, foreign, changedNew], JAIL)
  t.strictSame(pdus, [
    { type: 'publish', uri: added.uri, content: added.der },
    { type: 'publish', uri: changedNew.uri, hash: changedOld.hash, content: changedNew.der },
    { type: 'withdraw', uri: gone2.uri, hash: gone2.hash },
    { type: 'withdraw', uri: gone1.uri, hash: gone1.hash },
  ])
})

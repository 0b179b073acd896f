/**
 * The CA aggregate without a database (style.md §8 "Domain tests"): commands in, events out, and the refusals with
 * their labels. A CA with one resource class under a parent, certified by a test key.
 */
import t from 'tap'
import { MemoryKeyStore, SoftSigner } from '../../../src/crypto/soft-signer.js'
import { initialState, processCommand } from '../../../src/ca/cert-auth.js'
import { entitledUntil } from '../../../src/ca/children.js'
import { applyEvent, copyForEvents, type CaEvent } from '../../../src/ca/events.js'
import type { CaState, IssuedCert } from '../../../src/ca/state.js'
import { AppError } from '../../../src/errors.js'
import { buildCsr } from '../../../src/objects/csr.js'
import { toBase64 } from '../../../src/util/base64.js'
import { testKey } from '../../helpers/keys.js'
import { certifiedCa, recycledPool } from '../../helpers/certified-ca.js'

/** ca1 under parent 'p', certified (test/helpers/certified-ca.ts), with the software signer. */
async function setup() {
  return certifiedCa(new SoftSigner(new MemoryKeyStore(), await recycledPool()))
}

const label = async (p: Promise<unknown>) => p.then(() => 'no error', (e) => (e instanceof AppError ? e.label : String(e)))

t.test('entitlements create a class with a key; a certificate makes it active', async (t) => {
  const x = await setup()
  t.same(Object.keys(x.s.classes), ['0'])
  t.equal(x.s.classes['0'].parentClass, 'pc')
  t.ok(x.s.classes['0'].current?.cert, 'certified')
  t.same((await x.run({ type: 'parent-entitlements-update', parent: 'p', classes: [] })).map((e: CaEvent) => e.type), ['resource-class-removed'], 'a class the parent no longer lists goes')
})

t.test('children: duplicates, resources not held, certify from a CSR, revoke', async (t) => {
  const x = await setup()
  const idCert = toBase64(new Uint8Array([9]))
  t.same((await x.run({ type: 'child-add', handle: 'kid', idCert, resources: { asn: '', ipv4: '10.1.0.0/16', ipv6: '' } })).map((e) => e.type), ['child-added'])
  t.equal(await label(x.run({ type: 'child-add', handle: 'kid', idCert, resources: { asn: '', ipv4: '10.1.0.0/16', ipv6: '' } })), 'ca-child-duplicate')
  t.equal(await label(x.run({ type: 'child-add', handle: 'k2', idCert, resources: { asn: '', ipv4: '192.168.0.0/16', ipv6: '' } })), 'ca-child-resources-extra')
  t.equal(await label(x.run({ type: 'child-add', handle: 'k3', idCert, resources: { asn: '', ipv4: '', ipv6: '' } })), 'ca-child-resources-required')
  t.equal(await label(x.run({ type: 'child-update', handle: 'nope', resources: { asn: '', ipv4: '10.1.0.0/16', ipv6: '' } })), 'ca-child-unknown')
})

t.test('a child is certified from its CSR, but not under our own expired certificate (RFC 6492 error 2001)', async (t) => {
  const x = await setup()
  await x.run({ type: 'child-add', handle: 'kid', idCert: toBase64(new Uint8Array([9])), resources: { asn: '', ipv4: '10.1.0.0/16', ipv6: '' } })
  const kidKey = testKey()
  const csr = toBase64(buildCsr(kidKey, { caRepository: 'rsync://localhost/repo/kid/0/', rpkiManifest: 'rsync://localhost/repo/kid/0/kid.mft', rpkiNotify: 'https://localhost/rrdp/notification.xml' }))
  const certify = { type: 'child-certify' as const, handle: 'kid', className: '0', csr }
  // Our certificate (2026-05-01 .. 2027-06-01) has expired a month later: nothing issued under it would be valid.
  const late = await processCommand(structuredClone(x.s), certify, { ...x.ctx, now: new Date('2027-07-01T00:00:00Z') }).then(() => undefined, (e: unknown) => e)
  t.ok(late instanceof AppError && late.label === 'rfc6492-protocol', 'refused as an RFC 6492 error')
  t.equal((late as AppError).args.code, '2001')
  t.match((late as AppError).args.reason, /expired at 2027-06-01/)
  t.same((await x.run(certify)).map((e) => e.type), ['child-certificate-issued'], 'while it is valid, the child is certified')
})

t.test('key roll: init, refused activation while pending, activate, finish', async (t) => {
  const x = await setup()
  const old = x.s.classes['0'].current!.keyId
  const init = await x.run({ type: 'keyroll-init' })
  t.same(init.map((e) => e.type), ['key-roll-initiated'])
  t.same(await x.run({ type: 'keyroll-init' }), [], 'no effect while a roll is in progress')
  t.equal(await label(x.run({ type: 'keyroll-activate' })), 'key-roll-pending-requests', 'refused while the new key has no certificate')
  await x.certify(x.s.classes['0'].next!.keyId)
  t.same((await x.run({ type: 'keyroll-activate' })).map((e) => e.type), ['key-roll-activated'])
  t.equal(x.s.classes['0'].old?.keyId, old)
  t.same((await x.run({ type: 'key-revoked', parent: 'p', className: '0', keyId: old })).map((e) => e.type), ['key-roll-finished'])
  t.equal(x.s.classes['0'].old, undefined)
  t.equal(await label(x.run({ type: 'keyroll-activate' })), 'key-roll-disallowed', 'nothing to activate')
})

t.test('ROAs and parents: the delta check and duplicate parents', async (t) => {
  const x = await setup()
  t.same((await x.run({ type: 'roas-update', added: [{ asn: 65000, prefix: '10.0.0.0/24', max_length: 24 }], removed: [] })).map((e) => e.type), ['roas-updated'])
  t.equal(await label(x.run({ type: 'roas-update', added: [{ asn: 65000, prefix: '10.0.0.0/24', max_length: 24 }], removed: [] })), 'ca-roa-delta-error')
  t.equal(await label(x.run({ type: 'roas-update', added: [{ asn: 65000, prefix: 'nonsense', max_length: 24 }], removed: [] })), 'ca-roa-delta-syntax')
  t.equal(await label(x.run({ type: 'parent-add', parent: { name: 'p', parentHandle: 'other', childHandle: 'ca1', serviceUri: 'https://x/', idCert: '' } })), 'ca-parent-duplicate')
  t.equal(await label(x.run({ type: 'parent-remove', name: 'nope' })), 'ca-parent-unknown')
  t.equal(await label(x.run({ type: 'certificate-receive', parent: 'p', className: '0', keyId: 'F00', cert: '', uri: '' })), 'ca-parent-issue')
})

t.test('copyForEvents: the entries events change are copies, the rest is shared, the original never changes', async (t) => {
  const freeze = <T>(v: T): T => {
    if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
      Object.freeze(v)
      for (const x of Object.values(v as object)) freeze(x)
    }
    return v
  }
  const issued = { keyId: 'K1', der: 'AA', uri: 'rsync://x/ca/0/K1.cer', notAfter: '2027-01-01T00:00:00Z', resources: { asn: '', ipv4: '10.0.0.0/16', ipv6: '' } } as unknown as IssuedCert
  const s: CaState = freeze({
    ...initialState('ca', 'KEY', 'CERT'),
    children: {
      a: { handle: 'a', idCert: 'A', resources: { asn: '', ipv4: '10.0.0.0/16', ipv6: '' }, issued: {} },
      b: { handle: 'b', idCert: 'B', resources: { asn: '', ipv4: '10.1.0.0/16', ipv6: '' }, issued: { K1: issued } },
      c: { handle: 'c', idCert: 'C', resources: { asn: '', ipv4: '10.2.0.0/16', ipv6: '' }, issued: {} },
    },
    routes: {
      r1: { asn: 1, prefix: '10.0.0.0/24', maxLength: 24, since: '2026-01-01T00:00:00Z' },
      r2: { asn: 2, prefix: '10.0.1.0/24', maxLength: 24, comment: 'two', since: '2026-01-01T00:00:00Z' },
    },
  })
  const before = JSON.stringify(s)
  const events: CaEvent[] = [
    { type: 'child-resources-updated', handle: 'a', resources: { asn: '', ipv4: '10.0.0.0/17', ipv6: '' } },
    { type: 'child-key-revoked', child: 'b', keyId: 'K1' },
    { type: 'child-added', handle: 'd', idCert: 'D', resources: { asn: '', ipv4: '', ipv6: '' } },
    { type: 'child-removed', handle: 'c' },
    { type: 'roas-updated', changes: { added: [], removed: ['r1'], comments: [{ key: 'r2', comment: 'changed' }] } },
  ]
  const copy = copyForEvents(s, events)
  for (const e of events) applyEvent(copy, e)
  t.equal(JSON.stringify(s), before, 'the original (frozen, as the store caches it) is unchanged')
  t.same(Object.keys(copy.children).sort(), ['a', 'b', 'd'])
  t.equal(copy.children.a.resources.ipv4, '10.0.0.0/17')
  t.same(copy.children.b.issued, {})
  t.same(Object.keys(copy.routes), ['r2'])
  t.equal(copy.routes.r2.comment, 'changed')
  const copy2 = copyForEvents(s, [{ type: 'child-resources-updated', handle: 'a', resources: { asn: '', ipv4: '10.0.0.0/17', ipv6: '' } }])
  t.equal(copy2.children.b, s.children.b, 'an entry no event touches is shared, not copied')
  t.equal(copy2.routes.r1, s.routes.r1)
  t.not(copy2.children.a, s.children.a, 'an entry an event changes is a copy')
  t.not(copy2.classes, s.classes, 'the rest of the state is a copy')
  const copy3 = copyForEvents(s, [{ type: 'child-suspended', handle: 'c', inactive: true }])
  applyEvent(copy3, { type: 'child-suspended', handle: 'c', inactive: true })
  t.ok(copy3.children.c.suspended, 'any child event gets its own copy of the child (here: suspension)')
  t.notOk(s.children.c.suspended)
})

t.test('entitledUntil: a list and the issue a moment later name the same end of validity (down to the hour)', async (t) => {
  const year = 86400 * 365
  const list = entitledUntil(new Date('2026-06-01T10:17:03.250Z'), year)
  const issue = entitledUntil(new Date('2026-06-01T10:17:04.990Z'), year)
  t.equal(list, issue, 'a second apart: the same time, so the next list is no change')
  t.equal(new Date(list).toISOString(), '2027-06-01T10:00:00.000Z', 'a whole hour, no milliseconds (certificate times have none)')
  t.equal(new Date(entitledUntil(new Date('2026-06-01T10:59:59.999Z'), year)).toISOString(), '2027-06-01T10:00:00.000Z')
  t.equal(new Date(entitledUntil(new Date('2026-06-01T11:00:00.000Z'), year)).toISOString(), '2027-06-01T11:00:00.000Z')
})

t.test('repo-update: only another publisher is a move whose old repository gets cleaned up (issue 22, defect 5)', async (t) => {
  const x = await setup()
  const own = x.s.repo!
  const previous = async (repo: typeof own) => {
    const events = await x.run({ type: 'repo-update', repo })
    return (events[0] as { previous?: unknown }).previous
  }
  // The same embedded publisher under another service URI (svcd's service_uri changed) or notification URI.
  t.equal(await previous({ ...own, serviceUri: 'https://127.0.0.1/rfc8181/ca1/', rrdpNotificationUri: 'https://127.0.0.1/rrdp/notification.xml' }), undefined, 'the same embedded publisher is not a move')
  t.equal(x.s.oldRepo, undefined, 'nothing to clean up')
  t.equal(await previous({ ...x.s.repo!, rrdpNotificationUri: 'https://other.example/notification.xml' }), undefined, 'the same service URI is not a move')
  const current = x.s.repo!
  const elsewhere = { ...own, publisherHandle: 'ca1-new', serviceUri: 'https://localhost/rfc8181/ca1-new/', siaBase: 'rsync://localhost/repo/ca1-new/' }
  t.same(await previous(elsewhere), current, 'another publisher is a move: the current one is cleaned up afterwards')
  t.equal(await previous({ ...elsewhere, publisherHandle: 'ca1-third', serviceUri: 'https://localhost/rfc8181/ca1-third/' }), undefined, 'a move while one is pending keeps the first old repository')
  t.same(x.s.oldRepo, current)
  t.same(await previous({ ...current }), { ...elsewhere, publisherHandle: 'ca1-third', serviceUri: 'https://localhost/rfc8181/ca1-third/' }, 'going back to the old repository cleans up the one being left, never the one moved to')
  t.same(x.s.oldRepo?.publisherHandle, 'ca1-third')
})

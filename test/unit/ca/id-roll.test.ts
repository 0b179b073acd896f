/**
 * RFC 8183 identity key rolls (issue 25; ca/id-roll.ts) without a database: the roll's states (none → pending →
 * finished), its refusals with their labels, and the parent side's previous child id certificate, accepted until the
 * child's first message signed with the new one.
 */
import t from 'tap'
import { MemoryKeyStore, SoftSigner } from '../../../src/crypto/soft-signer.js'
import { KeyPool, generateRsaKeyPair } from '../../../src/crypto/key-pool.js'
import { initialState, processCommand } from '../../../src/ca/cert-auth.js'
import { commandSummary } from '../../../src/ca/commands.js'
import type { CaContext } from '../../../src/ca/context.js'
import { applyEvent, copyForEvents, eventSummary, type CaEvent } from '../../../src/ca/events.js'
import { childIdCerts, offeredIdCert } from '../../../src/ca/id-roll.js'
import type { CaState } from '../../../src/ca/state.js'
import { createIdCert } from '../../../src/protocol/id-cert.js'
import { AppError } from '../../../src/errors.js'
import { toBase64 } from '../../../src/util/base64.js'

async function setup() {
  const pool = new KeyPool({ size: 0, concurrency: 1, generate: () => generateRsaKeyPair() })
  const signer = new SoftSigner(new MemoryKeyStore(), pool)
  const now = new Date('2026-06-01T00:00:00Z')
  const ctx = (): CaContext => ({ now, signer, random: (n) => new Uint8Array(n).fill(7), timing: { childCertValidSeconds: 86400 * 365, childCertReissueBeforeSeconds: 86400 * 28 } })
  const identity = async () => {
    const key = await signer.createKey()
    return { key, cert: toBase64(createIdCert(signer.signingKey(key), now)) }
  }
  const first = await identity()
  const s: CaState = initialState('ca1', first.key, first.cert)
  const run = async (c: Parameters<typeof processCommand>[1]): Promise<CaEvent[]> => {
    const events = await processCommand(structuredClone(s), c, ctx())
    for (const e of events) applyEvent(s, e)
    return events
  }
  return { s, run, identity, first }
}

const label = async (p: Promise<unknown>) => p.then(() => 'no error', (e) => (e instanceof AppError ? `${e.label} ${e.status}` : String(e)))

t.test('a roll: pending beside the current identity, then the only one; the child and publisher requests offer the new one', async (t) => {
  const { s, run, identity, first } = await setup()
  const next = await identity()
  t.equal(offeredIdCert(s), first.cert, 'no roll: the current identity is offered')
  const init = await run({ type: 'id-roll-init', idKey: next.key, idCert: next.cert })
  t.same(init, [{ type: 'id-key-roll-initiated', idKey: next.key, idCert: next.cert }])
  t.equal(s.idKey, first.key, 'the CA still signs with the old key')
  t.equal(s.idCert, first.cert)
  t.same(s.idNext, { idKey: next.key, idCert: next.cert })
  t.equal(offeredIdCert(s), next.cert, 'the RFC 8183 requests carry the new certificate')
  t.match(eventSummary(init[0]!), /new identity key/)
  t.equal(commandSummary({ type: 'id-roll-init', idKey: next.key, idCert: next.cert }).label, 'cmd-ca-id-roll-init')

  const finish = await run({ type: 'id-roll-finish' })
  t.same(finish, [{ type: 'id-key-roll-finished', oldKey: first.key }], 'the old key is named (to be destroyed)')
  t.equal(s.idKey, next.key)
  t.equal(s.idCert, next.cert)
  t.notOk('idNext' in s, 'nothing pending')
  t.equal(offeredIdCert(s), next.cert)
  t.equal(commandSummary({ type: 'id-roll-finish' }).label, 'cmd-ca-id-roll-finish')
})

t.test('refusals: a roll while one is pending, a finish without one, a "new" identity that is the current one', async (t) => {
  const { s, run, identity, first } = await setup()
  t.equal(await label(run({ type: 'id-roll-finish' })), 'ca-id-roll-none 409', 'nothing to finish')
  t.equal(await label(run({ type: 'id-roll-init', idKey: first.key, idCert: first.cert })), 'ca-id-roll-none 409', 'the current identity is no new one')
  const a = await identity()
  await run({ type: 'id-roll-init', idKey: a.key, idCert: a.cert })
  const before = structuredClone(s)
  const b = await identity()
  t.equal(await label(run({ type: 'id-roll-init', idKey: b.key, idCert: b.cert })), 'ca-id-roll-pending 409', 'a second roll while one is pending')
  t.same(s, before, 'nothing changed')
})

t.test("parent side: a child's updated id cert keeps the previous one until the child signs with the new one", async (t) => {
  const { s, run, identity } = await setup()
  const old = await identity()
  const fresh = await identity()
  s.children.kid = { handle: 'kid', idCert: old.cert, resources: { asn: 'AS65000', ipv4: '', ipv6: '' }, issued: {} }
  t.same(childIdCerts(s.children.kid!), [old.cert], 'one identity')
  t.same(await run({ type: 'child-id-confirm', handle: 'kid' }), [], 'nothing to retire')

  const shared = structuredClone(s)
  const events = await run({ type: 'child-update', handle: 'kid', idCert: fresh.cert })
  t.same(events, [{ type: 'child-id-cert-updated', handle: 'kid', idCert: fresh.cert }])
  t.same(childIdCerts(s.children.kid!), [fresh.cert, old.cert], 'the new one first, the previous one still accepted')
  const copy = copyForEvents(shared, events)
  for (const e of events) applyEvent(copy, e)
  t.equal(shared.children.kid!.prevIdCert, undefined, 'copyForEvents leaves the state it copied alone')

  const retired = await run({ type: 'child-id-confirm', handle: 'kid' })
  t.same(retired, [{ type: 'child-previous-id-cert-retired', handle: 'kid' }])
  t.same(childIdCerts(s.children.kid!), [fresh.cert], 'only the new one')
  t.equal(await label(run({ type: 'child-id-confirm', handle: 'nobody' })), 'ca-child-unknown 404')
  t.equal(commandSummary({ type: 'child-id-confirm', handle: 'kid' }).args.child, 'kid')
})

/** Suspension of children (ca/suspension.ts): who is inactive, idempotent suspend and unsuspend, the history text. */
import t from 'tap'
import { commandSummary } from '../../../src/ca/commands.js'
import { applyEvent, eventSummary } from '../../../src/ca/events.js'
import type { CaState, ChildInfo } from '../../../src/ca/state.js'
import { inactiveChildren, processChildSuspend } from '../../../src/ca/suspension.js'

const cert = { keyId: 'K', className: '0', der: '', uri: 'rsync://x/ca1/0/K.cer', serial: '1', notAfter: '2027-01-01T00:00:00Z', resources: { asn: '', ipv4: '10.0.0.0/8', ipv6: '' }, signedBy: 'P' }
const child = (handle: string, issued = true): ChildInfo => ({ handle, idCert: '', resources: { asn: '', ipv4: '10.0.0.0/8', ipv6: '' }, issued: issued ? { K: cert } : {} })

function state(): CaState {
  return { handle: 'ca1', idKey: '', idCert: '', repo: undefined, parents: {}, classes: {}, nextClass: 0, routes: {}, children: { a: child('a'), b: child('b'), c: child('c', false), d: child('d') } }
}

t.test('inactive: certified, not suspended, last heard of at least the threshold ago; never heard of: not yet', async (t) => {
  const s = state()
  const now = new Date('2026-06-01T12:00:00Z')
  const last: Record<string, string> = { a: '2026-06-01T11:00:00Z', b: '2026-06-01T11:59:00Z', c: '2026-01-01T00:00:00Z' }
  t.same(inactiveChildren(s, (c) => last[c], now, 3600), ['a'], 'b is recent, c holds no certificate, d was never heard of')
  for (const e of processChildSuspend(s, { handle: 'a', inactive: true })) applyEvent(s, e)
  t.equal(s.children.a!.suspended, true)
  t.same(inactiveChildren(s, (c) => last[c], now, 3600), [], 'a suspended child is not suspended again')
  t.same(processChildSuspend(s, { handle: 'a', inactive: false }), [], 'suspending a suspended child changes nothing')
  applyEvent(s, { type: 'child-unsuspended', handle: 'a' })
  t.equal(s.children.a!.suspended, undefined)
})

t.test('history: Krill labels', async (t) => {
  t.same(commandSummary({ type: 'child-suspend', handle: 'a', inactive: true }), { label: 'cmd-ca-child-suspend-inactive', msg: "Suspend inactive child 'a'", args: { child: 'a' } })
  t.equal(commandSummary({ type: 'child-suspend', handle: 'a', inactive: false }).label, 'cmd-ca-child-suspend')
  t.equal(commandSummary({ type: 'child-unsuspend', handle: 'a' }).label, 'cmd-ca-child-unsuspend')
  t.equal(eventSummary({ type: 'child-suspended', handle: 'a', inactive: true }), "suspended child 'a' (inactive): its certificates are withdrawn")
})

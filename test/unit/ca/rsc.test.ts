/**
 * Signed checklist requests against a CA (ca/rsc.ts): who signs (the current certified key holding the resources),
 * the default resources, the validity capped by the CA certificate, each refusal with its label, and the history
 * entry (file names and resources, never the digests) that leaves the state alone.
 */
import t, { type Test } from 'tap'
import { initialState, processCommand } from '../../../src/ca/cert-auth.js'
import { commandSummary } from '../../../src/ca/commands.js'
import type { CaContext } from '../../../src/ca/context.js'
import { applyEvent, eventSummary } from '../../../src/ca/events.js'
import { planRsc, processRscSign, type RscSignCommand } from '../../../src/ca/rsc.js'
import type { CaState, ResourceClass } from '../../../src/ca/state.js'
import { AppError } from '../../../src/errors.js'

const NOW = new Date('2026-06-01T12:00:00Z')
const SHA = 'ab'.repeat(32)

function klass(name: string, keyId: string, resources: { asn?: string; ipv4?: string; ipv6?: string }, notAfter = '2027-01-01T00:00:00.000Z'): ResourceClass {
  const r = { asn: resources.asn ?? '', ipv4: resources.ipv4 ?? '', ipv6: resources.ipv6 ?? '' }
  return { name, parent: 'p', parentClass: name, entitled: r, notAfter, current: { keyId, cert: { der: '', uri: `rsync://localhost/repo/p/${name}/ca1.cer`, resources: r, notBefore: '2026-01-01T00:00:00.000Z', notAfter } } }
}

function ca(classes: ResourceClass[], repo = true): CaState {
  const s = initialState('ca1', 'ID', 'AA==')
  if (repo) s.repo = { embedded: true, publisherHandle: 'ca1', serviceUri: 'https://localhost/rfc8181/ca1/', siaBase: 'rsync://localhost/repo/ca1/', rrdpNotificationUri: '', serverIdCert: '' }
  for (const rc of classes) s.classes[rc.name] = rc
  return s
}

function refused(t: Test, fn: () => unknown, label: string, args: Record<string, string | RegExp> = {}): void {
  try {
    fn()
    t.fail(`expected ${label}`)
  } catch (e) {
    t.ok(e instanceof AppError, label)
    t.equal((e as AppError).label, label)
    t.match((e as AppError).args, args)
    t.equal((e as AppError).status, 400)
  }
}

const one = ca([klass('0', 'K0', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })])
const files = [{ name: 'a.txt', sha256: SHA }, { name: 'b.tar.gz', sha256: SHA.toUpperCase() }]

t.test('default: all the one current key holds, valid a year from five minutes back', async (t) => {
  const p = planRsc(one, { files }, NOW)
  t.equal(p.className, '0')
  t.equal(p.keyId, 'K0')
  t.same(p.resources.toJSON(), { asn: 'AS65000-AS65010', ipv4: '10.0.0.0/8', ipv6: '' })
  t.equal(p.notBefore.toISOString(), '2026-06-01T11:55:00.000Z')
  t.equal(p.notAfter.toISOString(), '2027-01-01T00:00:00.000Z', 'capped by the CA certificate')
  t.equal(planRsc(one, { files, validityDays: 30 }, NOW).notAfter.toISOString(), '2026-07-01T12:00:00.000Z')
})

t.test('resources asked for: the key whose certificate holds them; families left out are empty', async (t) => {
  const two = ca([klass('0', 'K0', { asn: 'AS65000' }), klass('1', 'K1', { ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })])
  const p = planRsc(two, { files, resources: { ipv6: '2001:db8:1::/48' } }, NOW)
  t.equal(p.keyId, 'K1')
  t.same(p.resources.toJSON(), { asn: '', ipv4: '', ipv6: '2001:db8:1::/48' })
  t.equal(planRsc(two, { files, resources: { asn: 'AS65000' } }, NOW).keyId, 'K0')
  refused(t, () => planRsc(two, { files }, NOW), 'ca-rsc-resources-split', { ca: 'ca1' })
  refused(t, () => planRsc(two, { files, resources: { asn: 'AS65000', ipv4: '10.0.0.0/24' } }, NOW), 'ca-rsc-resources-split')
  refused(t, () => planRsc(two, { files, resources: { asn: 'AS65000-65001' } }, NOW), 'ca-rsc-not-entitled', { resources: 'asn: AS65001' })
})

t.test('refusals: files, names, digests, resources, no certified key', async (t) => {
  refused(t, () => planRsc(one, { files: [] }, NOW), 'ca-rsc-checklist-empty', { ca: 'ca1' })
  for (const name of ['a b', 'dir/a', '', '.', '..', 'é.txt', 'x'.repeat(256)]) refused(t, () => planRsc(one, { files: [{ name, sha256: SHA }] }, NOW), 'ca-rsc-file-invalid', { file: name })
  refused(t, () => planRsc(one, { files: [{ name: 'a', sha256: SHA.slice(2) }] }, NOW), 'ca-rsc-file-invalid', { reason: /64 hex/ })
  refused(t, () => planRsc(one, { files: [{ name: 'a', sha256: 'zz'.repeat(32) }] }, NOW), 'ca-rsc-file-invalid')
  refused(t, () => planRsc(one, { files: [{ name: 'a', sha256: SHA }, { name: 'a', sha256: SHA }] }, NOW), 'ca-rsc-file-invalid', { reason: 'listed more than once' })
  refused(t, () => planRsc(one, { files, resources: { asn: 'AS70000' } }, NOW), 'ca-rsc-not-entitled', { resources: 'asn: AS70000' })
  refused(t, () => planRsc(one, { files, resources: { ipv4: '10.0.0.1/8' } }, NOW), 'ca-rsc-resources-invalid')
  refused(t, () => planRsc(one, { files, resources: { asn: '', ipv4: '' } }, NOW), 'ca-rsc-resources-invalid', { reason: /no resources/ })
  refused(t, () => planRsc(ca([]), { files }, NOW), 'ca-rsc-no-certificate', { ca: 'ca1' })
  refused(t, () => planRsc(ca([klass('0', 'K0', { asn: 'AS65000' })], false), { files }, NOW), 'ca-rsc-no-certificate')
  refused(t, () => planRsc(ca([klass('0', 'K0', { asn: 'AS65000' }, '2026-06-01T00:00:00.000Z')]), { files }, NOW), 'ca-rsc-no-certificate', {})
  const pending = ca([{ ...klass('0', 'K0', { asn: 'AS65000' }), current: { keyId: 'K0' } }])
  refused(t, () => planRsc(pending, { files }, NOW), 'ca-rsc-no-certificate')
})

t.test('the history entry: names and resources, no digests; the state is unchanged', async (t) => {
  const cmd: RscSignCommand = { type: 'rsc-sign', files: ['a.txt', 'b.tar.gz'], resources: { asn: 'AS65000', ipv4: '', ipv6: '' }, className: '0', keyId: 'K0', serial: '42', notAfter: '2027-01-01T00:00:00.000Z' }
  t.same(commandSummary(cmd), { label: 'cmd-ca-rsc-sign', msg: "Sign a checklist of 2 files (a.txt, b.tar.gz) with resources 'asn: AS65000'", args: { files: '2', resources: 'asn: AS65000' } })
  const ctx = {} as CaContext
  const events = await processCommand(one, cmd, ctx)
  t.same(events, [{ type: 'rsc-signed', files: ['a.txt', 'b.tar.gz'], resources: { asn: 'AS65000', ipv4: '', ipv6: '' }, keyId: 'K0', serial: '42', notAfter: '2027-01-01T00:00:00.000Z' }])
  t.notMatch(JSON.stringify([cmd, events]), new RegExp(SHA, 'i'), 'no digest in the history')
  t.equal(eventSummary(events[0]!), 'signed a checklist of a.txt, b.tar.gz with asn: AS65000 under key K0: EE serial 42, valid until 2027-01-01T00:00:00.000Z')
  const after = structuredClone(one)
  applyEvent(after, events[0]!)
  t.same(after, one, 'applying it changes nothing')
  refused(t, () => processRscSign(one, { ...cmd, keyId: 'OLD' }), 'ca-rsc-no-certificate')
  refused(t, () => processRscSign(one, { ...cmd, resources: { asn: 'AS1', ipv4: '', ipv6: '' } }), 'ca-rsc-not-entitled')
  const many = { ...cmd, files: Array.from({ length: 12 }, (_, i) => `f${i}`) }
  t.match(commandSummary(many).msg, /^Sign a checklist of 12 files \(f0, f1, .*, f9 and 2 more\)/)
})

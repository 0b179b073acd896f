/** The renewal rule (ca/renewal.ts): when a CA's objects next need work, pinned with exact times. */
import t from 'tap'
import { initialState } from '../../../src/ca/cert-auth.js'
import type { CaKeyObjects, StoredCaObject } from '../../../src/ca/object-model.js'
import { certificateExpired, nextRenewal } from '../../../src/ca/renewal.js'
import type { CaState, IncomingCert } from '../../../src/ca/state.js'

const H = 3_600_000
const NOW = new Date('2026-06-01T00:00:00Z')
const T = { mftReissueSeconds: 16 * 3600, roaReissueBeforeSeconds: 4 * 7 * 86400 }
const at = (ms: number) => new Date(NOW.getTime() + ms).toISOString()

const cert = (notAfter: string): IncomingCert => ({ der: '', uri: '', resources: { asn: '', ipv4: '', ipv6: '' }, notBefore: at(-H), notAfter })
const state = (keys: Record<string, string>): CaState => ({
  ...initialState('ca1', 'K', ''),
  classes: Object.fromEntries(Object.entries(keys).map(([keyId, notAfter], i) => [String(i), { name: String(i), parent: 'p', parentClass: 'c', entitled: { asn: '', ipv4: '', ipv6: '' }, notAfter, current: { keyId, cert: cert(notAfter) } }])),
})
const roa = (notAfter: string): StoredCaObject => ({ name: 'x.roa', kind: 'roa', der: new Uint8Array(), hash: '', notAfter, meta: { serial: '1' } })
const objects = (keyId: string, thisUpdate: string, roas: StoredCaObject[] = []): CaKeyObjects => ({
  keyId, objects: roas, state: { className: '0', dir: '', revision: '1', thisUpdate, nextUpdate: at(24 * H), revocations: [], roaMode: 'simple' },
})

t.test('a certificate has expired at and after its notAfter', async (t) => {
  t.equal(certificateExpired(cert(NOW.toISOString()), NOW), true)
  t.equal(certificateExpired(cert(at(1)), NOW), false)
})

t.test('the manifest is due mftReissueSeconds after its thisUpdate', async (t) => {
  const s = state({ K1: at(365 * 24 * H) })
  t.equal(nextRenewal(s, [objects('K1', at(-10 * H))], NOW, T), NOW.getTime() + 6 * H)
})

t.test('a ROA is due roaReissueBeforeSeconds before it expires, when that comes first', async (t) => {
  const s = state({ K1: at(365 * 24 * H) })
  t.equal(nextRenewal(s, [objects('K1', at(0), [roa(at(28 * 24 * H + 2 * H))])], NOW, T), NOW.getTime() + 2 * H)
})

t.test('overdue work is due in a second, never in the past', async (t) => {
  const s = state({ K1: at(365 * 24 * H) })
  t.equal(nextRenewal(s, [objects('K1', at(-100 * H))], NOW, T), NOW.getTime() + 1000)
})

t.test('keys whose certificate expired, and a CA without objects, wait one manifest interval', async (t) => {
  const expired = state({ K1: at(-H) })
  t.equal(nextRenewal(expired, [objects('K1', at(-100 * H))], NOW, T), NOW.getTime() + 16 * H, 'the expired key is skipped')
  t.equal(nextRenewal(state({}), [], NOW, T), NOW.getTime() + 16 * H)
})

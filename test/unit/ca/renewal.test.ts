/** The renewal rule (ca/renewal.ts): when a CA's objects next need work, pinned with exact times. */
import t from 'tap'
import { initialState } from '../../../src/ca/cert-auth.js'
import type { CaKeyObjects, StoredCaObject } from '../../../src/ca/object-model.js'
import { certificateExpired, manifestDueAt, manifestJitterMs, nextRenewal } from '../../../src/ca/renewal.js'
import type { CaState, IncomingCert } from '../../../src/ca/state.js'
import { FakeClock } from '../../helpers/fake-clock.js'

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

// Issue 28: 10,000 CAs created in one hour must not all renew in the same hour every interval.
const SPREAD = { ...T, mftReissueSeconds: 8 * 3600, mftReissueJitterSeconds: 2 * 3600 }
const keyId = (i: number) => `K${i.toString(16).padStart(8, '0')}`

t.test('without jitter a manifest is due exactly mftReissueSeconds after thisUpdate; the jitter never exceeds a quarter', async (t) => {
  const m = objects('K1', at(0))
  t.equal(manifestDueAt(m, { mftReissueSeconds: 8 * 3600 }), NOW.getTime() + 8 * H)
  t.equal(manifestJitterMs({ mftReissueSeconds: 8 * 3600, mftReissueJitterSeconds: 7200 }), 2 * H)
  t.equal(manifestJitterMs({ mftReissueSeconds: 10, mftReissueJitterSeconds: 7200 }), 2500, 'a test config with 10 s re-issues keeps 7.5–10 s')
  t.equal(manifestDueAt(m, SPREAD), manifestDueAt(objects('K1', at(0)), SPREAD), 'the same manifest is always due at the same time')
})

t.test('1,000 CAs created at once: their first re-issues spread evenly over the jitter window', async (t) => {
  const n = 1000
  const dues = Array.from({ length: n }, (_, i) => nextRenewal(state({ [keyId(i)]: at(365 * 24 * H) }), [objects(keyId(i), at(0))], NOW, SPREAD))
  t.ok(dues.every((d) => d > NOW.getTime() + 6 * H && d <= NOW.getTime() + 8 * H), 'every one within [8 h − 2 h, 8 h] after thisUpdate')
  const buckets = new Array<number>(8).fill(0) // 15-minute buckets over the 2 hours
  for (const d of dues) buckets[Math.min(7, Math.floor((d - (NOW.getTime() + 6 * H)) / (H / 4)))]!++
  t.ok(buckets.every((b) => b > n / 8 / 2 && b < (n / 8) * 1.5), `each quarter hour holds about an eighth: ${buckets.join(' ')}`)
})

t.test('renewing on the fake clock, CAs created in the same minute drift apart over the interval within days', async (t) => {
  const n = 400
  const clock = new FakeClock(NOW.getTime())
  // Each key re-issues when due (thisUpdate five minutes back, as objects.ts signs it), for three days.
  const keys = Array.from({ length: n }, (_, i) => objects(keyId(i), at(-5 * 60_000)))
  const due = keys.map((k) => manifestDueAt(k, SPREAD))
  const end = NOW.getTime() + 72 * H
  for (;;) {
    const next = Math.min(...due)
    if (next > end) break
    await clock.advance(next - clock.now())
    for (let i = 0; i < n; i++) {
      if (due[i]! > clock.now()) continue
      const k = keys[i]!
      keys[i] = { ...k, state: { ...k.state, revision: String(Number(k.state.revision) + 1), thisUpdate: new Date(clock.now() - 5 * 60_000).toISOString() } }
      due[i] = manifestDueAt(keys[i]!, SPREAD)
    }
  }
  // Over the next 8 hours (one interval), renewals per hour: none holds more than twice the even share.
  const perHour = new Array<number>(8).fill(0)
  for (const d of due) perHour[Math.floor(((d - end) % (8 * H)) / H)]!++
  t.ok(perHour.every((c) => c < (2 * n) / 8), `renewals per hour over one interval: ${perHour.join(' ')}`)
  t.ok(perHour.every((c) => c > 0), 'every hour has some')
})

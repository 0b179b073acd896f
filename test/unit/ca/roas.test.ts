/** ROA configuration: the atomic delta check, comment updates, aggregation hysteresis, ROA grouping per class. */
import t from 'tap'
import { AppError } from '../../../src/errors.js'
import { applyRoaChanges, checkRoaDelta, checkRoaDeltaInput, nextRoaMode, planRoas, roaConfigPayload, type RoaConfig } from '../../../src/ca/roas.js'
import { compareRoaPayloads, formatRoaPayload, parseRoaDelta, parseRoaPayload, roaPayloadKey, type RoaPayload } from '../../../src/resources/roa-payload.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'

const held = ResourceSet.parse({ asn: 'AS64496-64511', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
const now = new Date('2026-01-01T00:00:00Z')
const names = { simple: (p: RoaPayload) => `${formatRoaPayload(p)}.roa`, aggregate: (asn: number) => `AS${asn}.roa` }

/** The authorisations of a configuration in the spec's text form, sorted. */
function roaConfigLines(routes: readonly RoaConfig[]): string[] {
  return routes.map(roaConfigPayload).sort(compareRoaPayloads).map(formatRoaPayload)
}

function configured(...lines: string[]): Record<string, RoaConfig> {
  const routes: Record<string, RoaConfig> = {}
  const delta = parseRoaDelta(lines.map((l) => `A: ${l}`).join('\n'))
  applyRoaChanges(routes, checkRoaDelta(routes, delta.added, [], held, now))
  return routes
}

t.test('adds and removes; max length is explicit, so /24 equals /24-24', async (t) => {
  const routes = configured('10.0.0.0/24 => 64496 # office', '2001:db8::/48-56 => 64497')
  t.same(roaConfigLines(Object.values(routes)), ['10.0.0.0/24 => 64496', '2001:db8::/48-56 => 64497'])
  t.equal(routes[roaPayloadKey(parseRoaPayload('10.0.0.0/24-24 => 64496'))].comment, 'office')
  const changes = checkRoaDelta(routes, [], [parseRoaPayload('10.0.0.0/24-24 => 64496')], held, now)
  applyRoaChanges(routes, changes)
  t.same(roaConfigLines(Object.values(routes)), ['2001:db8::/48-56 => 64497'])
})

t.test('every problem is reported at once and nothing changes', async (t) => {
  const routes = configured('10.0.0.0/24 => 64496')
  const before = structuredClone(routes)
  const delta = parseRoaDelta(['A: 10.0.0.0/24 => 64496', 'A: 192.168.0.0/24 => 64496', 'A: 10.1.0.0/16-12 => 64496', 'A: 10.2.0.0/16-33 => 64496', 'A: 10.3.0.0/16 => 1', 'A: 10.3.0.0/16 => 1', 'R: 10.9.0.0/24 => 64496'].join('\n'))
  try {
    checkRoaDelta(routes, delta.added, delta.removed, held, now)
    t.fail('should throw')
  } catch (e) {
    t.ok(e instanceof AppError)
    const err = e as AppError
    t.equal(err.label, 'ca-roa-delta-error')
    const de = err.body().delta_error!
    // Krill's objects (krill:test-resources/errors/ca-roa-delta-error.json): max_length only when not the prefix length.
    t.same(de.unknowns, [{ asn: 64496, prefix: '10.9.0.0/24' }])
    t.same(de.duplicates, [{ asn: 64496, prefix: '10.0.0.0/24' }, { asn: 1, prefix: '10.3.0.0/16' }])
    t.same(de.notheld, [{ asn: 64496, prefix: '192.168.0.0/24' }])
    t.equal(de.invalid_length!.length, 2)
    t.match(de.invalid_length![0], { asn: 64496, prefix: '10.1.0.0/16', max_length: 12, reason: /shorter/ })
    t.match(de.invalid_length![1], { asn: 64496, prefix: '10.2.0.0/16', max_length: 33, reason: /longer than 32/ })
    // Krill's message: a heading per problem, each ROA indented.
    t.match(err.message, /^ROA delta rejected:\n\nCannot remove the following unknown ROAs:\n {2}10\.9\.0\.0\/24 => 64496\n/)
    t.match(err.message, /\nCannot add the following duplicate ROAs:\n {2}10\.0\.0\.0\/24 => 64496\n {2}10\.3\.0\.0\/16 => 1\n/)
  }
  t.same(routes, before)
})

t.test('re-adding with another comment updates the comment; remove then add in one delta is fine', async (t) => {
  const routes = configured('10.0.0.0/24 => 64496 # one')
  applyRoaChanges(routes, checkRoaDelta(routes, parseRoaDelta('A: 10.0.0.0/24 => 64496 # two').added, [], held, now))
  t.equal(Object.values(routes)[0].comment, 'two')
  const d = parseRoaDelta('R: 10.0.0.0/24 => 64496\nA: 10.0.0.0/24 => 64496')
  applyRoaChanges(routes, checkRoaDelta(routes, d.added, d.removed, held, now))
  t.equal(Object.keys(routes).length, 1)
})

t.test('aggregation mode with hysteresis', async (t) => {
  const th = { aggregate: 100, deaggregate: 90 }
  t.equal(nextRoaMode('simple', 100, th), 'simple')
  t.equal(nextRoaMode('simple', 101, th), 'aggregate')
  t.equal(nextRoaMode('aggregate', 95, th), 'aggregate')
  t.equal(nextRoaMode('aggregate', 89, th), 'simple')
  t.equal(nextRoaMode('aggregate', 0, th), 'aggregate', 'no change at 0')
})

t.test('ROAs are grouped per authorisation or per ASN, only for held prefixes', async (t) => {
  const routes = Object.values(configured('10.0.0.0/24 => 64496', '10.0.1.0/24-26 => 64496', '2001:db8::/48 => 64497'))
  const small = ResourceSet.parse({ ipv4: '10.0.0.0/24', ipv6: '2001:db8::/32' })
  const simple = planRoas(routes, small, 'simple', names)
  t.same(simple.map((r) => r.payloads.length), [1, 1])
  t.same(simple.map((r) => r.asn), [64496, 64497], '10.0.1.0/24 is not held: no ROA for it')
  const agg = planRoas(routes, held, 'aggregate', names)
  t.same(agg.map((r) => [r.name, r.payloads.length]), [['AS64496.roa', 2], ['AS64497.roa', 1]])
})

t.test('checkRoaDeltaInput (the API and command form): parsed and checked in slices, as checkRoaDelta checks', async (t) => {
  const routes = configured('10.0.0.0/24 => 64496 # office')
  const added = Array.from({ length: 5_000 }, (_, i) => ({ asn: 64496 + (i % 3), prefix: `10.${1 + (i >> 8)}.${i & 255}.0/24`, ...(i % 2 ? { max_length: 25 } : {}), ...(i % 4 === 0 ? { comment: `c${i}` } : {}) }))
  let pauses = 0
  const pause = async () => void pauses++
  const changes = await checkRoaDeltaInput(routes, { added, removed: [{ asn: 64496, prefix: '10.0.0.0/24' }] }, held, now, pause)
  t.ok(pauses >= 4, `paused between slices (${pauses} times)`)
  const same = checkRoaDelta(routes, added.map((r) => ({ payload: parseRoaPayload(`${r.prefix}-${r.max_length ?? 24} => ${r.asn}`), ...(r.comment ? { comment: r.comment } : {}) })), [parseRoaPayload('10.0.0.0/24 => 64496')], held, now)
  t.same(changes, same, 'the same changes as checkRoaDelta')
  const after = structuredClone(routes)
  applyRoaChanges(after, changes)
  t.equal(Object.keys(after).length, 5_000, 'applied: 5,000 added, 1 removed')
  t.same(Object.keys(after).sort(), changes.added.map((r) => roaPayloadKey(parseRoaPayload(`${r.prefix}-${r.maxLength} => ${r.asn}`))).sort(), 'keyed by the canonical payload key')
  const label = (p: Promise<unknown>) => p.then(() => 'no error', (e: unknown) => (e instanceof AppError ? e.label : String(e)))
  t.equal(await label(checkRoaDeltaInput(routes, { added: [{ asn: 1, prefix: '10.0.0.0/33' }], removed: [] }, held, now, pause)), 'ca-roa-delta-syntax', 'a line that does not parse')
  t.equal(await label(checkRoaDeltaInput(routes, { added: [], removed: [{ asn: 1, prefix: '10.9.0.0/24' }] }, held, now, pause)), 'ca-roa-delta-error', 'an unknown removal')
})

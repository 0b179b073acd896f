/** api/structure.ts: Krill's import Structure read as Krill's files write it, and each refusal of checkStructure. */
import t from 'tap'
import { checkStructure, IMPORT_CAS_MAX } from '../../../src/api/structure.js'

const R = (asn: string, ipv4 = '', ipv6 = '') => ({ asn, ipv4, ipv6 })
const parent = { handle: 'parent', parent: { handle: 'ta', resources: R('AS65000-AS65535', '10.0.0.0/8, 192.168.0.0/16', 'fc00::/7') } }
const ok = (cas: unknown[], extra: Record<string, unknown> = {}) => checkStructure({ cas, ...extra })
const problemsOf = (cas: unknown[], extra: Record<string, unknown> = {}) => ok(cas, extra).problems

t.test("Krill's structure.json shape: one parent or several, ROAs normalised, ASPAs (svcd's addition)", async (t) => {
  const r = checkStructure({
    ta: { ta_aia: 'rsync://example.krill.cloud/ta/ta.cer', ta_uri: 'https://example.krill.cloud/ta/ta.cer' },
    publication_server: { rrdp_base_uri: 'https://example.krill.cloud/repo/', rsync_jail: 'rsync://example.krill.cloud/repo/' },
    cas: [
      parent,
      { handle: 'child1', parent: { handle: 'parent', resources: R('AS65000', '192.168.0.0/16', 'fc00::/56') }, roas: [{ asn: 65000, prefix: '192.168.0.0/23', max_length: 24, comment: 'my precious route' }, { asn: 65001, prefix: '192.168.2.0/23', max_length: 23, comment: null }, { asn: 65000, prefix: 'fc00::/56' }], aspas: [{ customer: 65000, providers: [65002, 65001] }] },
      { handle: 'child2', parent: { handle: 'parent', resources: R('AS65001', '10.0.0.0/16') } },
      { handle: 'grandchild', parent: [{ handle: 'child1', resources: R('AS65000', '192.168.0.0/24') }, { handle: 'child2', resources: R('AS65001', '10.0.0.0/24') }], roas: [{ asn: 65000, prefix: '192.168.0.0/24' }] },
    ],
  })
  t.same(r.problems, [])
  const s = r.structure!
  t.same(s.ta, { aia: 'rsync://example.krill.cloud/ta/ta.cer', uri: 'https://example.krill.cloud/ta/ta.cer', keyPem: false })
  t.same(s.publicationServer, { rrdpBaseUri: 'https://example.krill.cloud/repo/', rsyncJail: 'rsync://example.krill.cloud/repo/' })
  t.same(s.cas.map((c) => c.handle), ['parent', 'child1', 'child2', 'grandchild'])
  t.same(s.cas[1]!.roas, [
    { asn: 65000, prefix: '192.168.0.0/23', max_length: 24, comment: 'my precious route' },
    { asn: 65001, prefix: '192.168.2.0/23', max_length: 23 },
    { asn: 65000, prefix: 'fc00::/56', max_length: 56 },
  ])
  t.same(s.cas[1]!.aspas, [{ customer: 65000, providers: [65001, 65002] }])
  t.same(s.cas[3]!.parents.map((p) => p.handle), ['child1', 'child2'])
  t.same(s.cas[3]!.resources, { asn: 'AS65000-AS65001', ipv4: '10.0.0.0/24, 192.168.0.0/24', ipv6: '' })
})

t.test("Krill's older files: top-level ta_aia/ta_uri/publication_server_uris, and \"parent\": \"<handle>\" with resources", async (t) => {
  const r = checkStructure({
    ta_aia: 'rsync://example.krill.cloud/ta/ta.cer', ta_uri: 'https://example.krill.cloud/ta/ta.cer',
    publication_server_uris: { rrdp_base_uri: 'https://example.krill.cloud/repo/', rsync_jail: 'rsync://example.krill.cloud/repo/' },
    cas: [{ handle: 'parent', parent: 'ta', resources: R('AS65000-AS65535', '10.0.0.0/8') }, { handle: 'child1', parent: 'parent', resources: R('AS65000', '10.0.0.0/16') }],
  })
  t.same(r.problems, [])
  t.equal(r.structure!.ta!.aia, 'rsync://example.krill.cloud/ta/ta.cer')
  t.same(r.structure!.cas[1]!.parents, [{ handle: 'parent', resources: { asn: 'AS65000', ipv4: '10.0.0.0/16', ipv6: '' } }])
})

t.test('each refusal, named with where it is', async (t) => {
  t.match(checkStructure([]).problems, [/must be a JSON object/])
  t.match(checkStructure({}).problems, [/cas: the structure lists no CAs \(and no "ta"\)/])
  t.match(problemsOf([]), [/no CAs/])
  const taOnly = { ta_aia: 'rsync://x/repo/ta/ta.cer', ta_uri: 'https://x/ta/ta.cer' }
  t.same(checkStructure({ ta: taOnly }).problems, [], "a TA only (Krill's `cas` may be left out)")
  t.same(checkStructure({ ta: taOnly, cas: [] }).problems, [])
  t.match(checkStructure({ cas: {} }).problems, [/cas: must be a list/])
  t.match(checkStructure({ cas: [parent], extra: 1 }).problems, [/structure: unknown field "extra"/])
  t.match(problemsOf([{ handle: 'bad handle', parent: parent.parent }]), [/cas\[0\] 'bad handle': the handle must be/])
  t.match(problemsOf([{ handle: 'TA', parent: parent.parent }]), [/is reserved for the trust anchor/])
  t.match(problemsOf([parent, { ...parent }]), [/cas\[1\] 'parent': the handle is listed twice \(also cas\[0\]\)/])
  t.match(problemsOf([parent, { ...parent, handle: 'PARENT' }]), [/listed twice/], 'handles differ in case only: a duplicate')
  t.match(problemsOf([{ handle: 'a' }]), [/cas\[0\] 'a': the CA needs a parent/])
  t.match(problemsOf([{ handle: 'a', parent: { handle: 'nobody', resources: R('AS1') } }]), [/parent 'nobody' is neither the trust anchor 'ta' nor a CA listed before/])
  t.match(problemsOf([{ handle: 'a', parent: { handle: 'b', resources: R('AS1') } }, { handle: 'b', parent: { handle: 'ta', resources: R('AS1') } }]), [/cas\[0\] 'a': parent 'b' is listed after this CA \(cas\[1\]\); a parent must come before its children/])
  t.match(problemsOf([{ handle: 'a', parent: { handle: 'a', resources: R('AS1') } }]), [/cannot be its own parent/])
  t.match(problemsOf([parent, { handle: 'a', parent: [{ handle: 'parent', resources: R('AS65000') }, { handle: 'parent', resources: R('AS65001') }] }]), [/parent 'parent' is named twice/])
  t.match(problemsOf([parent, { handle: 'a', parent: { handle: 'parent', resources: R('AS1') } }]), [/cas\[1\] 'a': parent 'parent' does not hold asn: AS1/])
  t.match(problemsOf([{ handle: 'a', parent: { handle: 'ta', resources: R('AS1', '10.0.0.0/33') } }]), [/cas\[0\] 'a' parent 'ta': invalid resources: ipv4:/])
  t.match(problemsOf([{ handle: 'a', parent: { handle: 'ta', resources: R('') } }]), [/the resources are empty/])
  t.match(problemsOf([{ handle: 'a', parent: { handle: 'ta', resources: 'AS1' } }]), [/resources must be an object/])
  t.match(problemsOf([{ handle: 'a', parent: { handle: 'ta', resources: { asn: 1 } } }]), [/resources\.asn must be a string/])
  t.match(problemsOf([{ handle: 'a', parent: 'ta', resources: R('AS1'), parents: 'ta' }]), [/give "parent" or "parents", not both/])
})

t.test('ROAs: syntax, max length, outside the resources, twice', async (t) => {
  const ca = (roas: unknown) => [parent, { handle: 'a', parent: { handle: 'parent', resources: R('AS65000', '10.0.0.0/16') }, roas }]
  t.match(problemsOf(ca({})), [/roas must be a list/])
  t.match(problemsOf(ca([{ prefix: '10.0.0.0/24' }])), [/roas\[0\]: needs "asn"/])
  t.match(problemsOf(ca([{ asn: 65000, prefix: '10.0.0.0/24', max_length: 'x' }])), [/max_length must be a whole number/])
  t.match(problemsOf(ca([{ asn: 65000, prefix: '10.0.0.0/24', comment: 3 }])), [/comment must be a string/])
  t.match(problemsOf(ca([{ asn: 65000, prefix: 'ten' }])), [/roas\[0\]: /])
  t.match(problemsOf(ca([{ asn: 65000, prefix: '10.0.0.0/24', max_length: 20 }])), [/max length 20 is shorter than the prefix length 24/])
  t.match(problemsOf(ca([{ asn: 65000, prefix: '10.0.0.0/24', max_length: 33 }])), [/longer than 32/])
  t.match(problemsOf(ca([{ asn: 65000, prefix: '10.1.0.0/16' }])), [/roas\[0\]: 10\.1\.0\.0\/16-16 => 65000 is outside the CA's resources/])
  t.match(problemsOf(ca([{ asn: 65000, prefix: '10.0.0.0/24' }, { asn: 65000, prefix: '10.0.0.0/24', max_length: 24 }])), [/roas\[1\]: 10\.0\.0\.0\/24-24 => 65000 is listed twice/])
  t.same(problemsOf(ca([{ asn: 65001, prefix: '10.0.0.0/24' }])), [], 'the origin AS need not be held (RFC 6482)')
})

t.test('ASPAs: the rules of ca/aspas.ts checkAspa, all reported', async (t) => {
  const ca = (aspas: unknown) => [parent, { handle: 'a', parent: { handle: 'parent', resources: R('AS65000', '10.0.0.0/16') }, aspas }]
  t.match(problemsOf(ca({})), [/aspas must be a list/])
  t.match(problemsOf(ca([{ customer: 65000 }])), [/needs "customer" \(an AS number\) and "providers"/])
  t.match(problemsOf(ca([{ customer: 65000, providers: [] }])), [/needs at least one provider/])
  t.match(problemsOf(ca([{ customer: 65000, providers: [1, 1] }])), [/lists a provider twice/])
  t.match(problemsOf(ca([{ customer: 65000, providers: [65000] }])), [/cannot be its own provider/])
  t.match(problemsOf(ca([{ customer: 65000, providers: [0, 1] }])), [/AS0 must stand alone/])
  t.match(problemsOf(ca([{ customer: 65001, providers: [1] }])), [/customer AS65001 is outside the CA's resources/])
  t.match(problemsOf(ca([{ customer: 65000, providers: [1] }, { customer: 65000, providers: [2] }])), [/customer AS65000 is listed twice/])
  t.same(problemsOf(ca([{ customer: 65000, providers: [0] }])), [])
})

t.test('cycles, the trust anchor and the publication server fields', async (t) => {
  const cycle = problemsOf([{ handle: 'a', parent: { handle: 'c', resources: R('AS1') } }, { handle: 'b', parent: { handle: 'a', resources: R('AS1') } }, { handle: 'c', parent: { handle: 'b', resources: R('AS1') } }])
  t.equal(cycle.filter((p) => p.startsWith('cycle: ')).length, 1, 'one cycle, reported once')
  t.match(cycle.find((p) => p.startsWith('cycle: ')), /'a' → 'c' → 'b' → 'a'/)
  t.match(problemsOf([parent], { ta: 'x' }), [/ta: must be an object/])
  t.match(problemsOf([parent], { ta: { ta_aia: 'https://x/ta.cer', ta_uri: 'rsync://x/ta.cer' } }), [/ta\.ta_aia: must be the rsync URI/, /ta\.ta_uri: must be the https URI/])
  t.match(problemsOf([parent], { ta: { ta_aia: 'rsync://x/ta.cer', ta_uri: 'https://x/ta.cer', ta_mft_nr_override: -1 } }), [/ta_mft_nr_override: must be a whole number/])
  const key = ok([parent], { ta: { ta_aia: 'rsync://x/ta.cer', ta_uri: 'https://x/ta.cer', ta_key_pem: '-----BEGIN PRIVATE KEY-----secret' } })
  t.same(key.problems, [], 'a key is the instance check\'s to refuse')
  t.equal(key.structure!.ta!.keyPem, true)
  t.notMatch(JSON.stringify(key.structure), /secret/, 'the key itself is not kept')
  t.match(problemsOf([parent], { publication_server: { rrdp_base_uri: 'https://x/rrdp', rsync_jail: 'https://x/repo/' } }), [/rrdp_base_uri: must be an https URI ending with '\/'/, /rsync_jail: must be an rsync URI ending with '\/'/])
  t.match(checkStructure({ cas: Array.from({ length: IMPORT_CAS_MAX + 1 }, () => parent) }).problems, [/at most 10000 CAs/])
})

/** RFC 8181 delta planning and the jail rule: every PDU checked in order; any failure means nothing applies. */
import t from 'tap'
import { createHash } from 'node:crypto'
import { planDelta } from '../../../src/pubd/content.js'
import { jailOf, jailProblem } from '../../../src/pubd/publishers.js'

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const jail = jailOf('rsync://localhost:3873/repo/', 'pub1')
const bytes = (s: string) => new TextEncoder().encode(s)

t.test('the jail is exact: no escapes, no case tricks, no dot segments', async (t) => {
  t.equal(jail, 'rsync://localhost:3873/repo/pub1/')
  t.equal(jailProblem(jail + 'a.cer', jail), undefined)
  t.equal(jailProblem(jail + '0/ABCDEF.mft', jail), undefined)
  const bad = [
    'rsync://localhost:3873/repo/pub2/a.cer',
    'rsync://localhost:3873/repo/pub1',
    jail,
    jail + '../pub2/a.cer',
    jail + './a.cer',
    jail + 'x/../../pub2/a.cer',
    jail + '%2e%2e/pub2/a.cer',
    jail + 'a%2Fb.cer',
    jail + '.hidden',
    jail + 'a//b.cer',
    jail + 'dir/',
    jail + 'a\\b.cer',
    jail + 'a b.cer',
    jail + 'a\nb.cer',
    'RSYNC://localhost:3873/repo/pub1/a.cer',
    'rsync://LOCALHOST:3873/repo/pub1/a.cer',
    'rsync://localhost:3873/repo/PUB1/a.cer',
    'rsync://localhost:3873/repo/pub1x/a.cer',
    'rsync://localhost:3873/repo/pub10/a.cer',
  ]
  for (const uri of bad) t.ok(jailProblem(uri, jail), JSON.stringify(uri))
})

t.test('publish new, replace with hash, withdraw with hash', async (t) => {
  const state = new Map<string, string>([[jail + 'old.cer', sha(bytes('old'))]])
  const plan = planDelta(
    [
      { type: 'publish', uri: jail + 'new.cer', content: bytes('new') },
      { type: 'publish', uri: jail + 'old.cer', hash: sha(bytes('old')).toUpperCase(), content: bytes('old2') },
      { type: 'withdraw', uri: jail + 'new.cer', hash: sha(bytes('new')) },
    ],
    jail,
    (u) => state.get(u),
    sha,
  )
  t.ok(plan.ok)
  if (!plan.ok) return
  t.same(plan.changes.map((c) => [c.type, c.uri.slice(jail.length), c.previous ?? null]), [
    ['publish', 'new.cer', null],
    ['publish', 'old.cer', sha(bytes('old'))],
    ['withdraw', 'new.cer', sha(bytes('new'))],
  ])
})

t.test('every failing PDU is reported with its RFC 8181 code, and nothing applies', async (t) => {
  const state = new Map<string, string>([[jail + 'a.cer', sha(bytes('a'))]])
  const plan = planDelta(
    [
      { type: 'publish', uri: jail + 'ok.cer', content: bytes('ok') },
      { type: 'publish', uri: jail + 'a.cer', content: bytes('again'), tag: 't1' },
      { type: 'publish', uri: jail + 'missing.cer', hash: sha(bytes('x')), content: bytes('x') },
      { type: 'publish', uri: jail + 'a.cer', hash: sha(bytes('wrong')), content: bytes('x') },
      { type: 'withdraw', uri: jail + 'missing.cer', hash: sha(bytes('x')) },
      { type: 'withdraw', uri: jail + 'a.cer', hash: sha(bytes('wrong')) },
      { type: 'publish', uri: 'rsync://localhost:3873/repo/other/x.cer', content: bytes('x') },
    ],
    jail,
    (u) => state.get(u),
    sha,
  )
  t.notOk(plan.ok)
  if (plan.ok) return
  t.same(plan.errors.map((e) => e.code), ['object_already_present', 'no_object_present', 'no_object_matching_hash', 'no_object_present', 'no_object_matching_hash', 'permission_failure'])
  t.equal(plan.errors[0].tag, 't1')
  t.match(plan.errors[0].text, /RFC 8181 §3\.2/)
  t.equal(plan.errors[5].failedPdu?.uri, 'rsync://localhost:3873/repo/other/x.cer')
})

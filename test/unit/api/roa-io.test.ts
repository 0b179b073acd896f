/**
 * The ROA/ASPA file codecs (api/csv.ts, api/roa-io.ts; issue 27): RFC 4180 quoting round trips (commas, quotes, line
 * breaks in comments), the formula guard on export and its undoing on import, BOM and CRLF accepted, the header line
 * optional and ordering the columns, JSON in Krill's shapes, and every refusal with the line it names.
 */
import t from 'tap'
import { csvField, formulaSafe, formulaText, jsonArrayLines, readCsv } from '../../../src/api/csv.js'
import {
  aspaCsvHeader, aspaCsvLine, aspaImportSteps, checkPlanImport, checkPlanRollback, csvPieces, exportFileName, IMPORT_PROBLEMS_MAX, roaCsvHeader, roaCsvLine, roaImportSteps, type RoaExportJson,
} from '../../../src/api/roa-io.js'
import { AppError } from '../../../src/errors.js'
import { runSync } from '../../../src/util/slices.js'

const roas = (format: 'csv' | 'json', text: string) => runSync(roaImportSteps(format, text))
const aspas = (format: 'csv' | 'json', text: string) => runSync(aspaImportSteps(format, text))

/** The problems of a refused file, as `line N: reason` lines. */
function refusal(f: () => unknown): string[] {
  try {
    f()
  } catch (e) {
    if (e instanceof AppError && e.label === 'ca-import-syntax') return e.args.problems!.split('\n')
    throw e
  }
  throw new Error('not refused')
}

const SAMPLE: RoaExportJson[] = [
  { asn: 65000, prefix: '10.0.0.0/16', max_length: 24, comment: 'core, east' },
  { asn: 65000, prefix: '10.1.0.0/24', max_length: 24, comment: 'says "hi"\nsecond line' },
  { asn: 0, prefix: '2001:db8::/32', max_length: 48, comment: null },
  { asn: 4294967295, prefix: '192.0.2.0/24', max_length: 24, comment: ' edge spaces ' },
  { asn: 65001, prefix: '198.51.100.0/24', max_length: 24, comment: '=HYPERLINK("http://x")' },
  { asn: 65001, prefix: '203.0.113.0/24', max_length: 24, comment: "'already quoted" },
]

t.test('RFC 4180 writing: quoted only when needed, quotes doubled, CRLF', async (t) => {
  t.equal(csvField('plain'), 'plain')
  t.equal(csvField('a,b'), '"a,b"')
  t.equal(csvField('say "x"'), '"say ""x"""')
  t.equal(csvField('two\nlines'), '"two\nlines"')
  t.equal(csvField(' lead'), '" lead"')
  t.equal(roaCsvHeader(), 'asn,prefix,max_length,comment\r\n')
  t.equal(roaCsvLine(SAMPLE[0]!), 'AS65000,10.0.0.0/16,24,"core, east"\r\n')
  t.equal(roaCsvLine(SAMPLE[2]!), 'AS0,2001:db8::/32,48,\r\n')
  t.equal(aspaCsvHeader(), 'customer,providers\r\n')
  t.equal(aspaCsvLine({ customer: 65000, providers: [65001, 65002] }), 'AS65000,AS65001 AS65002\r\n')
  t.equal(exportFileName('ca1', 'roas', 'csv'), 'ca1-roas.csv')
  t.equal(exportFileName('a/b', 'aspas', 'json'), 'a_b-aspas.json')
})

t.test('formula guard: =, +, -, @, tab, CR and a leading quote are written after a single quote, and read back exactly', async (t) => {
  for (const c of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx', "'q"]) {
    t.equal(formulaSafe(c), `'${c}`, JSON.stringify(c))
    t.equal(formulaText(formulaSafe(c)), c)
  }
  for (const c of ['plain', 'a=b', '']) t.equal(formulaSafe(c), c)
  t.equal(roaCsvLine(SAMPLE[4]!), `AS65001,198.51.100.0/24,24,"'=HYPERLINK(""http://x"")"\r\n`)
  // No exported field starts with a formula character.
  const text = roaCsvHeader() + SAMPLE.map(roaCsvLine).join('')
  for (const r of readCsv(text).records) for (const f of r.fields) t.notMatch(f, /^[=+@\t\r]|^-/, f)
})

t.test('a CSV export reads back to what was exported (round trip), also with a BOM and with LF line ends', async (t) => {
  const text = roaCsvHeader() + SAMPLE.map(roaCsvLine).join('')
  t.same(roas('csv', text), SAMPLE)
  t.same(roas('csv', `\uFEFF${text}`), SAMPLE, 'byte order mark')
  // Line ends outside quoted fields as LF alone; the comment's own line break stays.
  t.same(roas('csv', text.replace(/\r\n/g, '\n')), SAMPLE, 'LF')
  t.same(roas('json', JSON.stringify(SAMPLE, null, 2)), SAMPLE, 'JSON')
  t.same(roas('json', `\uFEFF${JSON.stringify(SAMPLE)}`), SAMPLE, 'JSON with a byte order mark')
  const defs = [{ customer: 65000, providers: [65001, 65002] }, { customer: 65010, providers: [0] }]
  t.same(aspas('csv', aspaCsvHeader() + defs.map(aspaCsvLine).join('')), defs)
  t.same(aspas('json', JSON.stringify(defs)), defs)
})

t.test('a large export in pieces (issue 28 §3: streamed, never one string): the same bytes as the file written whole, and it reads back', async (t) => {
  const rows: RoaExportJson[] = Array.from({ length: 5_003 }, (_, i) => ({ asn: 64496 + (i % 7), prefix: `10.${i >> 8}.${i & 255}.0/24`, max_length: 24, comment: i % 3 ? null : `n° ${i}, "x"` }))
  const pieces = [...csvPieces(rows, roaCsvHeader(), roaCsvLine, 2_000)]
  t.equal(pieces.length, 4, 'the header, then pieces of 2,000 lines')
  const whole = roaCsvHeader() + rows.map(roaCsvLine).join('')
  t.equal(pieces.join(''), whole, 'byte-exact against the file written whole')
  t.same(roas('csv', pieces.join('')), rows, 'and it reads back')
  t.same([...csvPieces([], roaCsvHeader(), roaCsvLine)], [roaCsvHeader()], 'no ROAs: the header alone')
})

t.test('import leniency: no header, a header that orders columns, AS or plain numbers, max length left out, blank lines', async (t) => {
  t.same(roas('csv', '65000,10.0.0.0/24\n\nAS65001,10.0.1.0/24,,hello\n'), [
    { asn: 65000, prefix: '10.0.0.0/24', max_length: 24, comment: null },
    { asn: 65001, prefix: '10.0.1.0/24', max_length: 24, comment: 'hello' },
  ])
  t.same(roas('csv', 'prefix,ASN\r\n10.0.0.0/24,as65000\r\n'), [{ asn: 65000, prefix: '10.0.0.0/24', max_length: 24, comment: null }])
  // IPv6 written long is made canonical; JSON may leave out max_length and comment, and may carry Krill's roa_objects.
  t.same(roas('json', '[{"asn":65000,"prefix":"2001:0db8:0000::/32","roa_objects":[]}]'), [{ asn: 65000, prefix: '2001:db8::/32', max_length: 32, comment: null }])
  t.same(aspas('csv', 'AS65000,"AS65001, AS65002"\nAS65003;AS65004\n'.replace('AS65003;', 'AS65003,')), [{ customer: 65000, providers: [65001, 65002] }, { customer: 65003, providers: [65004] }])
  t.same(aspas('json', '[{"customer":"AS65000","providers":["AS65001",65002]}]'), [{ customer: 65000, providers: [65001, 65002] }])
})

t.test('every refusal names its line; all problems are reported together', async (t) => {
  const csv = [
    'asn,prefix,max_length,comment', // 1
    'AS65000,10.0.0.0/24,24,ok', // 2
    'ASX,10.0.1.0/24,24,', // 3 bad asn
    'AS65000,10.0.0.1/24,24,', // 4 host bits
    'AS65000,10.0.2.0/24,16,', // 5 max length shorter
    'AS65000,10.0.3.0/24,33,', // 6 max length too long
    'AS65000,10.0.4.0/24,x,', // 7 not a number
    'AS65000,10.0.0.0/24,24,again', // 8 duplicate of line 2
    'AS65000,10.0.5.0/24,24,"multi', // 9 quoted field spanning lines…
    'line",extra', // 10 …then one field too many
    'AS65000,10.0.6.0/24,24,a"b', // 11 quote in an unquoted field
    'AS65000,10.0.7.0/24,24,"x"y', // 12 text after the closing quote
    'AS65000', // 13 too few fields
    ',10.0.8.0/24,24,', // 14 asn missing
    'AS65000,,24,', // 15 prefix missing
    'AS65000,10.0.9.0/24,24,"never closed', // 16
  ].join('\r\n')
  const lines = refusal(() => roas('csv', csv))
  const at = (n: number) => lines.find((l) => l.startsWith(`line ${n}: `))
  t.match(at(3), /asn/)
  t.match(at(4), /host bits/)
  t.match(at(5), /shorter than the prefix length/)
  t.match(at(6), /33/)
  t.match(at(7), /max_length 'x' is not a number/)
  t.match(at(8), /the same authorisation as line 2/)
  t.match(at(9), /expected 4 fields/)
  t.match(at(11), /quote inside an unquoted field/)
  t.match(at(12), /after the closing quote/)
  t.match(at(13), /expected 4 fields/)
  t.match(at(14), /asn is missing/)
  t.match(at(15), /prefix is missing/)
  t.match(at(16), /quote opened on line 16 is never closed/)
  t.equal(lines.length, 13, lines.join('\n'))
  t.notOk(at(2), 'the good line is not listed')
})

t.test('header and JSON refusals', async (t) => {
  t.match(refusal(() => roas('csv', 'asn,prefix,colour\n65000,10.0.0.0/24,red\n'))[0], /^line 1: header: unknown column colour/)
  t.match(refusal(() => roas('csv', 'asn,comment\n65000,x\n'))[0], /^line 1: header: column prefix missing/)
  t.match(refusal(() => roas('json', '{"asn":1}'))[0], /^line 1: expected a JSON array/)
  t.match(refusal(() => roas('json', '[\n {"asn": 65000, "prefix": "10.0.0.0/24"},\n {"asn": 65000 "prefix": "x"}\n]'))[0], /^line 3: invalid JSON: expected ','/)
  t.match(refusal(() => roas('json', '[\n {"asn": 65000, "prefix": "10.0.0.0/24"},\n "text",\n {"asn": -1, "prefix": "10.0.0.0/24"},\n {"asn": 1, "prefix": "10.0.0.0/24", "comment": 5}\n]')), [/^line 3: entry 2 is not an object/, /^line 4: asn -1 is not an AS number/, /^line 5: comment must be text/])
  const a = refusal(() => aspas('csv', 'customer,providers\nAS65000,\nAS65001,AS65002 AS65002\nAS65003,AS1\nAS65003,AS2\nAS65004,ASX\n'))
  t.match(a, [/^line 2: no providers/, /^line 3: provider AS65002 is listed twice/, /^line 5: customer AS65003 is also on line 4/, /^line 6: provider/])
})

t.test('at most IMPORT_PROBLEMS_MAX problems listed, all counted', async (t) => {
  const text = Array.from({ length: 150 }, (_, i) => `AS65000,10.${i}.0.1/24,24,`).join('\n')
  try {
    roas('csv', text)
    t.fail('refused')
  } catch (e) {
    const err = e as AppError
    t.equal(err.status, 400)
    t.equal(err.args.count, '150')
    const lines = err.args.problems!.split('\n')
    t.equal(lines.length, IMPORT_PROBLEMS_MAX + 1)
    t.equal(lines.at(-1), '… and 50 more')
    t.match(err.message, /^Cannot import roas from this CSV file, nothing was changed: 150 problem/)
  }
})

t.test('readCsv and jsonArrayLines: lines of records and entries', async (t) => {
  const r = readCsv('a,"b\nc"\r\nd,e\n')
  t.same(r.records, [{ line: 1, fields: ['a', 'b\nc'] }, { line: 3, fields: ['d', 'e'] }])
  t.same(jsonArrayLines('[\n1,\n{"a":\n[2]},\n"x"]'), { lines: [2, 3, 5] })
  t.same(jsonArrayLines('[]'), { lines: [] })
  t.match(jsonArrayLines('[1,\n"a\nb"]'), { problem: { line: 2, reason: /control character/ } })
  t.match(jsonArrayLines('[1] x'), { problem: { reason: /after the end/ } })
})

t.test('request bodies', async (t) => {
  t.equal(checkPlanImport({ format: 'csv', kind: 'roas', mode: 'replace', content: '' }), undefined)
  t.match(checkPlanImport({ format: 'xml', kind: 'roas', mode: 'replace', content: '' }), /format/)
  t.match(checkPlanImport({ format: 'csv', kind: 'routes', mode: 'replace', content: '' }), /kind/)
  t.match(checkPlanImport({ format: 'csv', kind: 'roas', mode: 'merge', content: '' }), /mode/)
  t.match(checkPlanImport({ format: 'csv', kind: 'roas', mode: 'add' }), /content/)
  t.match(checkPlanImport({ format: 'csv', kind: 'roas', mode: 'add', content: '', comment: 'x'.repeat(1001) }), /comment/)
  t.equal(checkPlanRollback({ version: 3 }), undefined)
  for (const v of [{}, { version: 0 }, { version: 1.5 }, { version: '3' }, []]) t.match(checkPlanRollback(v), /version/)
})

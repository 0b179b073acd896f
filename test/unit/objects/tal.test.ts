/** TALs (RFC 8630): every real TAL decodes, strict errors name the rule, https first on encode, round trips. */
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { decodeCert } from '../../../src/objects/cert.js'
import { decodeTal, encodeTal, inspectTal, talMatches } from '../../../src/objects/tal.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { fixture, NO_SHARED, sharedFixture } from '../../helpers/paths.js'
import { throwsRule } from '../../helpers/throws-rule.js'

const KEY = Buffer.from(testKey('rpki-ta').spki).toString('base64')

t.test('our TAL: https URI first, then rsync, an empty line, the key at 64 columns; it matches the TA', async (t) => {
  const text = readFileSync(fixture('objects/sample/ta.tal'), 'utf8')
  const lines = text.split('\n')
  t.same(lines.slice(0, 3), ['https://rpki.example.net/ta/ta.cer', 'rsync://rpki.example.net/rpki/ta/ta.cer', ''])
  t.ok(lines.slice(3, -2).every((l) => l.length === 64), '64 columns')
  const tal = decodeTal(text)
  t.same(tal.spki, testKey('rpki-ta').spki)
  t.same(inspectTal(tal), [])
  t.ok(talMatches(tal, decodeCert(new Uint8Array(readFileSync(fixture('objects/sample/ta/ta.cer'))))))
  t.equal(encodeTal({ uris: [...tal.uris].reverse(), spki: tal.spki }), text, 'encode orders https before rsync')
})

t.test('comments, CRLF and wrapped keys decode', async (t) => {
  const tal = decodeTal(`# one\r\n# two\r\nrsync://a.example/ta.cer\r\n\r\n${KEY.slice(0, 50)}\r\n${KEY.slice(50)}\r\n\r\n`)
  t.same(tal.comments, ['one', 'two'])
  t.same(tal.uris, ['rsync://a.example/ta.cer'])
  t.same(inspectTal(tal).map((p) => p.severity), ['note'], 'rsync only: a note')
  t.equal(decodeTal(encodeTal({ uris: ['rsync://a.example/ta.cer'], spki: tal.spki, comments: ['hi'] })).comments[0], 'hi')
})

t.test('strict: bad base64, missing parts, other schemes, garbage are DecodeErrors naming RFC 8630 §2.2', async (t) => {
  const bad = (text: string, message: RegExp, what: string) => throwsRule(t, () => decodeTal(text), 'RFC 8630 §2.2', { name: 'DecodeError', message }, what)
  bad(`rsync://a.example/ta.cer\n\n${KEY.slice(0, -4)}!!!!\n`, /not valid base64/, 'bad base64 character')
  bad(`rsync://a.example/ta.cer\n\n${KEY.slice(0, -1)}\n`, /not valid base64/, 'truncated base64')
  throwsRule(t, () => decodeTal(`rsync://a.example/ta.cer\n\nAAAA\n`), 'X.690 §8.1.5', { name: 'DecodeError' }, 'base64 that is no SubjectPublicKeyInfo: the DER rule')
  bad(`http://a.example/ta.cer\n\n${KEY}\n`, /neither an rsync nor an https/, 'http')
  bad(`ftp://a.example/ta.cer\n\n${KEY}\n`, /line 1/, 'unsupported scheme')
  bad(`rsync://a.example/ta.cer\n${KEY}\n`, /URI|empty line/, 'no empty line')
  bad(`\n${KEY}\n`, /no TA certificate URI/, 'no URI')
  bad(`rsync://a.example/ta.cer\n\n`, /missing/, 'no key')
  throwsRule(t, () => decodeTal(Uint8Array.of(0x72, 0xff, 0x0a)), 'RFC 8630 §2.2', { message: /ASCII/ }, 'binary')
  throwsRule(t, () => decodeTal('a'.repeat(100_000)), 'RFC 8630 §2.2', { message: /too large/ }, 'huge')
  throwsRule(t, () => encodeTal({ uris: ['http://a.example/x.cer'], spki: testKey('rpki-ta').spki }), 'RFC 8630 §2.2')
})

t.test('every real TAL decodes (RIR TALs, comments, legacy 55 columns, one-line key)', { skip: NO_SHARED }, async (t) => {
  const dir = sharedFixture('tal')!
  for (const f of readdirSync(dir)) {
    const tal = decodeTal(readFileSync(`${dir}/${f}`))
    t.ok(tal.uris.length >= 1 && tal.publicKey.rsa?.modulusBits === 2048, f)
  }
  const krill = decodeTal(readFileSync(sharedFixture('objects/krill-localhost-chain/ta/ta.tal')!))
  t.ok(talMatches(krill, decodeCert(new Uint8Array(readFileSync(sharedFixture('objects/krill-localhost-chain/ta/ta.cer')!)))), 'Krill TAL matches its TA')
})

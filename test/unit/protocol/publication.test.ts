/**
 * src/protocol/publication.ts (RFC 8181): every version 4 fixture decodes (the CMS-wrapped one via openssl), version
 * 3 is refused with its own message, our encoding validates against the schema and round-trips, 32 MiB parses fast.
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  decodePublicationQuery,
  decodePublicationReply,
  encodePublicationQuery,
  encodePublicationReply,
  PUBLICATION_NS,
  type PublicationQuery,
  type PublicationReply,
} from '../../../src/protocol/publication.js'
import { validateWithSchema, xmllintMissing } from '../../helpers/xmllint.js'

const SHARED = fileURLToPath(new URL('../../../../shared/fixtures/', import.meta.url))
const noShared = existsSync(SHARED) ? false : `shared fixtures not found at ${SHARED}: real-world fixture tests skipped`
const noOpenssl = spawnSync('openssl', ['version']).error ? 'openssl CLI not installed: CMS fixture test skipped' : false
const noXmllint = xmllintMissing()
const HASH = 'fae1c03bde9da15e26e90a9585d246ee4db79ee9f0b1db1a6c7deb2fc4e2d093'
const BYTES = Uint8Array.from({ length: 100 }, (_, i) => i)
const V3 = 'RFC 8181 §2.1: RFC 8181 version 3 (draft dialect) is not supported; version 4 is required'

function decodeAny(xml: string | Buffer): PublicationQuery | PublicationReply {
  return /type="reply"/.test(xml.toString()) ? decodePublicationReply(xml) : decodePublicationQuery(xml)
}

function encodeAny(m: PublicationQuery | PublicationReply): string {
  return m.type === 'list' || m.type === 'delta' ? encodePublicationQuery(m) : encodePublicationReply(m)
}

t.test('every version 4 fixture decodes and round-trips', { skip: noShared }, async (t) => {
  for (const dir of ['krill', 'rfc8181-examples']) {
    for (const name of readdirSync(`${SHARED}rfc8181/${dir}`).filter((f) => f.endsWith('.xml'))) {
      const m = decodeAny(readFileSync(`${SHARED}rfc8181/${dir}/${name}`))
      const xml = encodeAny(m)
      t.same(decodeAny(xml), m, `${dir}/${name}: ${m.type} round-trips`)
      t.equal(encodeAny(decodeAny(xml)), xml, `${dir}/${name}: encoding is stable`)
    }
  }
})

t.test('the CMS-wrapped list query decodes (openssl extracts it)', { skip: noShared || noOpenssl }, async (t) => {
  const args = ['cms', '-verify', '-noverify', '-nosigs', '-inform', 'DER', '-in', `${SHARED}rfc8181/krill/list_query-cms.der`, '-out', '-']
  const r = spawnSync('openssl', args)
  t.equal(r.status, 0, 'openssl extracted the eContent')
  t.same(decodePublicationQuery(r.stdout), { type: 'list' })
})

t.test('version 3 (RIPE NCC draft dialect) is refused with its own message', { skip: noShared }, async (t) => {
  const dir = `${SHARED}rfc8181/ripencc-pubserver-v3/`
  for (const name of readdirSync(dir)) {
    t.throws(() => decodeAny(readFileSync(dir + name)), { name: 'DecodeError', message: V3 }, name)
  }
})

t.test('fixture details: hashes, tags, empty messages, complex errors', { skip: noShared }, async (t) => {
  const f = (p: string) => readFileSync(`${SHARED}rfc8181/${p}`)
  t.same(decodePublicationReply(f('krill/list_reply-empty-selfclosing.xml')), { type: 'list_reply', elements: [] })
  t.same(decodePublicationReply(f('krill/list_reply-empty.xml')), { type: 'list_reply', elements: [] })
  t.same(decodePublicationQuery(f('krill/query-empty.xml')), { type: 'delta', pdus: [] })
  t.same(decodePublicationQuery(f('krill/query-empty-selfclosing.xml')), { type: 'delta', pdus: [] })
  const complex = decodePublicationReply(f('rfc8181-examples/error_reply-complex.xml'))
  t.match(complex, {
    type: 'error_reply',
    errors: [
      { code: 'no_object_matching_hash', tag: 'Dave', text: /drunk/, failedPdu: { type: 'withdraw', hash: '421ee4ac65732d72', uri: 'rsync://wombat.example/Dave/421ee4ac65732d72.cer' } },
      { code: 'object_already_present', tag: 'Eve', failedPdu: { type: 'publish', uri: 'rsync://wombat.example/Eve/9dd859b01e5c2ebd.cer' } },
    ],
  })
  const q = decodePublicationQuery(f('rfc8181-examples/publish_withdraw_query.xml'))
  t.match(q, { type: 'delta', pdus: [{ tag: 'Alice' }, { tag: 'Carol' }, { tag: 'Eve', hash: '421ee4ac65732d72' }, { type: 'withdraw', tag: 'Bob' }, { type: 'withdraw', tag: 'Dave' }] })
})

t.test('hashes are compared case-insensitively: UPPERCASE decodes to lowercase', async (t) => {
  const xml = `<msg xmlns="${PUBLICATION_NS}" version="4" type="query"><withdraw uri="rsync://x/a.cer" hash="${HASH.toUpperCase()}" tag=""/></msg>`
  t.same(decodePublicationQuery(xml), { type: 'delta', pdus: [{ type: 'withdraw', uri: 'rsync://x/a.cer', hash: HASH, tag: '' }] })
})

t.test('malformed messages are refused with the RFC 8181 rule', async (t) => {
  const msg = (type: string, body: string, version = '4') => `<msg xmlns="${PUBLICATION_NS}" version="${version}" type="${type}">${body}</msg>`
  t.throws(() => decodePublicationQuery(msg('query', '', '5')), { message: 'RFC 8181 §2.1: version "5" is not supported; version 4 is required' })
  t.throws(() => decodePublicationQuery(msg('reply', '<success/>')), { message: /expected a query <msg>, got type "reply"/ })
  t.throws(() => decodePublicationReply(msg('query', '<list/>')), { message: /expected a reply <msg>, got type "query"/ })
  t.throws(() => decodePublicationQuery(msg('query', '<list/><withdraw uri="rsync://x/a" hash="aa"/>')), { message: /RFC 8181 §2\.3: a <list\/> query must be the only PDU/ })
  t.throws(() => decodePublicationQuery(msg('query', '<publish uri="rsync://x/a">BROKENBASE^$</publish>')), { message: /RFC 8181 §2\.2: <publish> content is not valid base64/ })
  t.throws(() => decodePublicationQuery(msg('query', '<withdraw uri="rsync://x/a"/>')), { message: /<withdraw> has no hash attribute/ })
  t.throws(() => decodePublicationQuery(msg('query', '<withdraw uri="rsync://x/a" hash="xyz"/>')), { message: /hash "xyz" is not hexadecimal/ })
  t.throws(() => decodePublicationQuery(msg('query', '<success/>')), { message: /<success> is not an RFC 8181 query PDU/ })
  t.throws(() => decodePublicationReply(msg('reply', '<success/><list uri="rsync://x/a" hash="aa"/>')), { message: /a reply mixes <success> and <list>/ })
  t.throws(() => decodePublicationReply(msg('reply', '<report_error error_code="bogus"/>')), { message: /RFC 8181 §2\.5: unknown error_code "bogus"/ })
  t.throws(() => decodePublicationReply(msg('reply', '<report_error error_code="xml_error">text</report_error>')), { message: /belongs in <error_text>/ })
  t.throws(() => decodePublicationQuery(`<msg xmlns="urn:x" version="4" type="query"/>`), { message: /expected a publication <msg>/ })
})

const QUERIES: PublicationQuery[] = [
  { type: 'list' },
  { type: 'list', tag: 'abc' },
  { type: 'delta', pdus: [] },
  {
    type: 'delta',
    pdus: [
      { type: 'publish', uri: 'rsync://localhost/repo/ca/a.roa', content: BYTES },
      { type: 'publish', uri: 'rsync://localhost/repo/ca/b.mft', hash: HASH, content: BYTES, tag: 't1' },
      { type: 'withdraw', uri: 'rsync://localhost/repo/ca/c&d.crl', hash: HASH, tag: '' },
    ],
  },
]
const REPLIES: PublicationReply[] = [
  { type: 'success' },
  { type: 'list_reply', elements: [] },
  { type: 'list_reply', elements: [{ uri: 'rsync://localhost/repo/ca/a.roa', hash: HASH }, { uri: 'rsync://localhost/repo/ca/b.roa', hash: HASH, tag: 'x' }] },
  {
    type: 'error_reply',
    errors: [
      { code: 'no_object_matching_hash', tag: 'Dave', text: 'no such object & <hash>', failedPdu: { type: 'withdraw', uri: 'rsync://x/a.cer', hash: HASH } },
      { code: 'permission_failure' },
      { code: 'object_already_present', failedPdu: { type: 'publish', uri: 'rsync://x/b.cer', content: BYTES } },
    ],
  },
]

t.test('canonical encoding', async (t) => {
  t.equal(encodePublicationQuery({ type: 'list' }), `<msg xmlns="${PUBLICATION_NS}" version="4" type="query">\n  <list/>\n</msg>\n`)
  t.equal(encodePublicationReply({ type: 'list_reply', elements: [] }), `<msg xmlns="${PUBLICATION_NS}" version="4" type="reply"/>\n`)
  t.match(encodePublicationQuery(QUERIES[3]), /<publish tag="t1" hash="[0-9a-f]{64}" uri="rsync:\/\/localhost\/repo\/ca\/b.mft">AAEC/)
})

t.test('everything we emit validates against the RFC 8181 schema and round-trips', { skip: noXmllint }, async (t) => {
  for (const m of [...QUERIES, ...REPLIES]) {
    const xml = encodeAny(m)
    const v = validateWithSchema(xml, 'rfc8181')
    t.ok(v.ok, `${m.type} validates: ${v.output}`)
    t.same(decodeAny(xml), m, `${m.type} round-trips`)
  }
})

t.test('a 32 MiB query with thousands of publish PDUs decodes (its speed is measured by make bench)', async (t) => {
  const content = Uint8Array.from({ length: 6000 }, (_, i) => (i * 31) % 256)
  const pdus: PublicationQuery & { type: 'delta' } = { type: 'delta', pdus: [] }
  for (let i = 0; i < 4200; i++) pdus.pdus.push({ type: 'publish', uri: `rsync://localhost/repo/ca/${i}.roa`, content, tag: String(i) })
  const xml = encodePublicationQuery(pdus)
  t.ok(xml.length > 32 * 1024 * 1024, `${(xml.length / 1048576).toFixed(1)} MiB`)
  const start = performance.now()
  const q = decodePublicationQuery(xml)
  const ms = performance.now() - start
  t.equal(q.type === 'delta' ? q.pdus.length : 0, 4200)
  t.comment(`decoded in ${ms.toFixed(0)} ms`)
})

/**
 * src/protocol/idexchange.ts (RFC 8183): every real-world document decodes or is refused with the reason, our
 * encoding is canonical, schema-valid and stable through decode/encode.
 */
import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  decodeChildRequest,
  decodeParentResponse,
  decodePublisherRequest,
  decodeRepositoryResponse,
  detectIdExchange,
  encodeChildRequest,
  encodeParentResponse,
  encodePublisherRequest,
  encodeRepositoryResponse,
  IDEXCHANGE_NS,
  type IdExchangeDocument,
} from '../../../src/protocol/idexchange.js'
import { validateWithSchema, xmllintMissing } from '../../helpers/xmllint.js'

const SHARED = fileURLToPath(new URL('../../../../shared/fixtures/', import.meta.url))
const noShared = existsSync(SHARED) ? false : `shared fixtures not found at ${SHARED}: real-world fixture tests skipped`
const noXmllint = xmllintMissing()
const DIRS = ['child_request', 'parent_response', 'publisher_request', 'repository_response'] as const
const CERT = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256)

/** Fixtures that must be refused, with the reason the error has to give. */
const REFUSED: Record<string, RegExp> = {
  'child_request/krill-testbed-variant-invalid_base64.xml': /RFC 8183 §5\.2\.1: <child_bpki_ta> is not valid base64/,
  'publisher_request/krill-testbed-variant-invalid_base64.xml': /RFC 8183 §5\.2\.3: <publisher_bpki_ta> is not valid base64/,
  'child_request/krill-testbed-variant-with_unicode_space_entity_reference_in_handle.xml': /child_handle "child-\\u200b-request" is not a valid handle/,
  'publisher_request/krill-testbed-variant-with_unicode_space_entity_reference_in_handle.xml': /publisher_handle "publisher-\\u200b-request" is not a valid handle/,
  'child_request/rpkid-legacy-identity-root-bob.xml': /rpkid <identity> document \(pre-RFC 8183 root element\), not RFC 8183/,
  'parent_response/legacy-myrpki-v2-labelled-arin.xml': /a legacy myrpki v2 parent document, not RFC 8183/,
}

function fixture(dir: string, name: string): Buffer {
  return readFileSync(`${SHARED}rfc8183/${dir}/${name}`)
}

function encodeDoc(d: IdExchangeDocument): string {
  switch (d.type) {
    case 'child_request':
      return encodeChildRequest(d.doc)
    case 'parent_response':
      return encodeParentResponse(d.doc)
    case 'publisher_request':
      return encodePublisherRequest(d.doc)
    case 'repository_response':
      return encodeRepositoryResponse(d.doc)
  }
}

t.test('every RFC 8183 fixture decodes, or is refused with its reason', { skip: noShared }, async (t) => {
  for (const dir of DIRS) {
    for (const name of readdirSync(`${SHARED}rfc8183/${dir}`)) {
      const key = `${dir}/${name}`
      const refusal = REFUSED[key]
      if (refusal) {
        t.throws(() => detectIdExchange(fixture(dir, name)), { name: 'DecodeError', message: refusal }, key)
        continue
      }
      const d = detectIdExchange(fixture(dir, name))
      t.equal(d.type, dir, key)
      const again = encodeDoc(detectIdExchange(encodeDoc(d)))
      t.equal(again, encodeDoc(d), `${key}: encode → decode → encode is stable`)
      t.same(detectIdExchange(again), d, `${key}: decode(encode(x)) equals x`)
    }
  }
})

t.test('tolerated variations decode to the same values', { skip: noShared }, async (t) => {
  const plain = decodeChildRequest(fixture('child_request', 'krill-testbed-variant-compact.xml'))
  for (const v of ['with_whitespace', 'with_unicode_space_char', 'with_unicode_space_entity_reference']) {
    t.same(decodeChildRequest(fixture('child_request', `krill-testbed-variant-${v}.xml`)).idCert, plain.idCert, `${v}: same certificate bytes`)
  }
  const ns0 = decodeChildRequest(fixture('child_request', 'rpkid-carol-ns0.xml'))
  t.same(decodeChildRequest(fixture('child_request', 'rpkid-carol-ns0-reindented.xml')), ns0, 'ns0: prefix, re-indented')
  const apnic = decodeParentResponse(fixture('parent_response', 'apnic-oob-prefix-crlf.xml'))
  t.match(apnic, { parentHandle: 'APNIC-AP', childHandle: 'A91872ED0000', serviceUri: 'http://rpki.apnic.net/up-down/APNIC-AP/' })
  const nicbr = decodeParentResponse(fixture('parent_response', 'krill-0.9-nicbr-ns-no-trailing-slash.xml'))
  t.equal(nicbr.parentHandle, 'test_parent', 'namespace without trailing slash')
  t.equal(decodeParentResponse(fixture('parent_response', 'rpkid-offer.xml')).offer, true)
  t.equal(decodeParentResponse(fixture('parent_response', 'rpkid-alice-bob-valid_until.xml')).validUntil, '2012-06-30T04:07:50Z')
  const referral = decodeParentResponse(fixture('parent_response', 'rpkid-referral.xml'))
  t.equal(referral.referrals?.[0].referrer, 'ripe-ncc-rpkid-test')
  t.equal(referral.referrals?.[0].contactUri, 'http://example.com/info')
  t.equal(referral.referrals?.[0].blob[0], 0x30, 'the referral blob is DER (CMS)')
  t.equal(decodePublisherRequest(fixture('publisher_request', 'rpkid-rfc8183-example-bob-tag.xml')).tag, 'A0001')
  const repo = decodeRepositoryResponse(fixture('repository_response', 'apnic-ns0-multiline-attrs.xml'))
  t.equal(repo.siaBase, 'rsync://rpki.sub.apnic.net/repository/A91872ED0000/', 'sia_base without trailing slash is normalised')
  t.equal(repo.rrdpNotificationUri, 'https://rrdp.sub.apnic.net/notification.xml')
  t.equal(decodeRepositoryResponse(fixture('repository_response', 'rpkid-rfc8183-example-tag.xml')).publisherHandle, 'Alice/Bob-42')
})

t.test('the wrong document for a decode function is named', { skip: noShared }, async (t) => {
  const child = fixture('child_request', 'krill-for-apnic.xml')
  t.throws(() => decodeParentResponse(child), { message: /RFC 8183 §5\.2\.2: expected a <parent_response>, got a <child_request>/ })
  t.throws(() => decodeParentResponse(fixture('parent_response', 'legacy-myrpki-v2-labelled-arin.xml')), {
    message: 'RFC 8183 §5.1: a legacy myrpki v2 parent document, not RFC 8183 (expected a <parent_response>)',
  })
  t.throws(() => decodeRepositoryResponse(fixture('publisher_request', 'krill-for-apnic.xml')), { message: /expected a <repository_response>, got a <publisher_request>/ })
})

t.test('invalid documents are refused with the rule', async (t) => {
  const doc = (root: string, attrs: string, body = '<child_bpki_ta>AAAA</child_bpki_ta>') => `<${root} xmlns="${IDEXCHANGE_NS}" ${attrs}>${body}</${root}>`
  t.throws(() => decodeChildRequest(doc('child_request', 'version="2" child_handle="a"')), { message: /version "2"; RFC 8183 documents are version "1"/ })
  t.throws(() => decodeChildRequest(doc('child_request', 'child_handle="a"')), { message: /no version attribute/ })
  t.throws(() => decodeChildRequest(doc('child_request', 'version="1"')), { message: /<child_request> has no child_handle attribute/ })
  t.throws(() => decodeChildRequest(doc('child_request', 'version="1" child_handle="a b"')), { message: /child_handle "a b" is not a valid handle/ })
  t.throws(() => decodeChildRequest(doc('child_request', 'version="1" child_handle="a"', '')), { message: /exactly one <child_bpki_ta>, found 0/ })
  t.throws(() => decodeChildRequest(doc('child_request', 'version="1" child_handle="a"', '<child_bpki_ta>AAAA</child_bpki_ta><x/>')), { message: /must not contain <x>/ })
  t.throws(() => decodeChildRequest(doc('child_request', 'version="1" child_handle="a"', '<child_bpki_ta></child_bpki_ta>')), { message: /<child_bpki_ta> is empty/ })
  t.throws(() => decodeChildRequest('<child_request xmlns="urn:other" version="1" child_handle="a"/>'), { message: /not the RFC 8183 namespace/ })
  const rr = (sia: string, svc = 'https://x.example/rfc8181/a') =>
    doc('repository_response', `version="1" publisher_handle="a" service_uri="${svc}" sia_base="${sia}"`, '<repository_bpki_ta>AAAA</repository_bpki_ta>')
  t.throws(() => decodeRepositoryResponse(rr('https://x.example/repo/')), { message: /sia_base "https:\/\/x.example\/repo\/" must be a rsync URI/ })
  t.throws(() => decodeRepositoryResponse(rr('rsync://x.example/repo/', 'ftp://x')), { message: /service_uri "ftp:\/\/x" is not a valid URI/ })
})

t.test('canonical encoding: namespace with slash, version 1, no prefix, base64 on one line', async (t) => {
  const xml = encodeChildRequest({ childHandle: 'Alice/Bob-42', idCert: CERT, tag: 'A0001' })
  t.equal(xml, `<child_request xmlns="${IDEXCHANGE_NS}" version="1" child_handle="Alice/Bob-42" tag="A0001">\n  <child_bpki_ta>${Buffer.from(CERT).toString('base64')}</child_bpki_ta>\n</child_request>\n`)
  t.throws(() => encodeChildRequest({ childHandle: 'bad handle', idCert: CERT }), { name: 'InspectionError' })
})

t.test('everything we emit validates against the RFC 8183 schema and round-trips', { skip: noXmllint }, async (t) => {
  const docs: IdExchangeDocument[] = [
    { type: 'child_request', doc: { childHandle: 'child-1', idCert: CERT } },
    { type: 'child_request', doc: { childHandle: 'Alice/Bob-42', idCert: CERT, tag: 'A0001' } },
    { type: 'parent_response', doc: { parentHandle: 'testbed', childHandle: 'ca', serviceUri: 'https://localhost:3000/rfc6492/testbed', idCert: CERT } },
    {
      type: 'parent_response',
      doc: {
        parentHandle: 'p',
        childHandle: 'c',
        serviceUri: 'http://localhost:4401/up-down/p/c',
        idCert: CERT,
        tag: 't',
        offer: true,
        referrals: [{ referrer: 'r', contactUri: 'https://r.example/info', blob: CERT }, { referrer: 'r2', blob: CERT }],
      },
    },
    { type: 'publisher_request', doc: { publisherHandle: 'ca', idCert: CERT, tag: 'x' } },
    {
      type: 'repository_response',
      doc: { publisherHandle: 'ca', serviceUri: 'https://localhost:3000/rfc8181/ca/', siaBase: 'rsync://localhost/repo/ca/', rrdpNotificationUri: 'https://localhost:3000/rrdp/notification.xml', idCert: CERT },
    },
  ]
  for (const d of docs) {
    const xml = encodeDoc(d)
    const v = validateWithSchema(xml, 'rfc8183')
    t.ok(v.ok, `${d.type} validates: ${v.output}`)
    t.same(detectIdExchange(xml), d, `${d.type} round-trips`)
  }
})

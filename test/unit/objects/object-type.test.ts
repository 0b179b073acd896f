/** detectObjectType: by content (ASN.1 shape, eContentType), with the file extension only as a fallback. */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { detectObjectType } from '../../../src/objects/object-type.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { fixture, NO_SHARED, sharedFixture } from '../../helpers/paths.js'

const read = (p: string): Uint8Array => new Uint8Array(readFileSync(fixture('objects', p)))

t.test('our objects', async (t) => {
  const ca = testKey('rpki-ca').keyId
  t.equal(detectObjectType(read('sample/ta/ta.cer')), 'cert')
  t.equal(detectObjectType(read(`sample/repo/ca/${ca}.crl`)), 'crl')
  t.equal(detectObjectType(read(`sample/repo/ca/${ca}.mft`)), 'manifest')
  t.equal(detectObjectType(read('sample/repo/ca/AS65001.roa'), 'misnamed.cer'), 'roa', 'content beats the name')
  t.equal(detectObjectType(read('sample/repo/ca/AS65001.asa')), 'aspa')
  t.equal(detectObjectType(read('sample/ta.tal')), 'tal')
  t.equal(detectObjectType(read('bpki/id-ta.crl')), 'crl')
  t.equal(detectObjectType(new TextEncoder().encode('  <?xml version="1.0"?><child_request/>')), 'xml')
  t.equal(detectObjectType(Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01)), 'unknown')
  t.equal(detectObjectType(Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01), 'x.roa'), 'roa', 'the extension decides when the content does not')
  t.equal(detectObjectType(new Uint8Array(0)), 'unknown')
})

t.test('real objects, BER included', { skip: NO_SHARED }, async (t) => {
  const shared = (p: string) => new Uint8Array(readFileSync(sharedFixture(p)!))
  t.equal(detectObjectType(shared('objects/rir/arin/arin-rpki-ta.mft')), 'manifest', 'BER indefinite length')
  t.equal(detectObjectType(shared('objects/gbr/sobornost-LMrbiOIR4bDInnBEXLsY5MZ1q1U.gbr')), 'gbr')
  t.equal(detectObjectType(shared('objects/router-certs/router-csr.der')), 'csr')
  t.equal(detectObjectType(shared('objects/router-certs/ripencc-bgpsec-router.cer')), 'cert')
  t.equal(detectObjectType(shared('rfc6492/cms/ripencc-error_response-2001-ber-indefinite.ber')), 'cms-xml')
  t.equal(detectObjectType(shared('tal/rpki-client-test-with-comments.tal')), 'tal')
  t.equal(detectObjectType(shared('rfc8183/child_request/krill-for-apnic.xml')), 'xml')
})

/** BER decoding of inbound CMS: RIPE NCC indefinite lengths, real DER messages and objects, signatures verified. */
import { execFileSync } from 'node:child_process'
import { createHash, verify, X509Certificate } from 'node:crypto'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import {
  berStringValue, decodeBerSignedData, isStrictDer, parseBer, toDer, type BerSignedData,
} from '../../../src/asn1/ber.js'
import { int, nul, octetString, seq } from '../../../src/asn1/der.js'
import { parseDer, readOctetString, readOid, readUtcTime } from '../../../src/asn1/der-reader.js'
import * as oids from '../../../src/asn1/oids.js'
import { DecodeError } from '../../../src/util/errors.js'
import { fromHex, toHex } from '../../../src/util/hex.js'

const F = '/work/shared/fixtures'
const RIPE_BER = join(F, 'rfc6492/cms/ripencc-error_response-2001-ber-indefinite.ber')
const read = (p: string) => new Uint8Array(readFileSync(p))
const h = (s: string) => fromHex(s.replace(/ /g, ''))

function* files(dir: string, re: RegExp): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) yield* files(p, re)
    else if (re.test(name)) yield p
  }
}

/** Check the CMS signature and message digest with node:crypto and the first certificate. */
function verifies(sd: BerSignedData): boolean {
  const si = sd.signerInfos[0]
  if (!si?.signedAttrs || sd.certificates.length === 0 || sd.eContent === undefined) return false
  const md = si.signedAttrs.attributes.find((a) => a.type === oids.messageDigest)
  if (!md || toHex(readOctetString(parseDer(md.values[0]))) !== createHash('sha256').update(sd.eContent).digest('hex')) return false
  const key = new X509Certificate(Buffer.from(sd.certificates[0])).publicKey
  return verify('sha256', si.signedAttrs.der, key, si.signature)
}

t.test('RIPE NCC BER error_response (indefinite lengths, constructed eContent)', async (t) => {
  if (!existsSync(RIPE_BER)) return t.comment('fixture absent: skipped')
  const bytes = read(RIPE_BER)
  const sd = decodeBerSignedData(bytes)
  t.equal(sd.der, false, 'not DER')
  t.equal(sd.version, 3)
  t.same(sd.digestAlgorithms, [{ oid: oids.sha256, params: 'null' }])
  t.equal(sd.eContentType, oids.idCtXml)
  t.equal(sd.eContentConstructed, true)
  t.equal(sd.eContent!.length, 265)
  t.match(Buffer.from(sd.eContent!).toString(), /^<\?xml[^]*type="error_response"[^]*<status>2001<\/status>/)
  t.equal(sd.certificates.length, 1)
  t.equal(sd.crls.length, 1)
  t.ok(isStrictDer(sd.certificates[0]) && isStrictDer(sd.crls[0]), 'certificate and CRL as DER')
  const si = sd.signerInfos[0]
  t.match(si, { version: 3, unsignedAttrs: false, digestAlgorithm: { oid: oids.sha256, params: 'null' } })
  t.same(si.signatureAlgorithm, { oid: oids.rsaEncryption, params: 'null' })
  t.equal(si.sid.type, 'ski')
  if (si.sid.type === 'ski') t.equal(toHex(si.sid.ski), '78692ba72fa3ea78be8b10deb94856f787d5fd6c')
  t.same(si.signedAttrs!.attributes.map((a) => a.type), [oids.contentType, oids.signingTime, oids.messageDigest])
  t.equal(readOid(parseDer(si.signedAttrs!.attributes[0].values[0])), oids.idCtXml)
  t.equal(readUtcTime(parseDer(si.signedAttrs!.attributes[1].values[0])).toISOString(), '2012-05-09T18:45:56.000Z')
  t.equal(si.signedAttrs!.der[0], 0x31)
  t.same(si.signedAttrs!.der, si.signedAttrs!.received, 'signedAttrs were definite-length DER already')
  t.equal(si.signature.length, 256)
  t.ok(verifies(sd), 'message digest and signature verify')
  // eContent agrees with openssl's BER-tolerant CMS decoder.
  try {
    const out = execFileSync('openssl', ['cms', '-verify', '-noverify', '-inform', 'DER', '-in', RIPE_BER], { stdio: ['ignore', 'pipe', 'ignore'] })
    t.same(new Uint8Array(out), sd.eContent)
  } catch {
    t.comment('openssl cms unavailable')
  }
})

t.test('toDer turns the BER message into strict DER with the same content', async (t) => {
  if (!existsSync(RIPE_BER)) return t.comment('fixture absent: skipped')
  const bytes = read(RIPE_BER)
  const der = toDer(parseBer(bytes))
  t.ok(isStrictDer(der), 'strict DER')
  t.ok(der.length < bytes.length)
  const a = decodeBerSignedData(bytes), b = decodeBerSignedData(der)
  t.equal(b.der, true)
  t.equal(b.eContentConstructed, false)
  t.same({ ...b, der: true, eContentConstructed: true }, { ...a, der: true, eContentConstructed: true })
  t.ok(verifies(b))
})

t.test('RIPE NCC 2019 chain: BER manifests decode and verify; DER files unchanged by toDer', async (t) => {
  const dir = join(F, 'objects/ripencc-ta-chain-2019')
  if (!existsSync(dir)) return t.comment('fixture absent: skipped')
  for (const f of files(dir, /\.mft$/)) {
    const sd = decodeBerSignedData(read(f))
    t.equal(sd.der, false, `${f} is BER`)
    t.equal(sd.eContentType, oids.idCtRpkiManifest)
    t.ok(verifies(sd), `${f} verifies`)
    const der = toDer(parseBer(read(f)))
    t.ok(isStrictDer(der), 'toDer gives strict DER')
  }
  for (const f of files(dir, /\.(cer|crl)$/)) t.same(toDer(parseBer(read(f))), read(f), `${f}: DER in, same DER out`)
})

t.test('all CMS fixtures decode; nearly all verify', async (t) => {
  if (!existsSync(F)) return t.comment('fixtures absent: skipped')
  const list = [...files(join(F, 'rfc6492/cms'), /\.(der|ber)$/), ...files(join(F, 'rfc8181'), /\.der$/),
    ...files(join(F, 'objects'), /\.(roa|mft|asa|gbr)$/)]
  let decoded = 0, verified = 0, ber = 0
  const failed: string[] = []
  for (const f of list) {
    if (f.endsWith('-csr.der')) continue
    const sd = decodeBerSignedData(read(f))
    decoded++
    if (!sd.der) ber++
    if (verifies(sd)) verified++
    else failed.push(f.slice(F.length + 1))
    if (sd.der) t.same(toDer(parseBer(read(f))), read(f), `${f}: toDer is the identity on DER`)
  }
  t.ok(decoded >= 70, `${decoded} decoded, ${ber} of them BER`)
  t.ok(verified >= decoded - 3, `${verified} verified; not: ${failed.join(', ')}`)
})

t.test('hostile and malformed input', async (t) => {
  t.throws(() => parseBer(h('30 80 02 01 01')), DecodeError, 'missing end-of-contents')
  t.throws(() => parseBer(h('02 01 01 00')), /trailing/, 'trailing byte')
  t.throws(() => parseBer(h('04 84 06 40 00 00 00')), DecodeError, 'claimed 100 MB')
  let deep: Uint8Array = nul()
  for (let i = 0; i < 200; i++) deep = seq(deep)
  t.throws(() => parseBer(deep), DecodeError, 'nesting beyond maxDepth')
  const many = seq(...Array.from({ length: 2000 }, () => nul()))
  t.throws(() => parseBer(many, { maxNodes: 1000 }), DecodeError, 'beyond maxNodes')
  t.equal(parseBer(many).children.length, 2000)
  t.throws(() => decodeBerSignedData(seq(int(1))), DecodeError)
  t.throws(() => decodeBerSignedData(seq(h('06 03 55 1d 0e'))), /not id-signedData/)
  t.throws(() => decodeBerSignedData(octetString(h('00'))), /ContentInfo/)
})

t.test('constructed strings, BOOLEAN and BIT STRING segments are normalised', async (t) => {
  const os = parseBer(h('24 80 04 02 01 02 24 80 04 01 03 00 00 00 00'))
  t.same(berStringValue(os), h('01 02 03'))
  t.same(toDer(os), h('04 03 01 02 03'))
  t.same(toDer(parseBer(h('30 80 01 01 01 00 00'))), h('30 03 01 01 ff'))
  t.same(toDer(parseBer(h('23 80 03 02 00 aa 03 02 04 b0 00 00'))), h('03 03 04 aa b0'))
  t.same(toDer(parseBer(h('30 81 03 02 01 05'))), h('30 03 02 01 05'), 'non-minimal length')
  t.same(toDer(parseBer(h('bf 81 00 03 02 01 05'))), h('bf 81 00 03 02 01 05'), 'high tag number kept')
})

/**
 * src/protocol/signed-message*.ts (RFC 6492 §3.1 / RFC 8181 §2 CMS): every real CMS fixture unwraps and verifies
 * against the BPKI certificate found next to it; our output is pinned byte for byte, verified by our verifier, by
 * OpenSSL (`cms -verify -CAfile … -crl_check`) and by pkijs; the MessageSigner EE policy; and every hostile or
 * broken message is refused with the rule it breaks.
 */
import t, { type Test } from 'tap'
import * as asn1js from 'asn1js'
import * as pkijs from 'pkijs'
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { explicit, int, nul, octetString, oid, retag, seq, set, setOf, tlv, utcTime } from '../../../src/asn1/der.js'
import * as oids from '../../../src/asn1/oids.js'
import { keyIdentifier, keyIdHex } from '../../../src/crypto/key-id.js'
import type { SigningKey } from '../../../src/crypto/signer.js'
import { buildIdCrl, createIdCert, decodeIdCert, idCertPem, issueIdEeCert } from '../../../src/protocol/id-cert.js'
import { decodeProvisioning } from '../../../src/protocol/provisioning.js'
import { decodePublicationQuery } from '../../../src/protocol/publication.js'
import {
  inspectSignedMessage, MessageSigner, unwrapMessage, unwrapUnverified, type UnwrapOptions, verifyMessageChain,
  verifyMessageCrl, verifyMessageSignature, wrapMessage,
} from '../../../src/protocol/signed-message.js'
import { LibraryError } from '../../../src/util/errors.js'
import { fixture, NO_SHARED, sharedFixture } from '../../helpers/paths.js'
import { noHang } from '../../helpers/no-hang.js'

const noOpenssl = spawnSync('openssl', ['version']).error ? 'openssl CLI not installed' : false
const NOW = new Date('2026-03-01T12:00:00Z')
const LIST = '<msg xmlns="http://www.hactrn.net/uris/rpki/publication-spec/" type="query" version="4"><list/></msg>'
const GOLDEN = fixture('protocol', 'signed-message.der')

function fixedKey(name: string): SigningKey {
  const pk = createPrivateKey(readFileSync(fixture('keys', `${name}.pem`)))
  const spki = new Uint8Array(createPublicKey(pk).export({ type: 'spki', format: 'der' }))
  const ski = keyIdentifier(spki)
  return { keyId: keyIdHex(ski), ski, spki, sign: (d) => new Uint8Array(sign('sha256', d, pk)) }
}

const ID_KEY = fixedKey('bpki-id')
const EE_KEY = fixedKey('bpki-ee')
const OTHER_KEY = fixedKey('bpki-other')
const ID_CERT = createIdCert(ID_KEY, new Date('2026-01-01T00:00:00Z'), 15, 1n)
const OTHER_ID_CERT = createIdCert(OTHER_KEY, new Date('2026-01-01T00:00:00Z'), 15, 2n)

function ourSigner(now = NOW): MessageSigner {
  const s = new MessageSigner({ idKey: ID_KEY, idCert: ID_CERT })
  s.useEeKey(EE_KEY, now)
  return s
}

const opts = (extra: Partial<UnwrapOptions> = {}): UnwrapOptions => ({ idCert: ID_CERT, now: NOW, ...extra })

/** Assert a LibraryError whose rule is `rule` (and whose message matches `msg`, when given). */
function refuses(t: Test, f: () => unknown, rule: string, msg?: RegExp): void {
  try {
    f()
    t.fail(`accepted; expected ${rule}`)
  } catch (e) {
    if (!(e instanceof LibraryError)) throw e
    t.equal(e.rule, rule, `${rule}: ${e.message}`)
    if (msg) t.match(e.message, msg)
  }
}

/** Assert a typed library error (DecodeError, InspectionError or VerificationError), never a crash. */
function typed(t: Test, f: () => unknown, what: string): void {
  try {
    f()
    t.fail(`accepted: ${what}`)
  } catch (e) {
    t.ok(e instanceof LibraryError, `${what}: ${(e as Error).message.slice(0, 100)}`)
  }
}

function withTmp<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sigmsg-'))
  try {
    return fn(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

//------------ Real-world fixtures --------------------------------------------------------------------------------------

const CMS_DIR = sharedFixture('rfc6492', 'cms')
/** Fixture → the BPKI certificate in the same directory that issued its EE certificate. */
const ISSUERS: Record<string, string> = {
  'krill-list.der': 'krill-ca1-bpki-id.cer',
  'lacnic-error_response-no-sender-recipient.der': 'lacnic-bpki-id.cer',
  'lacnic-list_response-large.der': 'lacnic-bpki-id.cer',
  'ripencc-revoke_response.der': 'ripencc-bpki-id.cer',
  'rpkid-carol-issue.der': 'rpkid-carol-bpki-ta.cer',
  'rpkid-carol-list.der': 'rpkid-carol-bpki-ta.cer',
  'afrinic-list_response.der': 'afrinic-bpki-id.cer',
}
const CMS_FIXTURES = [
  'afrinic-list_response.der', 'apnic-2011-list_response-ranges.der', 'apnic-list_response-prod-2022.der',
  'apnic-testbed-list_response-issuer-only.der', 'krill-list.der', 'lacnic-error_response-no-sender-recipient.der',
  'lacnic-list_response-large.der', 'ripencc-error_response-2001-ber-indefinite.ber', 'ripencc-revoke_response.der',
  'rpkid-alice-issue.der', 'rpkid-alice-issue_response.der', 'rpkid-alice-list.der',
  'rpkid-alice-list_response-issuer-only.der', 'rpkid-bob-issue.der', 'rpkid-bob-list_response.der',
  'rpkid-carol-issue.der', 'rpkid-carol-issue_response.der', 'rpkid-carol-list.der', 'rpkid-carol-list_response.der',
  'rpkid-dtag-list-uuid-handles.der',
]

function sharedBytes(...parts: string[]): Uint8Array {
  return new Uint8Array(readFileSync(sharedFixture(...parts) as string))
}

t.test('every RFC 6492 CMS fixture decodes, its signature and digest verify, and its XML decodes', { skip: NO_SHARED }, async (t) => {
  for (const name of CMS_FIXTURES) {
    const bytes = sharedBytes('rfc6492', 'cms', name)
    const m = inspectSignedMessage(bytes)
    verifyMessageSignature(m)
    t.pass(`${name}: EE signature over the signed attributes and message digest verify`)
    const msg = decodeProvisioning(unwrapUnverified(bytes).xml)
    t.ok(msg.payload.type, `${name}: ${msg.payload.type}`)
    const issuer = ISSUERS[name]
    if (issuer === undefined || name.startsWith('afrinic')) continue
    const r = unwrapMessage(bytes, { idCert: sharedBytes('rfc6492', 'cms', issuer), now: m.signingTime })
    t.same(r.signingTime, m.signingTime, `${name}: fully verified against ${issuer}`)
    t.equal(r.crl === undefined, false)
  }
})

t.test('RFC 8181 CMS fixture (cfrpki capture of a Krill list query)', { skip: NO_SHARED }, async (t) => {
  const bytes = sharedBytes('rfc8181', 'krill', 'list_query-cms.der')
  const m = inspectSignedMessage(bytes)
  verifyMessageSignature(m)
  t.same(decodePublicationQuery(m.content), { type: 'list' })
  t.equal(m.crls.length, 1)
  t.equal(m.ee.issuer, 'CN=A33E53390F0BB807A55978D223628D1DFECF2C46', 'the issuing identity certificate is not in the fixtures')
})

t.test('real-world quirks: BER, no CRL, extra attribute, stale CRL, foreign names', { skip: NO_SHARED }, async (t) => {
  const ber = inspectSignedMessage(sharedBytes('rfc6492', 'cms', 'ripencc-error_response-2001-ber-indefinite.ber'))
  t.equal(ber.der, false, 'RIPE NCC 2012: BER with indefinite lengths')
  t.equal(ber.signedData.eContentConstructed, true, 'constructed eContent')
  const apnic = inspectSignedMessage(sharedBytes('rfc6492', 'cms', 'apnic-2011-list_response-ranges.der'))
  t.equal(apnic.crls.length, 0, 'APNIC 2011: no CRL, accepted')
  t.same(apnic.ignoredAttributes, ['1.2.840.113549.1.9.15'], 'smimeCapabilities ignored')
  // AFRINIC's test system signs in 2022 with a CRL whose nextUpdate is 2021: the chain is fine, the CRL is stale.
  const afrinic = sharedBytes('rfc6492', 'cms', 'afrinic-list_response.der')
  const am = inspectSignedMessage(afrinic)
  const ta = decodeIdCert(sharedBytes('rfc6492', 'cms', 'afrinic-bpki-id.cer'))
  t.notOk(ta.selfSigned, "AFRINIC's BPKI certificate is an intermediate")
  verifyMessageChain(am, ta, { idCert: ta, now: am.signingTime })
  t.pass('AFRINIC EE chains to the intermediate')
  refuses(t, () => verifyMessageCrl(am, ta, { idCert: ta, now: am.signingTime }), 'RFC 6492 §3.1.1.5', /CRL expired/)
  t.ok(verifyMessageCrl(am, ta, { idCert: ta, now: new Date('2021-03-15T00:00:00Z') }), 'current in March 2021')
  // LACNIC names its EE issuer "CN=bpki-lacnic", its BPKI certificate "CN=bpki O=lacnic": chained by key identifier.
  const lacnic = inspectSignedMessage(sharedBytes('rfc6492', 'cms', 'lacnic-list_response-large.der'))
  t.equal(lacnic.ee.issuer, 'CN=bpki-lacnic')
  t.equal(decodeIdCert(sharedBytes('rfc6492', 'cms', 'lacnic-bpki-id.cer')).subject, 'CN=bpki O=lacnic')
  // The wrong peer's certificate is refused.
  const krill = sharedBytes('rfc6492', 'cms', 'krill-list.der')
  refuses(t, () => unwrapMessage(krill, { idCert: sharedBytes('rfc6492', 'cms', 'ripencc-bpki-id.cer'), now: new Date('2022-01-11T12:44:46Z') }),
    'RFC 6492 §3.1.1.4', /authorityKeyIdentifier/)
  refuses(t, () => unwrapMessage(krill, { idCert: sharedBytes('rfc6492', 'cms', 'krill-ca1-bpki-id.cer'), now: NOW }),
    'RFC 6492 §3.1.1.6.4.3', /replay/)
})

//------------ Our output -----------------------------------------------------------------------------------------------

t.test('wrapMessage: exact bytes (golden), and our verifier accepts them', async (t) => {
  const bytes = wrapMessage(LIST, ourSigner(), NOW)
  if (process.env.SVC_WRITE_FIXTURES === '1' || !existsSync(GOLDEN)) writeFileSync(GOLDEN, bytes)
  t.same(Buffer.from(bytes).toString('hex'), readFileSync(GOLDEN).toString('hex'), 'fixtures/protocol/signed-message.der')
  const r = unwrapMessage(bytes, opts())
  t.equal(r.xml, LIST)
  t.equal(r.der, true)
  t.same(r.signingTime, NOW)
  t.same(decodePublicationQuery(r.xml), { type: 'list' })
  const m = inspectSignedMessage(bytes)
  t.same(m.signedData.digestAlgorithms, [{ oid: oids.sha256, params: 'absent' }])
  t.same(m.signer.signatureAlgorithm, { oid: oids.rsaEncryption, params: 'null' })
  t.same(m.signer.signedAttrs?.attributes.map((a) => a.type), [oids.contentType, oids.signingTime, oids.messageDigest])
  t.equal(m.ee.issuer, `CN=${ID_KEY.keyId}`)
  t.equal(m.ee.subject, `CN=${EE_KEY.keyId}`)
  t.same(m.ee.aki, ID_KEY.ski)
  t.equal(m.ee.ca, undefined, 'no basicConstraints in the EE certificate')
  t.same(m.signedAttrs.received, m.signedAttrs.der, 'signed attributes in DER order')
  t.same(unwrapMessage(wrapMessage(new TextEncoder().encode(LIST), ourSigner(), NOW), opts()).xml, LIST, 'bytes in')
})

t.test('OpenSSL verifies our message against the identity certificate, CRL included', { skip: noOpenssl }, async (t) => {
  const bytes = wrapMessage(LIST, ourSigner(), NOW)
  withTmp((dir) => {
    writeFileSync(join(dir, 'id.pem'), idCertPem(ID_CERT))
    writeFileSync(join(dir, 'msg.der'), bytes)
    const args = ['cms', '-verify', '-inform', 'DER', '-in', join(dir, 'msg.der'), '-CAfile', join(dir, 'id.pem'), '-purpose', 'any', '-attime', String(NOW.getTime() / 1000)]
    const ok = spawnSync('openssl', [...args, '-crl_check'])
    t.equal(ok.status, 0, ok.stderr.toString())
    t.equal(ok.stdout.toString(), LIST)
    writeFileSync(join(dir, 'other.pem'), idCertPem(OTHER_ID_CERT))
    const bad = spawnSync('openssl', [...args.slice(0, 7), join(dir, 'other.pem'), ...args.slice(8)])
    t.not(bad.status, 0, 'and refuses it against another identity certificate')
  })
})

t.test('pkijs (independent decoder) parses our message and verifies its signature', async (t) => {
  const bytes = wrapMessage(LIST, ourSigner(), NOW)
  const asn = asn1js.fromBER(bytes.slice().buffer, { parseEmbedded: false } as never)
  t.not(asn.offset, -1)
  const sd = new pkijs.SignedData({ schema: new pkijs.ContentInfo({ schema: asn.result }).content })
  t.equal(sd.version, 3)
  t.equal(sd.encapContentInfo.eContentType, oids.idCtXml)
  t.equal(sd.certificates?.length, 1)
  t.equal(sd.crls?.length, 1)
  t.equal(sd.signerInfos.length, 1)
  t.equal(sd.signerInfos[0].version, 3)
  const ee = sd.certificates?.[0] as pkijs.Certificate
  const idCert = pkijs.Certificate.fromBER(ID_CERT.slice().buffer)
  t.ok(await ee.verify(idCert), 'EE certificate verifies under the identity certificate')
  const r = await sd.verify({ signer: 0, checkChain: false, extendedMode: true })
  t.ok(r.signatureVerified, 'CMS signature verifies')
  const crl = sd.crls?.[0] as pkijs.CertificateRevocationList
  t.ok(await crl.verify({ issuerCertificate: idCert }), 'CRL verifies under the identity certificate')
})

//------------ MessageSigner EE policy -----------------------------------------------------------------------------------

t.test('MessageSigner reuses one short-lived EE certificate and rotates it before expiry', async (t) => {
  let made = 0
  let destroyed = 0
  const first = { ...EE_KEY, destroy: () => { destroyed++ } }
  const keys = [first, OTHER_KEY, EE_KEY]
  const s = new MessageSigner({ idKey: ID_KEY, idCert: ID_CERT, newEeKey: async () => keys[made++] })
  t.throws(() => wrapMessage(LIST, s, NOW), /prepare/, 'no EE before prepare()')
  await Promise.all([s.prepare(NOW), s.prepare(NOW)])
  t.equal(made, 1, 'concurrent prepare() takes one key')
  const a = inspectSignedMessage(wrapMessage(LIST, s, NOW))
  const later = new Date(NOW.getTime() + 3600e3)
  const b = inspectSignedMessage(await s.sign(LIST, later))
  t.equal(made, 1, 'still the same EE an hour later')
  t.same(a.certificates[0], b.certificates[0])
  t.same(a.crls[0], b.crls[0])
  t.equal(a.ee.notBefore.toISOString(), '2026-03-01T11:55:00.000Z', 'backdated 5 minutes')
  t.equal(a.ee.notAfter.toISOString(), '2026-03-01T16:00:00.000Z', '4 hours')
  const rotated = new Date(NOW.getTime() + 2 * 3600e3 + 1000)
  t.ok(s.needsRotation(rotated))
  const c = inspectSignedMessage(await s.sign(LIST, rotated))
  t.equal(made, 2, 'rotated when less than 2 h remain')
  t.equal(destroyed, 1, 'the replaced one-off key is destroyed')
  t.not(c.ee.serial, a.ee.serial)
  t.same(c.ee.ski, OTHER_KEY.ski)
  const crlA = unwrapMessage(wrapMessage(LIST, s, rotated), opts({ now: rotated })).crl
  t.ok((crlA?.crlNumber ?? 0n) > (unwrapMessage(await ourSigner().sign(LIST, NOW), opts()).crl?.crlNumber ?? 0n), 'CRL number increases')
  const nearEnd = new Date(c.ee.notAfter.getTime() - 60e3)
  t.throws(() => wrapMessage(LIST, s, nearEnd), /prepare/, 'never used with less than 5 minutes left')
  t.throws(() => new MessageSigner({ idKey: ID_KEY, idCert: ID_CERT, eeLifetimeSeconds: 3600, rotateBeforeSeconds: 3600 }), RangeError)
  await t.rejects(new MessageSigner({ idKey: ID_KEY, idCert: ID_CERT }).prepare(NOW), /newEeKey/)
})

//------------ Negative cases --------------------------------------------------------------------------------------------

interface Parts {
  content?: Uint8Array
  eContentType?: string
  certs?: Uint8Array[]
  crls?: Uint8Array[]
  attrs?: Uint8Array[]
  signWith?: SigningKey
  sid?: Uint8Array
  signerVersion?: number
  digestAlg?: Uint8Array
  sigAlg?: Uint8Array
  unsigned?: boolean
  signers?: number
}

const EE_CERT = issueIdEeCert({ idKey: ID_KEY, idCert: decodeIdCert(ID_CERT), eeSpki: EE_KEY.spki, serial: 77n, notBefore: new Date(NOW.getTime() - 3600e3), notAfter: new Date(NOW.getTime() + 3600e3) })
const CRL = buildIdCrl({ idKey: ID_KEY, idCert: decodeIdCert(ID_CERT), crlNumber: 1n, thisUpdate: new Date(NOW.getTime() - 3600e3), nextUpdate: new Date(NOW.getTime() + 3600e3) })
const DIGEST = seq(oid(oids.sha256))

function attr(type: string, value: Uint8Array): Uint8Array {
  return seq(oid(type), set(value))
}

function stdAttrs(content: Uint8Array, when = NOW): Uint8Array[] {
  const md = new Uint8Array(createHash('sha256').update(content).digest())
  return [attr(oids.contentType, oid(oids.idCtXml)), attr(oids.signingTime, utcTime(when)), attr(oids.messageDigest, octetString(md))]
}

/** A CMS message built from parts, every field overridable (the DER writer, not wrapMessage). */
function cms(p: Parts = {}): Uint8Array {
  const content = p.content ?? new TextEncoder().encode(LIST)
  const attrs = setOf(p.attrs ?? stdAttrs(content))
  const key = p.signWith ?? EE_KEY
  const si = seq(int(p.signerVersion ?? 3), p.sid ?? tlv(0x80, EE_KEY.ski), p.digestAlg ?? DIGEST, retag(attrs, 0xa0),
    p.sigAlg ?? seq(oid(oids.rsaEncryption), nul()), octetString(key.sign(attrs)), ...(p.unsigned ? [tlv(0xa1, attr(oids.signingTime, utcTime(NOW)))] : []))
  const certs = p.certs ?? [EE_CERT]
  const crls = p.crls ?? [CRL]
  const sd = seq(int(3), set(DIGEST), seq(oid(p.eContentType ?? oids.idCtXml), explicit(0, octetString(content))),
    ...(certs.length ? [tlv(0xa0, certs)] : []), ...(crls.length ? [tlv(0xa1, crls)] : []), set(...Array(p.signers ?? 1).fill(si)))
  return seq(oid(oids.idSignedData), explicit(0, sd))
}

t.test('the test builder makes a valid message', async (t) => {
  t.equal(unwrapMessage(cms(), opts()).xml, LIST)
  t.ok(unwrapMessage(cms({ crls: [] }), opts()), 'no CRL is accepted (APNIC 2011)')
  t.ok(unwrapMessage(cms({ sigAlg: seq(oid(oids.sha256WithRsaEncryption), nul()), digestAlg: seq(oid(oids.sha256), nul()) }), opts()),
    'sha256WithRSAEncryption and NULL digest parameters (RIPE NCC, LACNIC)')
})

t.test('structure and profile violations name their rule', async (t) => {
  const content = new TextEncoder().encode(LIST)
  const roaAttrs = stdAttrs(content)
  roaAttrs[0] = attr(oids.contentType, oid(oids.idCtRouteOriginAuthz))
  refuses(t, () => unwrapMessage(cms({ eContentType: oids.idCtRouteOriginAuthz, attrs: roaAttrs }), opts()), 'RFC 6492 §3.1.1.3.1')
  refuses(t, () => unwrapMessage(cms({ attrs: roaAttrs }), opts()), 'RFC 6492 §3.1.1.6.4.1')
  refuses(t, () => unwrapMessage(cms({ signers: 2 }), opts()), 'RFC 6492 §3.1.1.6', /2 SignerInfos/)
  refuses(t, () => unwrapMessage(cms({ certs: [] }), opts()), 'RFC 6492 §3.1.1.4')
  refuses(t, () => unwrapMessage(cms({ certs: [EE_CERT, EE_CERT] }), opts()), 'RFC 6492 §3.1.1.4')
  refuses(t, () => unwrapMessage(cms({ crls: [CRL, CRL] }), opts()), 'RFC 6492 §3.1.1.5')
  refuses(t, () => unwrapMessage(cms({ signerVersion: 1 }), opts()), 'RFC 6492 §3.1.1.6.1')
  refuses(t, () => unwrapMessage(cms({ sid: tlv(0x80, OTHER_KEY.ski) }), opts()), 'RFC 6492 §3.1.1.6.2', /sid/)
  refuses(t, () => unwrapMessage(cms({ sid: seq(seq(), int(1)) }), opts()), 'RFC 6492 §3.1.1.6.2')
  refuses(t, () => unwrapMessage(cms({ digestAlg: seq(oid('1.3.14.3.2.26')) }), opts()), 'RFC 6492 §3.1.1.6.3')
  refuses(t, () => unwrapMessage(cms({ sigAlg: seq(oid('1.2.840.113549.1.1.5'), nul()) }), opts()), 'RFC 6492 §3.1.1.6.5')
  refuses(t, () => unwrapMessage(cms({ unsigned: true }), opts()), 'RFC 6492 §3.1.1.6.7')
  refuses(t, () => unwrapMessage(cms({ attrs: stdAttrs(content).filter((_, i) => i !== 1) }), opts()), 'RFC 6492 §3.1.1.6.4.3')
  refuses(t, () => unwrapMessage(cms({ attrs: [...stdAttrs(content), attr(oids.signingTime, utcTime(new Date(NOW.getTime() - 1000)))] }), opts()),
    'RFC 6492 §3.1.1.6.4', /twice/)
  refuses(t, () => unwrapMessage(cms({ content: Uint8Array.of(0x3c, 0xff, 0xfe, 0x3e) }), opts()), 'RFC 6492 §3.1.1.3.2', /UTF-8/)
  refuses(t, () => unwrapMessage(seq(oid(oids.idData), explicit(0, octetString(content))), opts()), 'RFC 5652 §3')
})

t.test('cryptographic failures: digest, signature, chain, CRL', async (t) => {
  const content = new TextEncoder().encode(LIST)
  refuses(t, () => unwrapMessage(cms({ attrs: stdAttrs(new TextEncoder().encode('<other/>')) }), opts()), 'RFC 5652 §11.2', /digest/)
  refuses(t, () => unwrapMessage(cms({ signWith: OTHER_KEY }), opts()), 'RFC 5652 §5.6', /signature/)
  const foreignEe = issueIdEeCert({ idKey: OTHER_KEY, idCert: decodeIdCert(OTHER_ID_CERT), eeSpki: EE_KEY.spki, serial: 5n, notBefore: new Date(NOW.getTime() - 3600e3), notAfter: new Date(NOW.getTime() + 3600e3) })
  refuses(t, () => unwrapMessage(cms({ certs: [foreignEe] }), opts()), 'RFC 6492 §3.1.1.4', /authorityKeyIdentifier/)
  // Same names and AKI as ours, but signed by another key.
  const forged = issueIdEeCert({ idKey: { ...OTHER_KEY, ski: ID_KEY.ski }, idCert: decodeIdCert(ID_CERT), eeSpki: EE_KEY.spki, serial: 6n, notBefore: new Date(NOW.getTime() - 3600e3), notAfter: new Date(NOW.getTime() + 3600e3) })
  refuses(t, () => unwrapMessage(cms({ certs: [forged] }), opts()), 'RFC 6492 §3.1.1.4', /not signed/)
  const expired = issueIdEeCert({ idKey: ID_KEY, idCert: decodeIdCert(ID_CERT), eeSpki: EE_KEY.spki, serial: 8n, notBefore: new Date(NOW.getTime() - 7200e3), notAfter: new Date(NOW.getTime() - 3600e3) })
  refuses(t, () => unwrapMessage(cms({ certs: [expired] }), opts()), 'RFC 5280 §6.1.3', /EE certificate expired/)
  const revoked = buildIdCrl({ idKey: ID_KEY, idCert: decodeIdCert(ID_CERT), crlNumber: 2n, thisUpdate: new Date(NOW.getTime() - 60e3), nextUpdate: new Date(NOW.getTime() + 3600e3), revoked: [{ serial: 3n, revocationDate: NOW }, { serial: 77n, revocationDate: NOW }] })
  refuses(t, () => unwrapMessage(cms({ crls: [revoked] }), opts()), 'RFC 5280 §6.3', /revoked/)
  const otherCrl = buildIdCrl({ idKey: { ...OTHER_KEY, ski: ID_KEY.ski }, idCert: decodeIdCert(ID_CERT), crlNumber: 2n, thisUpdate: NOW, nextUpdate: new Date(NOW.getTime() + 3600e3) })
  refuses(t, () => unwrapMessage(cms({ crls: [otherCrl] }), opts()), 'RFC 6492 §3.1.1.5', /not signed/)
  const stale = buildIdCrl({ idKey: ID_KEY, idCert: decodeIdCert(ID_CERT), crlNumber: 2n, thisUpdate: new Date(NOW.getTime() - 7200e3), nextUpdate: new Date(NOW.getTime() - 3600e3) })
  refuses(t, () => unwrapMessage(cms({ crls: [stale] }), opts()), 'RFC 6492 §3.1.1.5', /expired/)
  refuses(t, () => unwrapMessage(cms(), opts({ idCert: OTHER_ID_CERT })), 'RFC 6492 §3.1.1.4')
  refuses(t, () => unwrapMessage(cms(), opts({ now: new Date('2042-01-01T00:00:00Z') })), 'RFC 6492 §3.1.1.6.4.3')
  t.ok(content.length > 0)
})

t.test('signing-time window: future, old (replay), before the last accepted message', async (t) => {
  const content = new TextEncoder().encode(LIST)
  const at = (ms: number) => cms({ attrs: stdAttrs(content, new Date(NOW.getTime() + ms)) })
  t.ok(unwrapMessage(at(4 * 60e3), opts()), '4 minutes ahead is clock skew')
  refuses(t, () => unwrapMessage(at(6 * 60e3), opts()), 'RFC 6492 §3.1.1.6.4.3', /future/)
  t.ok(unwrapMessage(at(-9 * 60e3), opts()), '9 minutes old is accepted')
  refuses(t, () => unwrapMessage(at(-11 * 60e3), opts()), 'RFC 6492 §3.1.1.6.4.3', /replay/)
  t.ok(unwrapMessage(at(-60e3), opts({ maxAgeSeconds: 120, maxSkewSeconds: 10 })))
  refuses(t, () => unwrapMessage(at(-180e3), opts({ maxAgeSeconds: 120 })), 'RFC 6492 §3.1.1.6.4.3')
  refuses(t, () => unwrapMessage(at(-2000), opts({ lastSigningTime: new Date(NOW.getTime() - 1000) })), 'RFC 6492 §3.1.1.6.4.3', /last accepted message/)
  t.ok(unwrapMessage(at(-1000), opts({ lastSigningTime: new Date(NOW.getTime() - 1000) })), 'the same second is accepted')
})

t.test('hostile input: truncated, garbage, deeply nested, 32 MiB', async (t) => {
  const good = cms()
  for (const n of [0, 1, 2, 10, 100, good.length - 1]) {
    typed(t, () => unwrapMessage(good.subarray(0, n), opts()), `truncated to ${n}`)
  }
  const deep = new Uint8Array(200_000)
  for (let i = 0; i < deep.length; i += 2) deep.set([0x30, 0x80], i)
  typed(t, () => unwrapMessage(deep, opts()), 'indefinite nesting 100,000 deep')
  const definite = new Uint8Array(4000)
  for (let i = 0; i < 1000; i++) definite.set([0x30, 0x82, ((4000 - 4 * i - 4) >> 8) & 0xff, (4000 - 4 * i - 4) & 0xff], 4 * i)
  typed(t, () => unwrapMessage(definite, opts()), 'definite nesting 1,000 deep')
  const big = new Uint8Array(32 * 1024 * 1024)
  for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24
  let t0 = performance.now()
  typed(t, () => unwrapMessage(big, opts()), '32 MiB of noise')
  typed(t, () => unwrapMessage(Uint8Array.of(0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x00), opts()), 'a 2 GiB length claim')
  const many = new Uint8Array(6 + 32 * 1024 * 1024)
  many.set([0x30, 0x84, 0x02, 0x00, 0x00, 0x00])
  typed(t, () => unwrapMessage(many, opts()), '16 million empty elements in one SEQUENCE')
  noHang(t, t0, 'noise refused')
  const xml = `<msg xmlns="http://www.hactrn.net/uris/rpki/publication-spec/" type="query" version="4"><publish uri="rsync://x/a.cer">${'QUFB'.repeat(8 * 1024 * 1024 - 40)}</publish></msg>`
  t0 = performance.now()
  const bytes = wrapMessage(xml, ourSigner(), NOW)
  const wrapMs = performance.now() - t0
  t0 = performance.now()
  const r = unwrapMessage(bytes, opts())
  t.equal(r.content.length, xml.length, `${(bytes.length / 1048576).toFixed(1)} MiB message: wrap ${wrapMs.toFixed(0)} ms, unwrap ${(performance.now() - t0).toFixed(0)} ms`)
  const flipped = bytes.slice()
  flipped[flipped.length >> 1] ^= 1
  refuses(t, () => unwrapMessage(flipped, opts()), 'RFC 5652 §11.2')
})

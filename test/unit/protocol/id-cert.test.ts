/**
 * src/protocol/id-cert.ts (RFC 8183 §4 BPKI identity certificates): real peers' certificates decode (self-signed or
 * not, any DN), the id_cert JSON view and PEM, and our own identity certificate and CRL checked with OpenSSL.
 */
import t from 'tap'
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { oid, seq, set, tlv } from '../../../src/asn1/der.js'
import { keyIdentifier, keyIdHex } from '../../../src/crypto/key-id.js'
import { buildCert } from '../../../src/objects/cert.js'
import type { SigningKey } from '../../../src/crypto/signer.js'
import { buildIdCrl, createIdCert, decodeIdCert, idCertInfo, idCertPem } from '../../../src/protocol/id-cert.js'
import { decodeBpkiCrl, signedBy } from '../../../src/protocol/id-cert-x509.js'
import { detectIdExchange } from '../../../src/protocol/idexchange.js'
import { DecodeError } from '../../../src/util/errors.js'
import { fixture, NO_SHARED, sharedFixture } from '../../helpers/paths.js'

const noOpenssl = spawnSync('openssl', ['version']).error ? 'openssl CLI not installed' : false
const NOW = new Date('2026-03-01T12:00:00Z')

/** A SigningKey over a fixed PKCS#8 PEM key in fixtures/keys/. */
function fixedKey(name: string): SigningKey {
  const pk = createPrivateKey(readFileSync(fixture('keys', `${name}.pem`)))
  const spki = new Uint8Array(createPublicKey(pk).export({ type: 'spki', format: 'der' }))
  const ski = keyIdentifier(spki)
  return { keyId: keyIdHex(ski), ski, spki, sign: (d) => new Uint8Array(sign('sha256', d, pk)) }
}

function openssl(args: string[], input?: Uint8Array): { status: number | null; out: string } {
  const r = spawnSync('openssl', args, { input })
  return { status: r.status, out: r.stdout.toString() + r.stderr.toString() }
}

function withTmp<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'svc-idcert-'))
  try {
    return fn(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

t.test('real BPKI certificates decode: self-signed or not, any DN', { skip: NO_SHARED }, async (t) => {
  const dir = sharedFixture('rfc6492', 'cms') as string
  const expected: Record<string, { selfSigned: boolean; subject: string }> = {
    'afrinic-bpki-id.cer': { selfSigned: false, subject: 'C=ZA, ST=Gauteng, O=AFRINIC Ltd, OU=Infrastructure Unit, CN=RPKI Intermediate CA, emailAddress=sysadmin@afrinic.net' },
    'krill-ca1-bpki-id.cer': { selfSigned: true, subject: 'CN=F6BAD547208CD1780164AEFC882D95B3C74248F9' },
    'lacnic-bpki-id.cer': { selfSigned: true, subject: 'CN=bpki O=lacnic' },
    'ripencc-bpki-id.cer': { selfSigned: true, subject: 'C=NL, O=RIPE NCC, CN=RIPE NCC Resources' },
    'rpkid-carol-bpki-ta.cer': { selfSigned: true, subject: 'CN=Carol BPKI Resource Trust Anchor' },
  }
  for (const [file, want] of Object.entries(expected)) {
    const der = new Uint8Array(readFileSync(join(dir, file)))
    const c = decodeIdCert(der)
    t.equal(c.selfSigned, want.selfSigned, `${file} self-signed`)
    t.equal(c.subject, want.subject, `${file} subject`)
    t.same(c.der, der)
    t.equal(c.ski.length, 20)
    t.ok(c.notBefore < c.notAfter)
    if (!noOpenssl) {
      const ski = openssl(['x509', '-inform', 'DER', '-noout', '-ext', 'subjectKeyIdentifier'], der).out
      t.match(ski.replace(/:/g, '').toLowerCase(), Buffer.from(c.ski).toString('hex'), `${file} SKI as OpenSSL reads it`)
    }
  }
  t.equal(decodeIdCert(new Uint8Array(readFileSync(join(dir, 'afrinic-bpki-id.cer')))).issuer,
    'C=ZA, ST=Gauteng, L=JNB, O=AFRINIC Ltd, OU=Infrastructure Unit, CN=RPKI Root CA, emailAddress=sysadmin@afrinic.net')
})

t.test('the identity certificate of every RFC 8183 document decodes', { skip: NO_SHARED }, async (t) => {
  const base = sharedFixture('rfc8183') as string
  const seen: Record<string, boolean> = {}
  for (const kind of ['child_request', 'parent_response', 'publisher_request', 'repository_response']) {
    for (const f of readdirSync(join(base, kind))) {
      let doc
      try {
        doc = detectIdExchange(readFileSync(join(base, kind, f)))
      } catch {
        continue // legacy and negative documents are refused by idexchange.ts itself
      }
      const c = decodeIdCert(doc.doc.idCert)
      seen[`${kind}/${f}`] = c.selfSigned
      t.equal(idCertInfo(c).hash.length, 64, `${kind}/${f}`)
    }
  }
  t.equal(seen['parent_response/apnic-oob-prefix-crlf.xml'], false, "APNIC's BPKI TA is issued by another root")
  t.equal(seen['child_request/krill-for-apnic.xml'], true)
  t.ok(Object.keys(seen).length >= 20, `${Object.keys(seen).length} documents`)
  const bob = decodeIdCert(new Uint8Array(readFileSync(join(base, 'bpki', 'rpkid-bob-bpki-ta.cer'))))
  t.equal(bob.subject, 'CN=Bob BPKI Resource Trust Anchor')
  t.ok(bob.selfSigned)
})

t.test('id_cert JSON view and PEM', async (t) => {
  const key = fixedKey('bpki-id')
  const der = createIdCert(key, NOW, 15, 0x1234n)
  const info = idCertInfo(der)
  t.same(Object.keys(info), ['public_key', 'base64', 'hash'])
  t.equal(info.public_key, Buffer.from(key.spki).toString('base64'))
  t.equal(info.base64, Buffer.from(der).toString('base64'))
  t.equal(info.hash, createHash('sha256').update(key.spki).digest('hex'))
  t.match(info.hash, /^[0-9a-f]{64}$/)
  t.same(idCertInfo(decodeIdCert(der)), info)
  const pem = idCertPem(der)
  t.match(pem, /^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=]{64}\n)+[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE-----\n$/)
  if (!noOpenssl) {
    const back = spawnSync('openssl', ['x509', '-outform', 'DER'], { input: pem })
    t.same(new Uint8Array(back.stdout), der, 'OpenSSL reads the PEM back to the same DER')
  }
})

t.test('createIdCert: self-signed BPKI CA certificate, 15 years, CN = key id', async (t) => {
  const key = fixedKey('bpki-id')
  const der = createIdCert(key, NOW)
  const c = decodeIdCert(der)
  t.ok(c.selfSigned)
  t.equal(c.version, 3)
  t.equal(c.subject, `CN=${key.keyId}`)
  t.equal(c.issuer, c.subject)
  t.ok(c.serial > 0n && c.serial < 1n << 159n, 'positive serial within 20 octets')
  t.not(decodeIdCert(createIdCert(key, NOW)).serial, c.serial, 'serials are random')
  t.same(c.ski, key.ski)
  t.ok(c.skiFromExtension)
  t.equal(c.aki, undefined, 'RFC 5280 §4.2.1.1: AKI omitted in a self-signed certificate')
  t.equal(c.ca, true)
  t.equal(c.notBefore.toISOString(), '2026-03-01T11:55:00.000Z')
  t.equal(c.notAfter.toISOString(), '2041-03-01T12:00:00.000Z')
  t.equal(decodeIdCert(createIdCert(key, NOW, 1)).notAfter.toISOString(), '2027-03-01T12:00:00.000Z')
  t.ok(signedBy(c, key.spki))
  if (noOpenssl) return
  withTmp((dir) => {
    writeFileSync(join(dir, 'id.pem'), idCertPem(der))
    const text = openssl(['x509', '-in', join(dir, 'id.pem'), '-noout', '-text']).out
    t.match(text, /CA:TRUE/)
    t.match(text, /X509v3 Basic Constraints: critical/)
    t.match(text, /X509v3 Key Usage: critical\s+Certificate Sign, CRL Sign/)
    t.notMatch(text, /sbgp|Subject Information Access|Policies/)
    const v = openssl(['verify', '-x509_strict', '-attime', String(NOW.getTime() / 1000), '-CAfile', join(dir, 'id.pem'), join(dir, 'id.pem')])
    t.equal(v.status, 0, v.out)
  })
})

t.test('buildIdCrl: empty BPKI CRL with number and nextUpdate, verified by OpenSSL', async (t) => {
  const key = fixedKey('bpki-id')
  const idDer = createIdCert(key, NOW, 15, 7n)
  const idCert = decodeIdCert(idDer)
  const crlDer = buildIdCrl({ idKey: key, idCert, crlNumber: 42n, thisUpdate: NOW, nextUpdate: new Date(NOW.getTime() + 3600e3) })
  const crl = decodeBpkiCrl(crlDer)
  t.equal(crl.issuer, idCert.subject)
  t.equal(crl.crlNumber, 42n)
  t.same(crl.revoked, [])
  t.same(crl.aki, key.ski)
  t.equal(crl.nextUpdate?.toISOString(), '2026-03-01T13:00:00.000Z')
  t.ok(signedBy(crl, idCert.spki))
  const listed = decodeBpkiCrl(buildIdCrl({ idKey: key, idCert, crlNumber: 43n, thisUpdate: NOW, nextUpdate: NOW, revoked: [{ serial: 99n, revocationDate: NOW }] }))
  t.same(listed.revoked, [99n])
  if (noOpenssl) return
  withTmp((dir) => {
    writeFileSync(join(dir, 'id.pem'), idCertPem(idDer))
    writeFileSync(join(dir, 'crl.der'), crlDer)
    const v = openssl(['crl', '-inform', 'DER', '-in', join(dir, 'crl.der'), '-CAfile', join(dir, 'id.pem'), '-noout', '-text'])
    t.match(v.out, /verify OK/)
    t.match(v.out, /X509v3 CRL Number:\s+42/)
    t.match(v.out, /No Revoked Certificates/)
  })
})

t.test('names in any string type are shown as text (BMP, UTF8, Universal, T61), escaped', async (t) => {
  const key = fixedKey('bpki-other')
  const atv = (type: string, tag: number, bytes: Uint8Array) => set(seq(oid(type), tlv(tag, bytes)))
  const name = seq(
    atv('2.5.4.6', 0x13, Buffer.from('SE')),
    atv('2.5.4.10', 0x1e, Buffer.from('\u00d6rebro, AB', 'utf16le').swap16()),
    atv('2.5.4.11', 0x14, Buffer.from('Caf\u00e9', 'latin1')),
    atv('2.5.4.3', 0x0c, Buffer.from('r\u00e9seau+1', 'utf8')),
    atv('2.5.4.7', 0x1c, Uint8Array.of(0, 1, 0xf6, 0x00)),
  )
  const der = buildCert({ profile: 'bpki', kind: 'ca', serial: 1n, issuerName: name, subjectName: name, subjectSpki: key.spki, notBefore: NOW, notAfter: NOW }, key)
  const c = decodeIdCert(der)
  t.equal(c.subject, 'C=SE, O=\u00d6rebro\\, AB, OU=Caf\u00e9, CN=r\u00e9seau\\+1, L=\u{1f600}')
  t.ok(c.selfSigned)
})

t.test('garbage is a DecodeError naming RFC 8183 §4', async (t) => {
  const key = fixedKey('bpki-id')
  const der = createIdCert(key, NOW, 15, 1n)
  for (const bad of [new Uint8Array(0), Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01), der.subarray(0, der.length - 10), new Uint8Array(1000).fill(0x30)]) {
    try {
      decodeIdCert(bad)
      t.fail('decoded garbage')
    } catch (e) {
      t.ok(e instanceof DecodeError && e.rule === 'RFC 8183 §4', String(e))
    }
  }
})

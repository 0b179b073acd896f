/**
 * The self-signed TLS certificate svcd makes for `https_mode = "generate"` (design.md "Serving"): RSA-2048,
 * CN=localhost, SAN DNS:localhost, IP:127.0.0.1, IP:::1 (plus the service_uri host), CA:TRUE so relying parties
 * can be given it as the trust anchor for our RRDP server. Written with the project's DER writer.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto'
import { isIP } from 'node:net'
import { bitString, bool, explicit, implicit, int, nul, octetString, oid, printableString, seq, set, uintFromBytes, x509Time } from './asn1/der.js'
import * as oids from './asn1/oids.js'
import { keyIdentifier, keyIdHex } from './crypto/key-id.js'

const SUBJECT_ALT_NAME = '2.5.29.17'
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1'
const VALIDITY_DAYS = 3650

/** A new key and self-signed certificate, both PEM. `hosts` are extra DNS names or IP addresses for the SAN. */
export function generateTlsCertificate(now: Date, hosts: string[] = []): { certPem: string; keyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 65537 })
  const spki = new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }))
  const alg = seq(oid(oids.sha256WithRsaEncryption), nul())
  // A unique subject (CN=localhost plus the key id as serialNumber): OpenSSL finds trust anchors by subject, so two
  // svcd certificates both named only CN=localhost, trusted side by side (e.g. by rpki-client), would be confused.
  const name = seq(set(seq(oid(oids.idAtCommonName), printableString('localhost'))), set(seq(oid(oids.idAtSerialNumber), printableString(keyIdHex(keyIdentifier(spki))))))
  const notBefore = new Date(Math.floor(now.getTime() / 1000) * 1000 - 3600_000)
  const notAfter = new Date(notBefore.getTime() + VALIDITY_DAYS * 86400_000)
  const serial = randomBytes(16)
  serial[0] &= 0x7f
  const tbs = seq(
    explicit(0, int(2)),
    uintFromBytes(serial),
    alg,
    name,
    seq(x509Time(notBefore), x509Time(notAfter)),
    name,
    spki,
    explicit(3, seq(...extensions(spki, hosts))),
  )
  const signature = new Uint8Array(sign('sha256', tbs, privateKey))
  const cert = seq(tbs, alg, bitString(signature))
  return { certPem: pem('CERTIFICATE', cert), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string }
}

function extensions(spki: Uint8Array, hosts: string[]): Uint8Array[] {
  const ext = (id: string, critical: boolean, value: Uint8Array) => (critical ? seq(oid(id), bool(true), octetString(value)) : seq(oid(id), octetString(value)))
  const names = ['localhost', '127.0.0.1', '::1', ...hosts.filter((h) => !['localhost', '127.0.0.1', '::1'].includes(h))]
  const ski = keyIdentifier(spki)
  return [
    ext(oids.basicConstraints, true, seq(bool(true))),
    // digitalSignature, keyEncipherment, keyCertSign: bits 0, 2, 5 → 1010 0100, unused 2
    ext(oids.keyUsage, true, bitString(Uint8Array.of(0xa4), 2)),
    ext(oids.extKeyUsage, false, seq(oid(SERVER_AUTH))),
    ext(oids.subjectKeyIdentifier, false, octetString(ski)),
    ext(SUBJECT_ALT_NAME, false, seq(...names.map(generalName))),
  ]
}

/** GeneralName: dNSName [2] or iPAddress [7] (RFC 5280 §4.2.1.6). */
function generalName(host: string): Uint8Array {
  const h = host.replace(/^\[|\]$/g, '')
  const family = isIP(h)
  if (family === 4) return implicit(7, Uint8Array.from(h.split('.').map(Number)))
  if (family === 6) return implicit(7, ipv6Bytes(h))
  return implicit(2, new TextEncoder().encode(h))
}

function ipv6Bytes(text: string): Uint8Array {
  const [head, tail] = text.split('::')
  const left = head ? head.split(':') : []
  const right = tail !== undefined ? (tail ? tail.split(':') : []) : []
  const groups = tail !== undefined ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left
  const out = new Uint8Array(16)
  groups.forEach((g, i) => {
    const v = parseInt(g, 16)
    out[2 * i] = v >> 8
    out[2 * i + 1] = v & 0xff
  })
  return out
}

function pem(label: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{1,64}/g, '$&\n')
  return `-----BEGIN ${label}-----\n${b64}-----END ${label}-----\n`
}

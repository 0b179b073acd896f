/**
 * Identity certificates of every shape a peer must not get registered with (issue 10, defect 8b): expired, not yet
 * valid, not a CA certificate, a broken self-signature, RSA-1024 and EC P-256. Made with openssl and with our own
 * certificate writer at shifted times; each is otherwise a plausible self-signed BPKI certificate.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createIdCert } from '../../src/protocol/id-cert.js'
import { testKey } from './keys.js'

/** A self-signed certificate made by `openssl req -x509` with the given key options and extensions (DER). */
function opensslCert(newkey: string[], extensions: string): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'svc-badid-'))
  try {
    const cfg = join(dir, 'req.cnf')
    writeFileSync(cfg, `[req]\ndistinguished_name = dn\nx509_extensions = ext\nprompt = no\n[dn]\nCN = bad identity\n[ext]\n${extensions}\n`)
    execFileSync('openssl', ['req', '-x509', ...newkey, '-nodes', '-keyout', join(dir, 'k.pem'), '-days', '365', '-config', cfg, '-outform', 'DER', '-out', join(dir, 'c.der')], { stdio: 'pipe' })
    return new Uint8Array(readFileSync(join(dir, 'c.der')))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const CA_EXT = 'basicConstraints = critical, CA:true\nkeyUsage = critical, keyCertSign, cRLSign\nsubjectKeyIdentifier = hash'

/** Each refused shape with the rule its refusal cites. */
export function badIdCerts(now = new Date()): { name: string; der: Uint8Array; rule: RegExp }[] {
  const day = 86_400_000
  const badSig = createIdCert(testKey(), now)
  badSig[badSig.length - 10] ^= 0x5a
  return [
    { name: 'expired', der: createIdCert(testKey(), new Date(now.getTime() - 400 * day), 1), rule: /RFC 5280 §4\.1\.2\.5: identity certificate: expired/ },
    { name: 'not yet valid', der: createIdCert(testKey(), new Date(now.getTime() + 30 * day)), rule: /RFC 5280 §4\.1\.2\.5: identity certificate: not valid before/ },
    { name: 'not a CA certificate', der: opensslCert(['-newkey', 'rsa:2048'], 'basicConstraints = critical, CA:false\nsubjectKeyIdentifier = hash'), rule: /RFC 5280 §4\.2\.1\.9/ },
    { name: 'a bad self-signature', der: badSig, rule: /RFC 5280 §6\.1: identity certificate: self-issued, but its signature does not verify/ },
    { name: 'RSA-1024', der: opensslCert(['-newkey', 'rsa:1024'], CA_EXT), rule: /RFC 7935 §3: identity certificate: the RSA key has 1024 bits/ },
    { name: 'EC P-256', der: opensslCert(['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], CA_EXT), rule: /RFC 7935 §3: identity certificate: the key is EC, not RSA/ },
  ]
}

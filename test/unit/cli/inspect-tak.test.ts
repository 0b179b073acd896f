/** `svcc inspect` of a Trust Anchor Key object (RFC 9691), in-process: its keys in text and JSON, and a broken one's rule. */
import t from 'tap'
import { systemClock } from '../../../src/clock.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { seq, int } from '../../../src/asn1/der.js'
import { idCtSignedTal } from '../../../src/asn1/oids.js'
import { runCli } from '../../../src/cli/program.js'
import { buildCert } from '../../../src/objects/cert.js'
import { encodeSignedData } from '../../../src/objects/signed-object.js'
import { buildTak, encodeTakContent, type TaKey } from '../../../src/objects/tak.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { GOLDEN_BASE, GOLDEN_FROM, GOLDEN_UNTIL } from '../../helpers/golden-objects.js'

const ta = testKey('rpki-ta')
const next = testKey('rpki-ca')
const issuer = { key: ta, name: ta.keyId, crlUri: `${GOLDEN_BASE}repo/ta/${ta.keyId}.crl`, certUri: `${GOLDEN_BASE}ta/ta.cer` }
const ee = { serial: 5n, uri: `${GOLDEN_BASE}repo/ta/${ta.keyId}.tak`, notBefore: GOLDEN_FROM, notAfter: GOLDEN_UNTIL, signingTime: GOLDEN_FROM }
const current: TaKey = { comments: ['test TA'], certificateURIs: ['https://rpki.example.net/ta/ta.cer', `${GOLDEN_BASE}ta/ta.cer`], spki: ta.spki }
const successor: TaKey = { comments: [], certificateURIs: [`https://rpki.example.net/ta/ta-${next.keyId}.cer`], spki: next.spki }

async function inspect(bytes: Uint8Array, ...flags: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-inspect-tak-'))
  try {
    const file = join(dir, 'x.tak')
    writeFileSync(file, bytes)
    let out = ''
    let err = ''
    const code = await runCli(['inspect', file, ...flags], { out: (s) => (out += s), err: (s) => (err += s), env: {}, readStdin: () => '', clock: systemClock })
    return { code, out, err }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

t.test('a TAK with a successor: both keys, their URIs and comments; it conforms and its signature verifies', async (t) => {
  const r = await inspect(buildTak({ current, successor }, testKey('rpki-ee-4'), issuer, ee))
  t.equal(r.code, 0, r.err)
  t.match(r.out, /Type: +Trust Anchor Key \(RFC 9691\)/)
  t.match(r.out, new RegExp(`Current:\\n +Key id: +${ta.keyId}\\n +URI: +https://rpki.example.net/ta/ta.cer\\n +URI: +rsync://`))
  t.match(r.out, /# test TA/)
  t.match(r.out, new RegExp(`Successor:\\n +Key id: +${next.keyId}`))
  t.notMatch(r.out, /Predecessor/)
  const json = await inspect(buildTak({ current, successor }, testKey('rpki-ee-4'), issuer, ee), '-f', 'json')
  t.match(JSON.parse(json.out), { type: 'tak', version: 0, current: { key_id: ta.keyId, comments: ['test TA'] }, successor: { key_id: next.keyId, certificate_uris: successor.certificateURIs } })
})

t.test('a TAK that breaks the profile: exit 1 with the RFC 9691 rule', async (t) => {
  const k = testKey('rpki-ee-5')
  const eeCert = buildCert({
    profile: 'rpki', kind: 'ee', serial: 7n, issuerName: ta.keyId, subjectName: k.keyId, subjectSpki: k.spki, notBefore: GOLDEN_FROM, notAfter: GOLDEN_UNTIL,
    crldp: issuer.crlUri, aia: issuer.certUri, sia: { signedObject: ee.uri }, resources: { ipv4: 'inherit', ipv6: 'inherit', asn: 'inherit' },
  }, ta)
  const outer = encodeTakContent({ current })
  const takey = outer.subarray(outer[1]! < 0x80 ? 2 : 2 + (outer[1]! & 0x7f))
  const versioned = seq(int(1), takey)
  const r = await inspect(encodeSignedData(idCtSignedTal, versioned, eeCert, k, GOLDEN_FROM))
  t.equal(r.code, 1, 'decodes, but breaks the profile')
  t.match(r.out, /RFC 9691 §3: version 1, expected 0/)
})

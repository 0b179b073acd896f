/**
 * inspectIdCert (src/protocol/id-cert.ts, issue 10 defect 8b): the one check of an identity certificate before it is
 * registered for a child, publisher, parent or repository. Every refused shape names its rule; the identity
 * certificates of other implementations (Krill, Amazon, RIPE NCC, LACNIC, rpkid, APNIC, AFRINIC) pass within their
 * validity, and ours does.
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createIdCert, decodeIdCert, inspectIdCert } from '../../../src/protocol/id-cert.js'
import { detectIdExchange } from '../../../src/protocol/idexchange.js'
import { badIdCerts } from '../../helpers/bad-id-certs.js'
import { testKey } from '../../helpers/keys.js'
import { NO_SHARED, sharedFixture } from '../../helpers/paths.js'

t.test('our own identity certificate passes', async (t) => {
  const now = new Date()
  t.ok(inspectIdCert(createIdCert(testKey(), now), now).selfSigned)
})

t.test('each refused shape is refused with its rule', async (t) => {
  const now = new Date()
  for (const bad of badIdCerts(now)) t.throws(() => inspectIdCert(bad.der, now), { message: bad.rule }, bad.name)
  t.throws(() => inspectIdCert(new TextEncoder().encode('not a certificate'), now), { name: 'DecodeError', message: /RFC 8183 §4/ }, 'not a certificate at all')
})

/** Every identity certificate in the shared fixtures: from RFC 8183 documents and the RFC 6492 BPKI certificates. */
function realIdCerts(): { name: string; der: Uint8Array }[] {
  const out: { name: string; der: Uint8Array }[] = []
  for (const kind of ['child_request', 'parent_response', 'publisher_request', 'repository_response']) {
    const dir = sharedFixture('rfc8183', kind)!
    for (const f of readdirSync(dir)) {
      try {
        out.push({ name: `${kind}/${f}`, der: detectIdExchange(readFileSync(join(dir, f))).doc.idCert })
      } catch {
        // Documents that do not decode (legacy, broken base64) are the decoder's tests, not this one's.
      }
    }
  }
  const cms = sharedFixture('rfc6492', 'cms')!
  for (const f of readdirSync(cms).filter((n) => n.endsWith('.cer'))) out.push({ name: `rfc6492/${f}`, der: new Uint8Array(readFileSync(join(cms, f))) })
  out.push({ name: 'rfc8183/bpki/rpkid-bob-bpki-ta.cer', der: new Uint8Array(readFileSync(sharedFixture('rfc8183', 'bpki', 'rpkid-bob-bpki-ta.cer')!)) })
  return out
}

t.test("other implementations' identity certificates pass within their validity", { skip: NO_SHARED }, async (t) => {
  const certs = realIdCerts()
  t.ok(certs.length >= 25, `${certs.length} certificates`)
  for (const { name, der } of certs) {
    const c = decodeIdCert(der)
    const during = new Date(c.notBefore.getTime() + 86_400_000)
    t.doesNotThrow(() => inspectIdCert(der, during), `${name} (${c.subject}, ${c.selfSigned ? 'self-signed' : `issued by ${c.issuer}`})`)
    if (c.notAfter < new Date()) t.throws(() => inspectIdCert(der, new Date()), { message: /expired/ }, `${name} has expired by now and is refused`)
  }
})

t.test('a certificate made a moment ago by a peer whose clock is ahead is accepted; a day ahead is not', async (t) => {
  const now = new Date()
  t.doesNotThrow(() => inspectIdCert(createIdCert(testKey(), new Date(now.getTime() + 4 * 60_000 + 5 * 60_000)), now), 'notBefore 4 minutes ahead')
  t.throws(() => inspectIdCert(createIdCert(testKey(), new Date(now.getTime() + 86_400_000)), now), { message: /not valid before/ }, 'notBefore a day ahead')
})

/**
 * A CA aggregate without a database (style.md §8 "Domain tests"): one resource class under parent 'p', certified by a
 * test key, with `run` applying a command's events to the state. Shared by the domain tests of the CA (cert-auth) and
 * of key rolls into a named signer (keyroll-signer).
 */
import { generateRsaKeyPair, KeyPool } from '../../src/crypto/key-pool.js'
import type { Signer } from '../../src/crypto/signer.js'
import { initialState, processCommand } from '../../src/ca/cert-auth.js'
import type { CaContext } from '../../src/ca/context.js'
import { applyEvent } from '../../src/ca/events.js'
import type { CaState } from '../../src/ca/state.js'
import { buildCert, serialFromRandom } from '../../src/objects/cert.js'
import { ResourceSet } from '../../src/resources/resource-set.js'
import { toBase64 } from '../../src/util/base64.js'
import { testKey } from './keys.js'

/** A key pool that hands out four pre-made RSA-2048 pairs in turn (no key generation per test). */
export async function recycledPool(): Promise<KeyPool> {
  const pairs = await Promise.all(Array.from({ length: 4 }, () => generateRsaKeyPair()))
  let i = 0
  return new KeyPool({ size: 0, concurrency: 1, generate: async () => pairs[i++ % pairs.length] })
}

/** ca1 under parent 'p' (AS65000-65010, 10.0.0.0/8), its class '0' certified, signing through `signer`. */
export async function certifiedCa(signer: Signer) {
  const ctx: CaContext = { now: new Date('2026-06-01T00:00:00Z'), signer, random: (n) => new Uint8Array(n).fill(7), timing: { childCertValidSeconds: 86400 * 365, childCertReissueBeforeSeconds: 86400 * 28 } }
  const parentKey = testKey()
  const s: CaState = initialState('ca1', await signer.createKey(), toBase64(new Uint8Array([1])))
  s.repo = { embedded: true, publisherHandle: 'ca1', serviceUri: 'https://localhost/rfc8181/ca1/', siaBase: 'rsync://localhost/repo/ca1/', rrdpNotificationUri: 'https://localhost/rrdp/notification.xml', serverIdCert: '' }
  const run = async (c: Parameters<typeof processCommand>[1]) => {
    const events = await processCommand(structuredClone(s), c, ctx)
    for (const e of events) applyEvent(s, e)
    return events
  }
  await run({ type: 'parent-add', parent: { name: 'p', parentHandle: 'p', childHandle: 'ca1', serviceUri: 'https://localhost/rfc6492/p', idCert: '' } })
  const held = ResourceSet.parse({ asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await run({ type: 'parent-entitlements-update', parent: 'p', classes: [{ className: 'pc', resources: held.toJSON(), notAfter: '2027-06-01T00:00:00.000Z', issued: [] }] })
  const certify = async (keyId: string) => {
    const der = buildCert({ profile: 'rpki', kind: 'ca', serial: serialFromRandom(new Uint8Array(20).fill(3)), issuerName: parentKey.keyId, subjectName: keyId, subjectSpki: signer.signingKey(keyId).spki, notBefore: new Date('2026-05-01'), notAfter: new Date('2027-06-01'), crldp: 'rsync://localhost/repo/p/0/x.crl', aia: 'rsync://localhost/repo/p/0/p.cer', sia: { caRepository: 'rsync://localhost/repo/ca1/0/', rpkiManifest: `rsync://localhost/repo/ca1/0/${keyId}.mft` }, resources: { ipv4: held.ipv4, asn: held.asn } }, parentKey)
    return run({ type: 'certificate-receive', parent: 'p', className: '0', keyId, cert: toBase64(der), uri: 'rsync://localhost/repo/p/0/ca1.cer' })
  }
  await certify(s.classes['0'].current!.keyId)
  return { s, run, certify, ctx }
}

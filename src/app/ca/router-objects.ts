/**
 * The BGPsec router certificates of a CA's current key (RFC 8209; krill-reference.md §3 timings): one per router key
 * whose AS the key's certificate holds (ca/bgpsec.ts plans them), signed with the CA key itself (no one-off key) and
 * self-checked with the library's router profile. Kept until close to expiry; withdrawn and revoked when the
 * definition goes or the AS is no longer held. Called by objects.ts for each current key, only when the CA has any.
 */
import { planRouterCerts } from '../../ca/bgpsec.js'
import type { StoredCaObject } from '../../ca/object-model.js'
import { decodeCert, inspectCert, serialFromRandom, verifyCert, type ResourceCert } from '../../objects/cert.js'
import { decodeCsr } from '../../objects/csr.js'
import { buildRouterCert } from '../../objects/router-cert.js'
import type { ObjectIssuer } from '../../objects/signed-object.js'
import { stillFresh } from '../../ca/renewal.js'
import type { CaState } from '../../ca/state.js'
import { fromBase64 } from '../../util/base64.js'
import type { AspaObjectsContext } from './aspa-objects.js'
import { eeValidity, selfCheck, type KeyWork } from './object-signing.js'
import { sha256Hex } from '../../crypto/digest.js'

/** Bring the key's router certificates in line with the definitions; returns the certificates the self-check refused. */
export function updateRouterCerts(state: CaState, issuer: ObjectIssuer, issuerCert: ResourceCert, work: KeyWork, ctx: AspaObjectsContext): string[] {
  const refused: string[] = []
  for (const p of planRouterCerts(state.bgpsec, issuerCert.resources.asn)) {
    const before = work.old.get(p.name)
    work.old.delete(p.name)
    if (before?.kind === 'router' && stillFresh(before.notAfter, ctx.now, ctx.timing.roaReissueBeforeSeconds)) {
      work.kept.push(before)
      continue
    }
    if (before) work.revoke(before)
    work.changed = true
    const { notBefore, notAfter } = eeValidity(ctx.now, ctx.timing.roaValidSeconds, issuerCert.notAfter)
    const serial = serialFromRandom(ctx.random(20))
    const csr = decodeCsr(fromBase64(p.definition.csr))
    const der = buildRouterCert({ serial, issuerName: issuer.name, asn: p.definition.asn, subjectSpki: csr.spki, notBefore, notAfter, crldp: issuer.crlUri, aia: issuer.certUri }, issuer.key)
    const problems = selfCheck(() => { const c = decodeCert(der); verifyCert(c, issuerCert, ctx.now); return inspectCert(c, 'router') })
    if (problems) {
      refused.push(`${p.name}: ${problems}`)
      continue
    }
    const o: StoredCaObject = { name: p.name, kind: 'router', der, hash: sha256Hex(der), notAfter: notAfter.toISOString(), meta: { serial: serial.toString() } }
    work.kept.push(o)
  }
  return refused
}

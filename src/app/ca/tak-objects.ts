/**
 * The Trust Anchor Key object of each key of the embedded trust anchor (RFC 9691; ca/ta-keyroll.ts for the roll):
 * `<KEYID>.tak` names the key itself as current, with the URIs of its certificate, and during a TA key roll the
 * other key: the current key names the successor (`next`) and, after activation, its predecessor (`old`); the
 * successor names the current key as predecessor, the old key the current one as successor. Kept while its content
 * is unchanged and its EE certificate is not close to expiry; otherwise re-signed with a one-off key and
 * self-checked. Called by objects.ts for every certified key of a CA that is a trust anchor.
 */
import type { StoredCaObject } from '../../ca/object-model.js'
import { classDir } from '../../ca/locations.js'
import type { CaState, ResourceClass, TaCertInfo } from '../../ca/state.js'
import { decodeCert, serialFromRandom, type ResourceCert } from '../../objects/cert.js'
import { takFileName } from '../../objects/naming.js'
import type { ObjectIssuer } from '../../objects/signed-object.js'
import { buildTak, decodeTak, encodeTakContent, inspectTak, type TaKey, type TakSpec, verifyTak } from '../../objects/tak.js'
import { bytesEqual } from '../../util/bytes.js'
import { fromBase64 } from '../../util/base64.js'
import { stillFresh } from '../../ca/renewal.js'
import type { AspaObjectsContext } from './aspa-objects.js'
import { destroy, eeValidity, selfCheck, type KeyWork } from './object-signing.js'
import { sha256Hex } from '../../crypto/digest.js'

type Role = 'current' | 'next' | 'old'

/** The TAKey of a TA certificate: its https and rsync URIs (as in the TAL) and its key. */
export function taKeyOf(c: TaCertInfo): TaKey {
  return { comments: [], certificateURIs: [c.httpsUri, c.rsyncUri], spki: decodeCert(fromBase64(c.certDer)).spki }
}

/** What the TAK of the key in `role` says (RFC 9691 §3): itself as current, and the other key of a roll. */
export function takSpec(state: CaState, role: Role): TakSpec | undefined {
  const ta = state.ta
  const own = role === 'current' ? ta : ta?.[role]
  if (!ta || !own) return undefined
  const spec: TakSpec = { current: taKeyOf(own) }
  if (role === 'current' && ta.old) spec.predecessor = taKeyOf(ta.old)
  if (role === 'current' && ta.next) spec.successor = taKeyOf(ta.next)
  if (role === 'next') spec.predecessor = taKeyOf(ta)
  if (role === 'old') spec.successor = taKeyOf(ta)
  return spec
}

/** Bring the key's TAK in line with the trust anchor's keys; returns the problems of a TAK the self-check refused. */
export async function updateTak(state: CaState, rc: ResourceClass, role: Role, keyId: string, issuer: ObjectIssuer, issuerCert: ResourceCert, work: KeyWork, ctx: AspaObjectsContext): Promise<string[]> {
  const spec = takSpec(state, role)
  if (!spec) return []
  const name = takFileName(keyId)
  const before = work.old.get(name)
  work.old.delete(name)
  const content = encodeTakContent(spec)
  const fresh = before !== undefined && stillFresh(before.notAfter, ctx.now, ctx.timing.roaReissueBeforeSeconds)
  if (before && fresh && bytesEqual(decodeTak(before.der).signedObject.eContent, content)) {
    work.kept.push(before)
    return []
  }
  if (before) work.revoke(before)
  work.changed = true
  const { notBefore, notAfter } = eeValidity(ctx.now, ctx.timing.roaValidSeconds, issuerCert.notAfter)
  const eeKey = await ctx.signer.oneOffKey()
  try {
    const serial = serialFromRandom(ctx.random(20))
    const uri = classDir(state, rc.name) + name
    const der = buildTak(spec, eeKey, issuer, { serial, uri, notBefore, notAfter, signingTime: ctx.now })
    const problems = selfCheck(() => { const t = decodeTak(der); verifyTak(t, issuerCert, ctx.now); return inspectTak(t) })
    if (problems) return [`${uri}: ${problems}`]
    const o: StoredCaObject = { name, kind: 'tak', der, hash: sha256Hex(der), notAfter: notAfter.toISOString(), meta: { serial: serial.toString() } }
    work.kept.push(o)
    return []
  } finally {
    destroy(eeKey)
  }
}

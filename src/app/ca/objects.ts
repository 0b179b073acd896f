/**
 * A CA's published objects per key (design.md §3 "Timing defaults", krill-reference.md §3 and §5): ROAs per
 * resource class (current key only), ASPAs and BGPsec router certificates (aspa-objects.ts, router-objects.ts; current key
 * only, and only for a CA that has any), certificates issued to children, for every certified key a manifest and a
 * CRL, and for every key of a trust anchor its TAK (tak-objects.ts). Objects are re-signed only when needed: a changed set, a ROA close to expiry, or a manifest due for renewal.
 * New one-off EE keys come from the key pool in parallel. Every new object is checked with the library's
 * inspect/verify before it may be published. Not evented (the hybrid rule): the result is stored per CA.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { decodeCert, serialFromRandom, type ResourceCert } from '../../objects/cert.js'
import { buildCrl, decodeCrl, inspectCrl, verifyCrl } from '../../objects/crl.js'
import { buildManifest, decodeManifest, fileHash, inspectManifest, verifyManifest } from '../../objects/manifest.js'
import { buildRoa, decodeRoa, inspectRoa, verifyRoa } from '../../objects/roa.js'
import type { ObjectIssuer } from '../../objects/signed-object.js'
import { certResources } from '../../ca/parents.js'
import { crlUri, classDir, mftUri } from '../../ca/locations.js'
import { nextObjectNumber, NUMBERS_EXHAUSTED } from '../../ca/numbering.js'
import { nextRoaMode, planRoasSliced, type PlannedRoa } from '../../ca/roas.js'
import { certifiedKeys, type CaKey, type CaState, type IncomingCert, type ResourceClass } from '../../ca/state.js'
import { keyIdentifier } from '../../crypto/key-id.js'
import type { Signer } from '../../crypto/signer.js'
import { roaPayloadKey } from '../../resources/roa-payload.js'
import { ResourceSet } from '../../resources/resource-set.js'
import { fromBase64 } from '../../util/base64.js'
import { aggregateRoaFileName, certFileName, crlFileName, manifestFileName, roaFileName } from '../../objects/naming.js'
import type { CaKeyObjects, KeyObjectsState, PublishedFile, StoredCaObject } from '../../ca/object-model.js'
import { certificateExpired, manifestDueAt, stillFresh } from '../../ca/renewal.js'
import { updateAspas } from './aspa-objects.js'
import { updateRouterCerts } from './router-objects.js'
import { updateTak } from './tak-objects.js'
import { destroy, eeValidity, selfCheck, type KeyWork } from './object-signing.js'
import { sha256Hex } from '../../crypto/digest.js'


export interface ObjectsTiming {
  mftNextUpdateSeconds: number
  mftReissueSeconds: number
  /** Manifests re-signed up to this much earlier, spread per key and revision (ca/renewal.ts manifestDueAt). */
  mftReissueJitterSeconds?: number
  roaValidSeconds: number
  roaReissueBeforeSeconds: number
  roaAggregateThreshold: number
  roaDeaggregateThreshold: number
}

export interface ObjectsContext {
  now: Date
  signer: Signer
  random(n: number): Uint8Array
  timing: ObjectsTiming
  /** Re-sign manifests and CRLs even when nothing else is due (bulk publish, forced renewal). */
  force?: boolean
}

export interface ObjectsUpdate {
  keys: CaKeyObjects[]
  /** True when any object was added, replaced or removed. */
  changed: boolean
  /** Objects refused by the self-check, with the reason (the CA's issue). */
  refused: string[]
  /** Keys whose certificate has expired: nothing is signed under them until the parent issues a new one. */
  expired: ExpiredKey[]
}

export interface ExpiredKey {
  className: string
  keyId: string
  parent: string
  notAfter: string
}

/** Bring a CA's objects up to date with its state. */
export async function updateObjects(state: CaState, previous: readonly CaKeyObjects[], ctx: ObjectsContext): Promise<ObjectsUpdate> {
  const keys: CaKeyObjects[] = []
  const refused: string[] = []
  const expired: ExpiredKey[] = []
  let changed = previous.some((p) => !Object.values(state.classes).some((rc) => certifiedKeys(rc).some((k) => k.key.keyId === p.keyId)))
  if (!state.repo) return { keys: [], changed, refused, expired }
  for (const rc of Object.values(state.classes)) {
    for (const { role, key } of certifiedKeys(rc)) {
      const prev = previous.find((p) => p.keyId === key.keyId)
      // RFC 6487 §7.2: an object signed under an expired certificate is invalid, so none is made. What the key
      // published stays as it is (withdrawing it helps no relying party) until the parent issues a new certificate.
      if (certificateExpired(key.cert, ctx.now)) {
        expired.push({ className: rc.name, keyId: key.keyId, parent: rc.parent, notAfter: key.cert.notAfter })
        if (prev) keys.push(prev)
        continue
      }
      const r = await updateKey(state, rc, role, key, prev, ctx)
      keys.push(r.objects)
      changed ||= r.changed
      refused.push(...r.refused)
    }
  }
  return { keys, changed, refused, expired }
}

/** Every file of a CA as published: each key's objects in its class directory, and a TA's certificates (during a TA key roll two). */
export function publishedFiles(state: CaState, keys: readonly CaKeyObjects[]): PublishedFile[] {
  const out: PublishedFile[] = []
  for (const k of keys) for (const o of k.objects) out.push({ uri: classDir(state, k.state.className) + o.name, der: o.der, hash: o.hash })
  if (state.ta && state.repo) {
    for (const c of [state.ta, state.ta.next, state.ta.old]) {
      if (!c) continue
      const der = fromBase64(c.certDer)
      out.push({ uri: c.rsyncUri, der, hash: sha256Hex(der) })
    }
  }
  return out
}

interface KeyUpdate {
  objects: CaKeyObjects
  changed: boolean
  refused: string[]
}

async function updateKey(state: CaState, rc: ResourceClass, role: 'current' | 'next' | 'old', key: CaKey & { cert: IncomingCert }, stored: CaKeyObjects | undefined, ctx: ObjectsContext): Promise<KeyUpdate> {
  const now = ctx.now
  // After a repository change every object is made anew for the new jail (spec §3 rule 1); the numbers continue.
  const moved = stored !== undefined && stored.state.dir !== classDir(state, rc.name)
  const prev = moved ? { ...stored, objects: [] } : stored
  const issuerCert = ownCert(key.cert)
  // The private key is loaded only when something is signed (most keys need nothing at a given time).
  const issuer: ObjectIssuer = {
    get key() {
      return ctx.signer.signingKey(key.keyId)
    },
    name: issuerCert.subject.der,
    crlUri: crlUri(state, rc.name, key.keyId),
    certUri: key.cert.uri,
  }
  const revocations = (prev?.state.revocations ?? []).filter((r) => Date.parse(r.expires) > now.getTime())
  const work: KeyWork = {
    kept: [],
    old: new Map((prev?.objects ?? []).filter((o) => o.kind === 'roa' || o.kind === 'asa' || o.kind === 'router' || o.kind === 'cer' || o.kind === 'tak').map((o) => [o.name, o])),
    revoke: (o) => revocations.push({ serial: o.meta.serial, date: now.toISOString(), expires: o.notAfter }),
    changed: false,
  }
  keepChildCertificates(state, rc, key.keyId, work)
  const mode = nextRoaMode(prev?.state.roaMode ?? 'simple', role === 'current' ? Object.keys(state.routes).length : 0, { aggregate: ctx.timing.roaAggregateThreshold, deaggregate: ctx.timing.roaDeaggregateThreshold })
  const refused = await updateRoas(state, rc, role, issuer, issuerCert, mode, work, ctx)
  if (role === 'current' && state.aspas) refused.push(...(await updateAspas(state, rc, issuer, issuerCert, work, ctx)))
  if (role === 'current' && state.bgpsec) refused.push(...updateRouterCerts(state, issuer, issuerCert, work, ctx))
  if (state.ta) refused.push(...(await updateTak(state, rc, role, key.keyId, issuer, issuerCert, work, ctx)))
  // Whatever is left in `old` is no longer wanted: withdrawn, and revoked while it is still valid.
  for (const o of work.old.values()) {
    work.revoke(o)
    work.changed = true
  }
  const due = !prev || moved || ctx.force || work.changed || now.getTime() >= manifestDueAt(prev, ctx.timing) || prev.state.roaMode !== mode
  if (!due) return { objects: prev, changed: false, refused }
  const mftCrl = await signManifestAndCrl(state, rc, key, issuer, issuerCert, work.kept, revocations, prev, mode, ctx)
  return { objects: mftCrl.objects, changed: true, refused: [...refused, ...mftCrl.refused] }
}

/** The certificates this key issued to children that are not suspended: published as they are in the CA state. */
function keepChildCertificates(state: CaState, rc: ResourceClass, keyId: string, work: KeyWork): void {
  for (const ch of Object.values(state.children)) {
    // A suspended child's certificates are withdrawn (and revoked) until it is back.
    if (ch.suspended) continue
    for (const c of Object.values(ch.issued)) {
      if (c.signedBy !== keyId || c.className !== rc.name) continue
      const name = certFileName(c.keyId)
      const before = work.old.get(name)
      work.old.delete(name)
      // The same serial from the same issuer is the same certificate (RFC 5280 §4.1.2.2): kept without decoding and
      // hashing it again, which a parent of many children otherwise did for every child at each publication.
      if (before && before.meta.serial === c.serial && before.meta.child === ch.handle) {
        work.kept.push(before)
        continue
      }
      const der = fromBase64(c.der)
      if (before && before.hash === sha256Hex(der)) work.kept.push(before)
      else {
        if (before) work.revoke(before)
        work.kept.push({ name, kind: 'cer', der, hash: sha256Hex(der), notAfter: c.notAfter, meta: { serial: c.serial, child: ch.handle } })
        work.changed = true
      }
    }
  }
}

/** ROAs, only under the current key, for the authorisations this class holds; fresh ones kept, the rest rebuilt. */
async function updateRoas(state: CaState, rc: ResourceClass, role: string, issuer: ObjectIssuer, issuerCert: ResourceCert, mode: KeyObjectsState['roaMode'], work: KeyWork, ctx: ObjectsContext): Promise<string[]> {
  const planned = role === 'current' ? await planRoasSliced(Object.values(state.routes), certResources(issuerCert), mode, ROA_NAMES, () => yieldToLoop()) : []
  const toBuild: PlannedRoa[] = []
  for (const p of planned) {
    const before = work.old.get(p.name)
    work.old.delete(p.name)
    const fresh = before && sameList(before.meta.payloads ?? [], p.payloads.map(roaPayloadKey)) && stillFresh(before.notAfter, ctx.now, ctx.timing.roaReissueBeforeSeconds)
    if (before && fresh) work.kept.push(before)
    else {
      if (before) work.revoke(before)
      toBuild.push(p)
    }
  }
  const built = await buildRoas(toBuild, issuer, issuerCert, rc, state, ctx)
  work.kept.push(...built.objects)
  work.changed ||= toBuild.length > 0
  return built.refused
}

/** krill-reference.md §5: hex of the UTF-8 text "<prefix>-<maxlen> => <asn>", and AS<asn>.roa when aggregated. */
const ROA_NAMES = { simple: roaFileName, aggregate: aggregateRoaFileName }

/** Build ROAs with one-off keys taken from the pool concurrently; each is self-checked before it is kept. */
async function buildRoas(planned: readonly PlannedRoa[], issuer: ObjectIssuer, issuerCert: ResourceCert, rc: ResourceClass, state: CaState, ctx: ObjectsContext): Promise<{ objects: StoredCaObject[]; refused: string[] }> {
  const now = ctx.now
  const { notBefore, notAfter } = eeValidity(now, ctx.timing.roaValidSeconds, issuerCert.notAfter)
  const objects: StoredCaObject[] = []
  const refused: string[] = []
  // Keys asked for all at once (the pool makes them in parallel), ROAs built one per turn of the event loop: with
  // pooled keys, builds started together ran back to back in one turn (10 aggregated ROAs of 10,000 prefixes: seconds
  // during which svcd answered nothing; issue 22 defect 8).
  const keys = planned.map(() => ctx.signer.oneOffKey())
  for (const k of keys) k.catch(() => undefined) // awaited in turn below; a failure is not unhandled meanwhile
  let i = 0
  try {
    for (; i < planned.length; i++) {
      const p = planned[i]!
      const eeKey = await keys[i]!
      try {
        await yieldToLoop()
        const serial = serialFromRandom(ctx.random(20))
        const uri = classDir(state, rc.name) + p.name
        const der = buildRoa({ asn: p.asn, prefixes: p.payloads.map((x) => ({ prefix: x.prefix, maxLength: x.maxLength })) }, eeKey, issuer, { serial, uri, notBefore, notAfter, signingTime: now })
        const problems = selfCheck(() => { const roa = decodeRoa(der); verifyRoa(roa, issuerCert, now); return inspectRoa(roa) })
        if (problems) refused.push(`${uri}: ${problems}`)
        else objects.push({ name: p.name, kind: 'roa', der, hash: sha256Hex(der), notAfter: notAfter.toISOString(), meta: { serial: serial.toString(), payloads: p.payloads.map(roaPayloadKey) } })
      } finally {
        destroy(eeKey)
      }
    }
  } finally {
    // After a failure: the keys not used are destroyed once they are there.
    for (const k of keys.slice(i + 1)) void k.then(destroy, () => undefined)
  }
  return { objects, refused }
}

async function signManifestAndCrl(
  state: CaState, rc: ResourceClass, key: CaKey & { cert: IncomingCert }, issuer: ObjectIssuer, issuerCert: ResourceCert, kept: StoredCaObject[],
  revocations: KeyObjectsState['revocations'], prev: CaKeyObjects | undefined, roaMode: KeyObjectsState['roaMode'], ctx: ObjectsContext,
): Promise<{ objects: CaKeyObjects; refused: string[] }> {
  const now = ctx.now
  // Krill: thisUpdate five minutes back for peers' clocks; nextUpdate a configured time ahead (RFC 9286 §4.2.1).
  const thisUpdate = new Date(Math.floor(now.getTime() / 1000) * 1000 - 5 * 60_000)
  const nextUpdate = new Date(Math.min(now.getTime() + ctx.timing.mftNextUpdateSeconds * 1000, issuerCert.notAfter.getTime()))
  const revision = nextObjectNumber(prev?.state.revision)
  if (revision === undefined) return { objects: prev!, refused: [`${mftUri(state, rc.name, key.keyId)}: ${NUMBERS_EXHAUSTED}`] }
  const prevMft = prev?.objects.find((o) => o.kind === 'mft')
  if (prevMft) revocations.push({ serial: prevMft.meta.serial, date: now.toISOString(), expires: prevMft.notAfter })
  const crlName = crlFileName(key.keyId)
  const crlDer = buildCrl({ issuerName: issuer.name, thisUpdate, nextUpdate, crlNumber: revision, revoked: revocations.map((r) => ({ serial: BigInt(r.serial), revocationDate: new Date(r.date) })) }, issuer.key)
  const refused: string[] = []
  const crlProblems = selfCheck(() => { const crl = decodeCrl(crlDer); verifyCrl(crl, issuerCert, now); return inspectCrl(crl) })
  if (crlProblems) refused.push(`${crlName}: ${crlProblems}`)
  const crl: StoredCaObject = { name: crlName, kind: 'crl', der: crlDer, hash: sha256Hex(crlDer), notAfter: nextUpdate.toISOString(), meta: { serial: revision.toString() } }
  const files = [...kept, crl].sort((a, b) => (a.name < b.name ? -1 : 1)).map((o) => ({ file: o.name, hash: fileHash(o.der) }))
  const eeKey = await ctx.signer.oneOffKey()
  let mft: StoredCaObject
  try {
    const serial = serialFromRandom(ctx.random(20))
    const uri = classDir(state, rc.name) + manifestFileName(key.keyId)
    const der = buildManifest({ manifestNumber: revision, thisUpdate, nextUpdate, files }, eeKey, issuer, { serial, uri, signingTime: now })
    const problems = selfCheck(() => { const m = decodeManifest(der); verifyManifest(m, issuerCert, now); return inspectManifest(m) })
    if (problems) refused.push(`${uri}: ${problems}`)
    mft = { name: manifestFileName(key.keyId), kind: 'mft', der, hash: sha256Hex(der), notAfter: nextUpdate.toISOString(), meta: { serial: serial.toString() } }
  } finally {
    destroy(eeKey)
  }
  const state2: KeyObjectsState = { className: rc.name, dir: classDir(state, rc.name), revision: revision.toString(), thisUpdate: thisUpdate.toISOString(), nextUpdate: nextUpdate.toISOString(), revocations, roaMode }
  if (refused.length && prev) return { objects: prev, refused }
  return { objects: { keyId: key.keyId, state: state2, objects: [...kept, crl, mft] }, refused }
}

/** Our own certificate as an issuer for verification: resources explicit as received from the parent. */
function ownCert(cert: IncomingCert): ResourceCert {
  const c = decodeCert(fromBase64(cert.der))
  return { ...c, keyId: keyIdentifier(c.spki), resources: ResourceSet.parse(cert.resources), profile: 'rpki' }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

/**
 * The embedded trust anchor's certificate and its key roll (RFC 9691, RFC 6489 ideas applied to a TA; design in
 * README "TA key roll"): `init` makes a successor key with its own self-signed certificate, published at its own URIs
 * and named as successor in the current key's TAK; `activate` makes it current (children are re-issued under it by
 * cert-auth.ts) and keeps the old key published; `finish` (svc, after `[testbed] ta_keyroll_old_key_seconds`) retires
 * the old key and withdraws its objects. Pure apart from the context's signer. Used by cert-auth.ts and ta/.
 */
import { keyIdentifier } from '../crypto/key-id.js'
import type { SigningKey } from '../crypto/signer.js'
import { AppError } from '../errors.js'
import { buildCert, serialFromRandom } from '../objects/cert.js'
import { ResourceSet } from '../resources/resource-set.js'
import { toBase64 } from '../util/base64.js'
import type { CaContext } from './context.js'
import { classDir, mftUri } from './locations.js'
import type { CaState, IncomingCert, ResourceClass, TaCertInfo, TaInfo } from './state.js'

const TA_VALIDITY_YEARS = 10

/** A self-signed TA certificate for `key` holding all resources, its SIA in the TA's class directory. */
export function buildTaCert(state: CaState, rcName: string, key: SigningKey, keyId: string, serial: Uint8Array, now: Date): IncomingCert & { der: string } {
  const all = ResourceSet.all()
  const notBefore = new Date(Math.floor(now.getTime() / 1000) * 1000 - 5 * 60_000)
  const notAfter = new Date(notBefore.getTime() + TA_VALIDITY_YEARS * 365 * 86400_000)
  const der = buildCert(
    {
      profile: 'rpki', kind: 'ca', serial: serialFromRandom(serial), issuerName: keyId, subjectName: keyId, subjectSpki: key.spki, subjectKeyId: keyIdentifier(key.spki), notBefore, notAfter,
      sia: { caRepository: classDir(state, rcName), rpkiManifest: mftUri(state, rcName, keyId), rpkiNotify: state.repo!.rrdpNotificationUri },
      resources: { ipv4: all.ipv4, ipv6: all.ipv6, asn: all.asn },
    },
    key,
  )
  return { der: toBase64(der), uri: '', resources: all.toJSON(), notBefore: notBefore.toISOString(), notAfter: notAfter.toISOString() }
}

/** The TA's one resource class (the self-signed one, without a parent). */
export function taClass(s: CaState): ResourceClass | undefined {
  return Object.values(s.classes).find((rc) => rc.parent === '')
}

/** Where a successor key's certificate is published: beside the current one, named after the key (stable for its life). */
export function successorUris(ta: TaInfo, keyId: string): { rsyncUri: string; httpsUri: string } {
  const name = `ta-${keyId}.cer`
  return { rsyncUri: ta.rsyncUri.replace(/[^/]*$/, name), httpsUri: ta.httpsUri.replace(/[^/]*$/, name) }
}

function refuse(s: CaState, action: string, reason: string): never {
  throw new AppError('key-roll-disallowed', { ca: s.handle, action, reason })
}

/**
 * `svcc ta keyroll init`: a successor key (in `signer`, else the default signer) and its TA certificate; refused during a
 * roll or while an old key is kept.
 */
export async function processTaKeyRollInit(s: CaState, ctx: CaContext, signer?: string): Promise<TaRollEvent[]> {
  const rc = taClass(s)
  if (!s.ta || !rc?.current?.cert || !s.repo) refuse(s, 'init', 'only the embedded trust anchor has a TA key roll')
  if (s.ta.next) refuse(s, 'init', `a TA key roll is in progress: successor key ${rc.next?.keyId ?? '?'} waits for activation`)
  if (s.ta.old) refuse(s, 'init', `the previous key ${rc.old?.keyId ?? '?'} is still published until it is retired`)
  const keyId = await ctx.signer.createKey(signer === undefined ? undefined : { signer })
  const cert = buildTaCert(s, rc.name, ctx.signer.signingKey(keyId), keyId, ctx.random(20), ctx.now)
  const uris = successorUris(s.ta, keyId)
  return [{ type: 'ta-key-roll-initiated', className: rc.name, keyId, cert: { ...cert, uri: uris.rsyncUri }, ta: { certDer: cert.der, ...uris } }]
}

/** `svcc ta keyroll activate`: the successor becomes current, the current key is kept (published) as the old one. */
export function processTaKeyRollActivate(s: CaState, ctx: CaContext): TaRollEvent[] {
  const rc = taClass(s)
  if (!s.ta?.next || !rc?.next?.cert) refuse(s, 'activate', 'no TA key roll is in progress (use svcc ta keyroll init first)')
  return [{ type: 'key-roll-activated', className: rc.name }, { type: 'ta-key-roll-activated', time: ctx.now.toISOString() }]
}

/** Retire the old key (svc, once its time is up): its certificate and objects are withdrawn. Nothing to do: no events. */
export function processTaKeyRollFinish(s: CaState): TaRollEvent[] {
  const rc = taClass(s)
  if (!s.ta?.old || !rc?.old) return []
  return [{ type: 'key-roll-finished', className: rc.name }, { type: 'ta-key-roll-finished' }]
}

/** What a TA key roll command produces: its own events and the class key moves of events.ts (same shapes). */
type TaRollEvent = TaKeyRollEvent | { type: 'key-roll-activated'; className: string } | { type: 'key-roll-finished'; className: string }

/** Stored in the history: changing these shapes needs a migration. */
export type TaKeyRollEvent =
  | { type: 'ta-key-roll-initiated'; className: string; keyId: string; cert: IncomingCert; ta: TaCertInfo }
  | { type: 'ta-key-roll-activated'; time: string }
  | { type: 'ta-key-roll-finished' }

/** Fold a TA key roll event into the state (mutates `s`). */
export function applyTaKeyRollEvent(s: CaState, e: TaKeyRollEvent): void {
  const ta = s.ta!
  switch (e.type) {
    case 'ta-key-roll-initiated':
      s.classes[e.className].next = { keyId: e.keyId, cert: e.cert }
      ta.next = e.ta
      return
    case 'ta-key-roll-activated': {
      const next = ta.next!
      ta.old = { certDer: ta.certDer, rsyncUri: ta.rsyncUri, httpsUri: ta.httpsUri }
      Object.assign(ta, { certDer: next.certDer, rsyncUri: next.rsyncUri, httpsUri: next.httpsUri })
      delete ta.next
      ta.activatedAt = e.time
      return
    }
    case 'ta-key-roll-finished':
      delete ta.old
      delete ta.activatedAt
      return
  }
}

export function taKeyRollEventSummary(e: TaKeyRollEvent): string {
  switch (e.type) {
    case 'ta-key-roll-initiated': return `TA key roll: successor key ${e.keyId}, its certificate at ${e.ta.rsyncUri} and ${e.ta.httpsUri}`
    case 'ta-key-roll-activated': return 'TA key roll: the successor key is current; the previous key stays published until it is retired'
    case 'ta-key-roll-finished': return 'TA key roll: the previous key is retired and its objects withdrawn'
  }
}

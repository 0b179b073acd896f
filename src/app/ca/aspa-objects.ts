/**
 * The ASPA objects of a CA's current key (draft-ietf-sidrops-aspa-profile; krill-reference.md §3 timings): one per
 * configured customer AS the key's certificate holds (ca/aspas.ts plans them). An ASPA is kept while its providers
 * are unchanged and its EE certificate is not close to expiry; otherwise it is re-signed with a one-off key from the
 * pool and self-checked. Called by objects.ts for each current key, only when the CA has ASPA definitions.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { planAspas, type PlannedAspa } from '../../ca/aspas.js'
import { classDir } from '../../ca/locations.js'
import type { StoredCaObject } from '../../ca/object-model.js'
import type { CaState, ResourceClass } from '../../ca/state.js'
import type { Signer } from '../../crypto/signer.js'
import { stillFresh } from '../../ca/renewal.js'
import { buildAspa, decodeAspa, inspectAspa, verifyAspa } from '../../objects/aspa.js'
import { serialFromRandom, type ResourceCert } from '../../objects/cert.js'
import type { ObjectIssuer } from '../../objects/signed-object.js'
import { destroy, eeValidity, selfCheck, type KeyWork } from './object-signing.js'
import { sha256Hex } from '../../crypto/digest.js'

/** What ASPA signing needs of objects.ts's ObjectsContext. */
export interface AspaObjectsContext {
  now: Date
  signer: Signer
  random(n: number): Uint8Array
  timing: { roaValidSeconds: number; roaReissueBeforeSeconds: number }
}

/** Bring the key's ASPAs in line with the configuration; returns the objects the self-check refused. */
export async function updateAspas(state: CaState, rc: ResourceClass, issuer: ObjectIssuer, issuerCert: ResourceCert, work: KeyWork, ctx: AspaObjectsContext): Promise<string[]> {
  const toBuild: PlannedAspa[] = []
  for (const p of planAspas(state.aspas, issuerCert.resources.asn)) {
    const before = work.old.get(p.name)
    work.old.delete(p.name)
    const same = before?.kind === 'asa' && sameProviders(before.meta.providers, p.providers)
    const fresh = before !== undefined && stillFresh(before.notAfter, ctx.now, ctx.timing.roaReissueBeforeSeconds)
    if (before && same && fresh) work.kept.push(before)
    else {
      if (before) work.revoke(before)
      toBuild.push(p)
    }
  }
  if (toBuild.length === 0) return []
  work.changed = true
  const { notBefore, notAfter } = eeValidity(ctx.now, ctx.timing.roaValidSeconds, issuerCert.notAfter)
  const refused: string[] = []
  await Promise.all(
    toBuild.map(async (p) => {
      const eeKey = await ctx.signer.oneOffKey()
      await yieldToLoop()
      try {
        const serial = serialFromRandom(ctx.random(20))
        const uri = classDir(state, rc.name) + p.name
        const der = buildAspa({ customer: p.customer, providers: p.providers }, eeKey, issuer, { serial, uri, notBefore, notAfter, signingTime: ctx.now })
        const problems = selfCheck(() => { const a = decodeAspa(der); verifyAspa(a, issuerCert, ctx.now); return inspectAspa(a) })
        if (problems) return void refused.push(`${uri}: ${problems}`)
        const o: StoredCaObject = { name: p.name, kind: 'asa', der, hash: sha256Hex(der), notAfter: notAfter.toISOString(), meta: { serial: serial.toString(), providers: p.providers } }
        work.kept.push(o)
      } finally {
        destroy(eeKey)
      }
    }),
  )
  return refused
}

function sameProviders(a: readonly number[] | undefined, b: readonly number[]): boolean {
  return a !== undefined && a.length === b.length && a.every((x, i) => x === b[i])
}

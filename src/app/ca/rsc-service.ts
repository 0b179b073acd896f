/**
 * Signed checklists (RFC 9323) on request: the CA checks the request (ca/rsc.ts), signs the checklist of digests
 * with a one-off EE key under its current key (the CA key never leaves svcd; the files never reach it), checks the
 * result with the object library, records what was signed in the CA's history, and hands the RSC back. Nothing is
 * published and the CA state does not change.
 */
import type { RscSignedJson, RscSignJson } from '../../api/rsc.js'
import { crlUri } from '../../ca/locations.js'
import { planRsc } from '../../ca/rsc.js'
import type { Signer } from '../../crypto/signer.js'
import { AppError } from '../../errors.js'
import type { Logger } from '../../log.js'
import { decodeCert, serialFromRandom, trustedCert } from '../../objects/cert.js'
import { buildRsc, decodeRsc, inspectRsc, verifyRsc } from '../../objects/rsc.js'
import type { ObjectIssuer } from '../../objects/signed-object.js'
import { ResourceSet } from '../../resources/resource-set.js'
import { fromBase64, toBase64 } from '../../util/base64.js'
import { fromHex } from '../../util/hex.js'
import type { CaCommands } from './ca-commands.js'
import { caPath } from './inputs.js'
import { destroy, selfCheck } from './object-signing.js'

export interface RscServiceDeps {
  commands: CaCommands
  signer: Signer
  now: () => Date
  /** n random bytes (serial numbers). */
  random: (n: number) => Uint8Array
  log: Logger
}

export class RscService {
  constructor(private readonly d: RscServiceDeps) {}

  /** POST …/rsc: sign a checklist of the files' digests with the resources asked for (default: all the key holds). */
  async caRscSign(ca: string, req: RscSignJson): Promise<RscSignedJson> {
    const d = this.d
    const handle = caPath(ca)
    const state = d.commands.state(handle)
    const now = d.now()
    const plan = planRsc(state, { files: req.files, resources: req.resources, ...(req.validity_days !== undefined ? { validityDays: req.validity_days } : {}) }, now)
    const caCert = decodeCert(fromBase64(plan.cert.der))
    const issuerCert = trustedCert(caCert, ResourceSet.parse(plan.cert.resources))
    const issuer: ObjectIssuer = { key: d.signer.signingKey(plan.keyId), name: caCert.subject.der, crlUri: crlUri(state, plan.className, plan.keyId), certUri: plan.cert.uri }
    const serial = serialFromRandom(d.random(20))
    const eeKey = await d.signer.oneOffKey()
    let der: Uint8Array
    try {
      const files = req.files.map((f) => ({ name: f.name, hash: fromHex(f.sha256) }))
      der = buildRsc({ resources: plan.resources, files }, eeKey, issuer, { serial, notBefore: plan.notBefore, notAfter: plan.notAfter, signingTime: now })
    } finally {
      destroy(eeKey)
    }
    const problems = selfCheck(() => {
      const r = decodeRsc(der)
      verifyRsc(r, issuerCert, now)
      return inspectRsc(r)
    })
    if (problems) {
      d.log.error('signed checklist refused by the self-check', { ca: handle, problems })
      throw new AppError('objects-invalid', { reason: problems })
    }
    const resources = plan.resources.toJSON()
    const notAfter = plan.notAfter.toISOString()
    await d.commands.run(handle, { type: 'rsc-sign', files: req.files.map((f) => f.name), resources, className: plan.className, keyId: plan.keyId, serial: serial.toString(), notAfter })
    d.log.info('signed a checklist', { ca: handle, files: req.files.length, serial: serial.toString() })
    return { rsc: toBase64(der), resources, not_before: plan.notBefore.toISOString(), not_after: notAfter, serial: serial.toString() }
  }
}

/**
 * The embedded trust anchor and testbed as a service (design.md "Embedded trust anchor"): with `[testbed] enabled`,
 * CA `ta` (self-signed, all resources) and CA `testbed` under it are created once, certified and published before
 * svcd answers /health; the TAL and TA certificate are served from the TA's state.
 */
import type { CaCommands } from '../app/ca/ca-commands.js'
import type { CaPublisher } from '../app/ca/ca-publisher.js'
import type { CaService } from '../app/ca/ca-service.js'
import type { ChildService } from '../app/ca/child-service.js'
import type { ParentService } from '../app/ca/parent-service.js'
import type { Signer } from '../crypto/signer.js'
import type { Logger } from '../log.js'
import { decodeCert } from '../objects/cert.js'
import { ResourceSet } from '../resources/resource-set.js'
import { fromBase64 } from '../util/base64.js'
import { createTrustAnchor, talText, TA_HANDLE, TESTBED_HANDLE } from './testbed.js'

export interface TestbedServiceDeps {
  commands: CaCommands
  cas: Pick<CaService, 'create'>
  children: Pick<ChildService, 'caChildAdd' | 'caChildContact'>
  parents: Pick<ParentService, 'caParentAdd' | 'idle'>
  publisher: Pick<CaPublisher, 'publishNow'>
  signer: Signer
  now: () => Date
  random: (n: number) => Uint8Array
  log: Logger
  serviceUri: string
}

export class TestbedService {
  constructor(private readonly d: TestbedServiceDeps) {}

  /** CA `ta` and CA `testbed` under it, created once. */
  async ensure(): Promise<void> {
    const d = this.d
    if (!d.commands.exists(TA_HANDLE)) {
      await d.cas.create(TA_HANDLE, { ta: (s) => createTrustAnchor(s, d.signer, d.serviceUri, d.now(), d.random) })
    }
    if (!d.commands.exists(TESTBED_HANDLE)) {
      await d.cas.create(TESTBED_HANDLE)
      const testbed = d.commands.state(TESTBED_HANDLE)
      await d.children.caChildAdd(TA_HANDLE, { handle: TESTBED_HANDLE, resources: ResourceSet.all().toJSON(), id_cert: testbed.idCert })
      await d.parents.caParentAdd(TESTBED_HANDLE, { json: { handle: TA_HANDLE, response: d.children.caChildContact(TA_HANDLE, TESTBED_HANDLE) } })
      // Ready before svcd answers /health: testbed certified and both CAs published.
      await d.parents.idle()
      for (const ca of [TA_HANDLE, TESTBED_HANDLE]) await d.publisher.publishNow(ca)
      d.log.info('testbed created: trust anchor ta with CA testbed under it', { tal: `${d.serviceUri}ta/ta.tal` })
    }
  }

  /** The TAL of the embedded trust anchor (RFC 8630), or undefined without [testbed]. */
  taTal(): string | undefined {
    const ta = this.d.commands.exists(TA_HANDLE) ? this.d.commands.state(TA_HANDLE).ta : undefined
    return ta && talText(ta, decodeCert(fromBase64(ta.certDer)).spki)
  }

  taCert(): Uint8Array | undefined {
    const ta = this.d.commands.exists(TA_HANDLE) ? this.d.commands.state(TA_HANDLE).ta : undefined
    return ta && fromBase64(ta.certDer)
  }
}

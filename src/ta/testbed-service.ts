/**
 * The embedded trust anchor and testbed as a service (design.md "Embedded trust anchor"): with `[testbed] enabled`,
 * CA `ta` (self-signed, all resources) and CA `testbed` under it are created once, certified and published before
 * svcd answers /health; the TAL is served from the TA's state (its certificates: ta-keyroll-service.ts). The testbed self-service
 * (krill:src/daemon/http/dispatch/testbed.rs) registers children of CA `testbed` through the ChildService and
 * publishers through the PublicationService, with the same checks and errors as the authenticated API; it removes
 * only children of `testbed` and publishers that are not CAs of this svcd (their own embedded publishers).
 */
import type { CaCommands } from '../app/ca/ca-commands.js'
import type { CaPublisher } from '../app/ca/ca-publisher.js'
import type { CaService } from '../app/ca/ca-service.js'
import type { ChildService } from '../app/ca/child-service.js'
import type { ParentService } from '../app/ca/parent-service.js'
import type { PublicationService } from '../app/pubd/publication-service.js'
import type { AddChildJson, ParentResponseJson } from '../api/cas.js'
import type { PublisherRequestJson, RepositoryResponseJson } from '../api/pubd.js'
import { AppError } from '../errors.js'
import type { Signer } from '../crypto/signer.js'
import type { Logger } from '../log.js'
import { decodeCert } from '../objects/cert.js'
import { ResourceSet } from '../resources/resource-set.js'
import { fromBase64 } from '../util/base64.js'
import { createTrustAnchor, talText, TA_HANDLE, TESTBED_HANDLE } from './testbed.js'

export interface TestbedServiceDeps {
  commands: CaCommands
  cas: Pick<CaService, 'create'>
  children: Pick<ChildService, 'caChildAdd' | 'caChildContact' | 'caChildRemove'>
  parents: Pick<ParentService, 'caParentAdd' | 'idle'>
  publisher: Pick<CaPublisher, 'publishNow'>
  signer: Signer
  now: () => Date
  random: (n: number) => Uint8Array
  log: Logger
  serviceUri: string
  /** `[testbed] enabled`: without it the self-service answers 404. */
  enabled: boolean
  /** The embedded publication server (the testbed needs it). */
  pub: Pick<PublicationService, 'pubdPublisherAdd' | 'pubdPublisherRemove'> | undefined
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

  //------------ Self-service (unauthenticated, like Krill's /testbed/…) ------------------------------------------

  /** GET /testbed/enabled. */
  testbedEnabled(): boolean {
    return this.d.enabled && this.d.commands.exists(TESTBED_HANDLE)
  }

  /** POST /testbed/children: a child of CA `testbed`, as POST /api/v1/cas/testbed/children adds one. */
  testbedChildAdd(body: AddChildJson): Promise<ParentResponseJson> {
    this.requireEnabled()
    return this.d.children.caChildAdd(TESTBED_HANDLE, body)
  }

  /** DELETE /testbed/children/{child}: a child of `testbed`, never one that is a CA of this svcd. */
  async testbedChildRemove(child: string): Promise<void> {
    this.requireEnabled()
    const local = this.localChildOfTestbed(child)
    if (local) throw new AppError('api-insufficient-rights', { reason: `child '${child}' of testbed is CA '${local}' of this svcd; remove it with the token` })
    await this.d.children.caChildRemove(TESTBED_HANDLE, child)
  }

  /** POST /testbed/publishers: a publisher in the embedded repository, as POST /api/v1/pubd/publishers adds one. */
  testbedPublisherAdd(body: PublisherRequestJson): RepositoryResponseJson {
    return this.publication().pubdPublisherAdd({ json: body })
  }

  /** DELETE /testbed/publishers/{publisher}: never the embedded publisher of a CA of this svcd. */
  testbedPublisherRemove(publisher: string): void {
    const pub = this.publication()
    const owner = this.d.commands.handles().find((ca) => ca === publisher || (this.d.commands.exists(ca) && [this.d.commands.state(ca).repo, this.d.commands.state(ca).oldRepo].some((r) => r?.embedded && r.publisherHandle === publisher)))
    if (owner) throw new AppError('api-insufficient-rights', { reason: `publisher '${publisher}' is the repository of CA '${owner}' of this svcd; remove it with the token` })
    pub.pubdPublisherRemove(publisher)
  }

  private requireEnabled(): void {
    if (!this.testbedEnabled()) throw new AppError('api-unknown-resource', { path: '/testbed' })
  }

  private publication(): Pick<PublicationService, 'pubdPublisherAdd' | 'pubdPublisherRemove'> {
    this.requireEnabled()
    if (!this.d.pub) throw new AppError('pub-repo-not-initialized')
    return this.d.pub
  }

  /** The CA of this svcd that is `testbed`'s child `child` (its parent is testbed's RFC 6492 endpoint), if any. */
  private localChildOfTestbed(child: string): string | undefined {
    const uri = `${this.d.serviceUri}rfc6492/${TESTBED_HANDLE}`
    return this.d.commands.handles().find((ca) => this.d.commands.exists(ca) && Object.values(this.d.commands.state(ca).parents).some((p) => p.serviceUri === uri && p.childHandle === child))
  }
}

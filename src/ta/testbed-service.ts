/**
 * The embedded trust anchor and testbed as a service (design.md "Embedded trust anchor"): with `[testbed] enabled`,
 * CA `ta` (self-signed, all resources) and CA `testbed` under it are created once, certified and published before
 * svcd answers /health; the TAL is served from the TA's state (its certificates: ta-keyroll-service.ts). The testbed self-service
 * (krill:src/daemon/http/dispatch/testbed.rs) registers children of CA `testbed` through the ChildService and
 * publishers through the PublicationService, with the same checks and errors as the authenticated API, flagged as
 * self-service (issue 22): they get the self-service quota, at most `[testbed] self_service_children_max` and
 * `self_service_publishers_max` of them are kept, and the self-service removes only what it registered, never a CA
 * of this svcd (recognised by its identity certificate, whatever URI it reached its parent by). Handles: `ta`,
 * `testbed` and every CA's handle are reserved (testbed-handle-reserved); the other way round, the operator's
 * registration of a handle a self-service one holds (a CA's embedded publisher, a child added with the token) takes
 * it over, so an anonymous registration never blocks `svcc add` (app/pubd/publication-service.ts publisherAdd,
 * app/ca/child-service.ts caChildAdd).
 */
import type { CaCommands } from '../app/ca/ca-commands.js'
import type { CaFollowUps } from '../app/ca/ca-follow-ups.js'
import type { CaPublisher } from '../app/ca/ca-publisher.js'
import type { CaService } from '../app/ca/ca-service.js'
import type { ChildService } from '../app/ca/child-service.js'
import type { ParentService } from '../app/ca/parent-service.js'
import type { PublisherService } from '../app/pubd/publisher-service.js'
import type { AddChildJson, ParentResponseJson } from '../api/cas.js'
import type { PublisherRequestJson, RepositoryResponseJson } from '../api/pubd.js'
import { AppError } from '../errors.js'
import type { Signer } from '../crypto/signer.js'
import type { Logger } from '../log.js'
import { decodeCert } from '../objects/cert.js'
import { ResourceSet } from '../resources/resource-set.js'
import { fromBase64 } from '../util/base64.js'
import { createTrustAnchor, talText, TA_HANDLE, TESTBED_HANDLE } from './testbed.js'
import { actingAs, type ActingAs } from '../app/shared/acting.js'

/** Who a testbed self-service registration is (history and audit name it): anyone, from `source`. */
function testbedActor(source: string | undefined): ActingAs {
  return { id: 'anonymous', provider: 'testbed', ...(source === undefined ? {} : { source }) }
}

export interface TestbedServiceDeps {
  commands: CaCommands
  cas: Pick<CaService, 'create'>
  children: Pick<ChildService, 'caChildAdd' | 'caChildContact' | 'caChildRemove'>
  parents: Pick<ParentService, 'caParentAdd' | 'idle'>
  /** What follows the changes (publication, parent syncs after it), waited for at start. */
  followUps: Pick<CaFollowUps, 'idle'>
  publisher: Pick<CaPublisher, 'flushed'>
  signer: Signer
  now: () => Date
  random: (n: number) => Uint8Array
  log: Logger
  serviceUri: string
  /** `[testbed] enabled`: without it the self-service answers 404. */
  enabled: boolean
  /** The embedded publication server (the testbed needs it). */
  publication: SelfServiceRepository | undefined
  /** `[testbed] self_service_children_max` and `self_service_publishers_max`. */
  caps: { children: number; publishers: number }
}

type SelfServiceRepository = Pick<PublisherService, 'pubdPublisherAdd' | 'pubdPublisherRemove' | 'findPublisher' | 'store'>

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
      // Ready before svcd answers /health: testbed certified and both CAs published (their changes' follow-ups).
      await d.followUps.idle()
      await d.parents.idle()
      for (const ca of [TA_HANDLE, TESTBED_HANDLE]) await d.publisher.flushed(ca)
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

  /** POST /testbed/children: a self-service child of CA `testbed`, as POST /api/v1/cas/testbed/children adds one. */
  testbedChildAdd(body: AddChildJson, source?: string): Promise<ParentResponseJson> {
    return actingAs(testbedActor(source), () => this.childAdd(body))
  }

  private childAdd(body: AddChildJson): Promise<ParentResponseJson> {
    this.requireEnabled()
    this.reserved(body.handle, 'child')
    const children = Object.values(this.d.commands.state(TESTBED_HANDLE).children)
    if (children.filter((c) => c.selfService).length >= this.d.caps.children) throw new AppError('testbed-registrations-full', { max: String(this.d.caps.children), what: 'children of testbed' })
    return this.d.children.caChildAdd(TESTBED_HANDLE, body, { selfService: true })
  }

  /** DELETE /testbed/children/{child}: a child of `testbed` the self-service registered, never a CA of this svcd. */
  testbedChildRemove(child: string, source?: string): Promise<void> {
    return actingAs(testbedActor(source), () => this.childRemove(child))
  }

  private async childRemove(child: string): Promise<void> {
    this.requireEnabled()
    const children = this.d.commands.state(TESTBED_HANDLE).children
    const c = Object.hasOwn(children, child) ? children[child] : undefined // never a property of Object.prototype
    if (!c) throw new AppError('ca-child-unknown', { ca: TESTBED_HANDLE, child })
    const local = this.localCaWithIdentity(c.idCert)
    if (local) throw new AppError('testbed-not-self-service', { handle: child, reason: `child '${child}' of testbed is CA '${local}' of this svcd (its identity certificate); remove it with the token` })
    if (!c.selfService) throw new AppError('testbed-not-self-service', { handle: child, reason: `child '${child}' of testbed was added by the operator; remove it with the token` })
    await this.d.children.caChildRemove(TESTBED_HANDLE, child)
  }

  /** POST /testbed/publishers: a self-service publisher in the embedded repository (its quota is the self-service one). */
  testbedPublisherAdd(body: PublisherRequestJson, source?: string): RepositoryResponseJson {
    return actingAs(testbedActor(source), () => this.publisherAdd(body))
  }

  private publisherAdd(body: PublisherRequestJson): RepositoryResponseJson {
    const pub = this.publication()
    this.reserved(body.publisher_handle, 'publisher')
    if (pub.store.publishers().filter((p) => p.selfService).length >= this.d.caps.publishers) throw new AppError('testbed-registrations-full', { max: String(this.d.caps.publishers), what: 'publishers' })
    return pub.pubdPublisherAdd({ json: body }, { selfService: true })
  }

  /** DELETE /testbed/publishers/{publisher}: a publisher the self-service registered, never a CA's of this svcd. */
  testbedPublisherRemove(publisher: string, source?: string): void {
    actingAs(testbedActor(source), () => this.publisherRemove(publisher))
  }

  private publisherRemove(publisher: string): void {
    const pub = this.publication()
    const p = pub.findPublisher(publisher)
    if (!p) throw new AppError('pub-unknown', { publisher })
    const owner = this.d.commands.handles().find((ca) => ca === publisher || (this.d.commands.exists(ca) && [this.d.commands.state(ca).repo, this.d.commands.state(ca).oldRepo].some((r) => r?.embedded && r.publisherHandle === publisher)))
    if (owner) throw new AppError('testbed-not-self-service', { handle: publisher, reason: `publisher '${publisher}' is the repository of CA '${owner}' of this svcd; remove it with the token` })
    if (!p.selfService) throw new AppError('testbed-not-self-service', { handle: publisher, reason: `publisher '${publisher}' was added by the operator; remove it with the token` })
    pub.pubdPublisherRemove(publisher)
  }

  /** Refuse `ta`, `testbed` and the handle of any CA of this svcd as a self-service child or publisher. */
  private reserved(handle: unknown, what: 'child' | 'publisher'): void {
    if (typeof handle !== 'string') return // the service's own check names what is wrong
    const h = handle.toLowerCase()
    const ca = this.d.commands.handles().find((c) => c.toLowerCase() === h)
    if (h === TA_HANDLE || h === TESTBED_HANDLE) throw new AppError('testbed-handle-reserved', { handle, reason: `'${TA_HANDLE}' and '${TESTBED_HANDLE}' are the testbed's own CAs` })
    if (ca) throw new AppError('testbed-handle-reserved', { handle, reason: `it is CA '${ca}' of this svcd; a self-service ${what} needs a handle of its own` })
  }

  private requireEnabled(): void {
    if (!this.testbedEnabled()) throw new AppError('api-unknown-resource', { path: '/testbed' })
  }

  private publication(): SelfServiceRepository {
    this.requireEnabled()
    if (!this.d.publication) throw new AppError('pub-repo-not-initialized')
    return this.d.publication
  }

  /** The CA of this svcd whose identity certificate is `idCert` (base64 DER), if any: by identity, not by URI (issue 22). */
  private localCaWithIdentity(idCert: string): string | undefined {
    const der = Buffer.from(fromBase64(idCert))
    return this.d.commands.handles().find((ca) => this.d.commands.exists(ca) && der.equals(fromBase64(this.d.commands.state(ca).idCert)))
  }
}

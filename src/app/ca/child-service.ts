/**
 * Children of CAs (RFC 6492 server side; krill-reference.md §1.1 "Children"): add, update and remove children, give
 * them their RFC 8183 parent response, show them, and answer their RFC 6492 messages (child-server.ts). Children
 * that are CAs in this svcd learn of a change at once (follow-ups.ts).
 */
import { childInfo, childrenPage } from './views.js'
import type { ChildSort, ChildrenPageJson, ListQuery } from '../../api/paging.js'
import { parentResponseJson, type AddChildJson, type ChildInfoJson, type ParentResponseJson, type UpdateChildJson } from '../../api/cas.js'
import { AppError } from '../../errors.js'
import { encodeParentResponse, type ParentResponse } from '../../protocol/idexchange.js'
import type { CaState } from '../../ca/state.js'
import { inactiveChildren } from '../../ca/suspension.js'
import { fromBase64 } from '../../util/base64.js'
import type { CaCommands } from './ca-commands.js'
import type { ChildServer } from './child-server.js'
import { caPath, checkChild, checkIdCert, childRequestInput, childResources } from './inputs.js'
import { childExport, childImportCommand } from './child-transfer.js'
import type { ImportChildJson } from '../../api/child-import.js'

export interface ChildServiceDeps {
  commands: CaCommands
  server: ChildServer
  now: () => Date
  /** svcd's own service URI (its RFC 6492 endpoints are `<uri>rfc6492/<ca>`). */
  serviceUri: string
  /** Suspension of inactive children, when configured: the threshold, the children's last contacts, and the check task. */
  suspension?: { afterSeconds: number; lastContact: (ca: string, child: string) => string | undefined; contact: (ca: string, child: string) => void; schedule: (ca: string) => void }
}

/** The child's handle, or 404 ca-child-unknown. */
function checkKnownChild(s: CaState, ca: string, child: string): string {
  if (!s.children[child]) throw new AppError('ca-child-unknown', { ca, child })
  return child
}

export class ChildService {
  constructor(private readonly d: ChildServiceDeps) {}

  /**
   * Add a child; `selfService` marks the testbed's anonymous registration (issue 22), whose handle the operator's
   * registration of the same child (with the token) takes over: the self-service child is removed first.
   */
  async caChildAdd(ca: string, body: AddChildJson | { handle: string; resources: AddChildJson['resources']; xml: string }, opts: { selfService?: boolean } = {}): Promise<ParentResponseJson> {
    const s = this.d.commands.state(caPath(ca))
    const handle = checkChild(body.handle)
    const idCert = 'xml' in body ? childRequestInput(body.xml, this.d.now()) : checkIdCert(body.id_cert, this.d.now())
    const resources = childResources(handle, body.resources)
    if (s.children[handle]?.selfService && !opts.selfService) await this.caChildRemove(ca, handle)
    await this.d.commands.run(ca, { type: 'child-add', handle, idCert, resources, ...(opts.selfService ? { selfService: true as const } : {}) })
    this.d.suspension?.schedule(ca)
    return parentResponseJson(this.parentResponseFor(ca, handle))
  }

  /**
   * Suspend the children of `ca` that have not asked for `afterSeconds` (scheduled task; ca/suspension.ts). A child
   * never heard of since suspension was configured gets its first contact now, which starts its clock.
   */
  async suspendInactive(ca: string): Promise<void> {
    const sus = this.d.suspension
    if (!sus) return
    const s = this.d.commands.state(caPath(ca))
    for (const ch of Object.keys(s.children)) if (sus.lastContact(ca, ch) === undefined) sus.contact(ca, ch)
    for (const child of inactiveChildren(s, (c) => sus.lastContact(ca, c), this.d.now(), sus.afterSeconds)) {
      await this.d.commands.run(ca, { type: 'child-suspend', handle: child, inactive: true }, 'svc')
    }
  }

  caChildContact(ca: string, child: string): ParentResponseJson {
    return parentResponseJson(this.parentResponseFor(ca, child))
  }

  caChildContactXml(ca: string, child: string): string {
    return encodeParentResponse(this.parentResponseFor(ca, child))
  }

  /** GET …/children: the children a page at a time (api/paging.ts). */
  caChildren(ca: string, q: ListQuery<ChildSort>): ChildrenPageJson {
    return childrenPage(this.d.commands.state(caPath(ca)), q)
  }

  caChildInfo(ca: string, child: string): ChildInfoJson {
    const s = this.d.commands.state(caPath(ca))
    if (!s.children[child]) throw new AppError('ca-child-unknown', { ca, child })
    return childInfo(s, child)
  }

  async caChildUpdate(ca: string, child: string, body: UpdateChildJson): Promise<void> {
    this.d.commands.state(caPath(ca))
    if (body.suspend !== undefined) {
      // Krill's `children suspend|unsuspend`: no local sync afterwards (the child's next request unsuspends it).
      await this.d.commands.run(ca, body.suspend ? { type: 'child-suspend', handle: checkKnownChild(this.d.commands.state(caPath(ca)), ca, child), inactive: false } : { type: 'child-unsuspend', handle: checkKnownChild(this.d.commands.state(caPath(ca)), ca, child) })
      if (body.id_cert === undefined && body.resources === undefined) return
    }
    const update = { type: 'child-update' as const, handle: child, ...(body.id_cert !== undefined ? { idCert: checkIdCert(body.id_cert, this.d.now()) } : {}), ...(body.resources ? { resources: childResources(child, body.resources) } : {}) }
    await this.d.commands.run(ca, update)
  }

  async caChildRemove(ca: string, child: string): Promise<void> {
    this.d.commands.state(caPath(ca))
    await this.d.commands.run(ca, { type: 'child-remove', handle: child })
  }

  /** GET …/children/{child}/export: the child as a new parent imports it (child-transfer.ts). */
  caChildExport(ca: string, child: string): ImportChildJson {
    return childExport(this.d.commands.state(caPath(ca)), child)
  }

  /** POST …/children/{child}/import: add a child moved from another parent, its current key certified again. */
  async caChildImport(ca: string, child: string, body: ImportChildJson): Promise<void> {
    this.d.commands.state(caPath(ca))
    await this.d.commands.run(ca, childImportCommand(ca, child, body, this.d.now()))
  }

  /** Remove every child of a CA (it is being deleted): their certificates are revoked and withdrawn. */
  async removeAll(ca: string): Promise<void> {
    for (const child of Object.keys(this.d.commands.state(ca).children)) await this.d.commands.run(ca, { type: 'child-remove', handle: child })
    this.d.server.forget(ca)
  }

  /** POST /rfc6492/{ca}: the signed answer to a child's CMS-wrapped RFC 6492 message. */
  rfc6492(ca: string, body: Uint8Array): Promise<Uint8Array> {
    this.d.commands.state(caPath(ca))
    return this.d.server.rfc6492(ca, body)
  }

  /** The RFC 8183 parent response for a child (the parent's contact details as the child needs them). */
  private parentResponseFor(ca: string, child: string): ParentResponse {
    const s = this.d.commands.state(caPath(ca))
    if (!s.children[child]) throw new AppError('ca-child-unknown', { ca, child })
    return { parentHandle: s.handle, childHandle: child, serviceUri: `${this.d.serviceUri}rfc6492/${encodeURIComponent(s.handle)}`, idCert: fromBase64(s.idCert) }
  }
}

/**
 * Krill's CA structure import (POST /api/v1/bulk/cas/import; krill:src/daemon/krillserver.rs `cas_import`): into an
 * empty svcd, the embedded trust anchor `ta`, then every CA of the structure in its order, each registered in the
 * embedded repository, added as a child by each of its parents with the resources given and given each parent in
 * turn (in-process, as `svcc children add` and `svcc parents add` do), then its ROAs and ASPAs (svcd's addition).
 * Answers once every CA is certified by its parents and everything is published.
 *
 * Everything is checked before anything changes (api/structure.ts for the document, here for this instance): one
 * `ca-import-invalid` lists every problem. What svcd takes of Krill's `ta` and `publication_server`: svcd's TA and
 * repository are its own configuration, so `ta_aia`/`ta_uri` and `rrdp_base_uri`/`rsync_jail` must name svcd's own
 * URIs (a problem otherwise: svcd does not move its repository for an import); `ta_key_pem` (an existing TA's
 * private key) is refused: svcd makes the TA key in its own signer and never takes a key that lived elsewhere (the new
 * TA needs its new TAL); `ta_mft_nr_override` only makes sense with that key and is refused with it.
 *
 * Order, and what a failure leaves: the TA first, then each CA with its parents (a parent before its children: the
 * structure's order), then ROAs and ASPAs once every CA holds its resources. A failure half-way (storage, signer)
 * answers `ca-import-failed` naming the CAs created so far; deleting them (`svcc delete -c <ca>`, the last first, `ta`
 * last) makes the instance empty again, and the same import can then be sent again.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { checkStructure, IMPORT_PROBLEMS_MAX, IMPORT_TA_HANDLE, type CheckedImportCa, type CheckedStructure } from '../../api/structure.js'
import { heldResources } from '../../ca/children.js'
import type { Signer } from '../../crypto/signer.js'
import { AppError, reasonOf } from '../../errors.js'
import type { Logger } from '../../log.js'
import { ResourceSet, type ResourceSetText } from '../../resources/resource-set.js'
import { createTrustAnchor } from '../../ta/testbed.js'
import type { CaCommands } from './ca-commands.js'
import type { CaFollowUps } from './ca-follow-ups.js'
import type { CaPublisher } from './ca-publisher.js'
import type { CaService } from './ca-service.js'
import type { ChildService } from './child-service.js'
import type { ParentService } from './parent-service.js'
import type { EmbeddedRepository } from './ports.js'

export interface StructureImportDeps {
  commands: Pick<CaCommands, 'handles' | 'exists' | 'state'>
  cas: Pick<CaService, 'create' | 'caRoasUpdate' | 'caAspasUpdate' | 'caFlushed'>
  children: Pick<ChildService, 'caChildAdd' | 'caChildContact'>
  parents: Pick<ParentService, 'caParentAdd' | 'caSyncParents' | 'idle'>
  followUps: Pick<CaFollowUps, 'idle'>
  publisher: Pick<CaPublisher, 'flushed'>
  /** The embedded publication server (the imported CAs publish there), undefined without [repository]. */
  publication: Pick<EmbeddedRepository, 'findPublisher'> | undefined
  /** svcd's [repository] URIs, when it is enabled. */
  repository: { rrdpBaseUri: string; rsyncBaseUri: string } | undefined
  serviceUri: string
  /** `change_control_four_eyes = true`: every ROA/ASPA change needs an approved plan, an import's too. */
  fourEyesEverywhere: boolean
  signer: Signer
  now: () => Date
  random: (n: number) => Uint8Array
  log: Logger
}

/** How many rounds of "wait for the syncs, then ask the parents again" a CA gets to receive its resources. */
const CERTIFY_ROUNDS = 10

const slash = (u: string) => (u.endsWith('/') ? u : `${u}/`)

export class StructureImportService {
  private running = false

  constructor(private readonly d: StructureImportDeps) {}

  /** POST /api/v1/bulk/cas/import: check everything, then build the tree; answers once it is certified and published. */
  async bulkImport(body: unknown): Promise<void> {
    const existing = this.d.commands.handles()
    if (this.running || existing.length > 0) {
      const listed = existing.slice(0, 20).join(', ') + (existing.length > 20 ? ', …' : '')
      const cas = this.running ? `${listed || 'none yet'}; another import is running` : listed
      throw new AppError('ca-import-not-empty', { count: String(existing.length), cas })
    }
    const { structure, problems } = checkStructure(body)
    problems.push(...this.instanceProblems(structure))
    if (problems.length > 0 || !structure) {
      const shown = problems.slice(0, IMPORT_PROBLEMS_MAX).join('; ') + (problems.length > IMPORT_PROBLEMS_MAX ? `; … (${problems.length - IMPORT_PROBLEMS_MAX} more)` : '')
      throw new AppError('ca-import-invalid', { count: String(problems.length), problems: shown })
    }
    this.running = true
    try {
      await this.build(structure)
    } finally {
      this.running = false
    }
  }

  /** What this instance cannot take: no repository, other URIs than svcd's own, a TA key, four-eyes with ROAs. */
  private instanceProblems(s: CheckedStructure | undefined): string[] {
    const problems: string[] = []
    const repo = this.d.repository
    if (!repo || !this.d.publication) {
      problems.push("svcd's embedded repository is off ([repository] enabled = false): the imported CAs publish in it")
    } else if (s?.publicationServer) {
      const p = s.publicationServer
      if (slash(p.rrdpBaseUri) !== slash(repo.rrdpBaseUri)) problems.push(`publication_server.rrdp_base_uri: '${p.rrdpBaseUri}' is not svcd's [repository] rrdp_base_uri '${repo.rrdpBaseUri}'`)
      if (slash(p.rsyncJail) !== slash(repo.rsyncBaseUri)) problems.push(`publication_server.rsync_jail: '${p.rsyncJail}' is not svcd's [repository] rsync_base_uri '${repo.rsyncBaseUri}'`)
    }
    if (s?.ta) {
      const aia = repo ? `${slash(repo.rsyncBaseUri)}${IMPORT_TA_HANDLE}/ta.cer` : undefined
      const uri = `${slash(this.d.serviceUri)}ta/ta.cer`
      if (aia && s.ta.aia !== aia) problems.push(`ta.ta_aia: '${s.ta.aia}' is not where svcd publishes its TA certificate ('${aia}')`)
      if (s.ta.uri !== uri) problems.push(`ta.ta_uri: '${s.ta.uri}' is not where svcd serves its TA certificate ('${uri}')`)
      if (s.ta.keyPem) problems.push('ta.ta_key_pem: svcd does not import an existing trust-anchor key; it makes the TA key in its own signer (leave ta_key_pem out and publish the new TAL)')
      if (s.ta.mftNrOverride !== undefined) problems.push('ta.ta_mft_nr_override: only meaningful with an imported TA key, which svcd does not take; leave it out')
    }
    for (const ca of s?.cas ?? []) {
      if (this.d.publication?.findPublisher(ca.handle)) problems.push(`cas '${ca.handle}': the embedded repository already has a publisher '${ca.handle}' (remove it first)`)
      if (this.d.fourEyesEverywhere && (ca.roas.length > 0 || ca.aspas.length > 0)) problems.push(`cas '${ca.handle}': change_control_four_eyes is on: ROAs and ASPAs need approved plans; import without them, then make plans`)
    }
    if (this.d.publication?.findPublisher(IMPORT_TA_HANDLE)) problems.push(`the embedded repository already has a publisher '${IMPORT_TA_HANDLE}' (the trust anchor's; remove it first)`)
    return problems
  }

  /** The TA, each CA with its parents, then ROAs and ASPAs; then wait for the certificates and the publication. */
  private async build(s: CheckedStructure): Promise<void> {
    const d = this.d
    const created: string[] = []
    const step = async (ca: string, what: string, fn: () => Promise<unknown>) => {
      try {
        await fn()
      } catch (e) {
        d.log.error('structure import stopped', { ca, step: what, err: reasonOf(e), created: created.join(',') })
        const reason = e instanceof AppError && e.status < 500 ? e.message : 'an internal error (see the log)'
        throw new AppError('ca-import-failed', { ca, step: what, reason, created: created.length ? created.join(', ') : 'nothing' }, { cause: e })
      }
    }
    d.log.info('structure import', { cas: s.cas.length })
    await step(IMPORT_TA_HANDLE, 'create the trust anchor', () => d.cas.create(IMPORT_TA_HANDLE, { ta: (st) => createTrustAnchor(st, d.signer, d.serviceUri, d.now(), d.random) }))
    created.push(IMPORT_TA_HANDLE)
    for (const ca of s.cas) {
      await step(ca.handle, 'create the CA', () => d.cas.create(ca.handle))
      created.push(ca.handle)
      for (const p of ca.parents) {
        await step(ca.handle, `wait for parent '${p.handle}' to hold the resources`, () => this.certified(p.handle, p.resources))
        await step(ca.handle, `add it as a child of '${p.handle}'`, () => d.children.caChildAdd(p.handle, { handle: ca.handle, resources: p.resources, id_cert: d.commands.state(ca.handle).idCert }))
        await step(ca.handle, `add parent '${p.handle}'`, () => d.parents.caParentAdd(ca.handle, { json: { handle: p.handle, response: d.children.caChildContact(p.handle, ca.handle) } }))
      }
      await yieldToLoop() // many CAs: other requests are served between them
    }
    d.log.debug('structure import: CAs created, waiting for their certificates')
    for (const ca of s.cas) {
      await step(ca.handle, 'wait for its certificates', () => this.certified(ca.handle, ca.resources))
      await step(ca.handle, 'add its ROAs and ASPAs', () => this.configure(ca))
      await yieldToLoop()
    }
    d.log.debug('structure import: ROAs and ASPAs added, waiting for the publication')
    // Every CA's publication done, then the repository's output written once (RRDP and the rsync tree).
    const all = [IMPORT_TA_HANDLE, ...s.cas.map((c) => c.handle)]
    for (const ca of all) await step(ca, 'publish', () => d.publisher.flushed(ca))
    await step(all[all.length - 1]!, 'publish', () => d.cas.caFlushed(all[all.length - 1]!))
    d.log.info('structure imported', { cas: s.cas.length })
  }

  private async configure(ca: CheckedImportCa): Promise<void> {
    if (ca.roas.length > 0) await this.d.cas.caRoasUpdate(ca.handle, { added: ca.roas, removed: [] })
    if (ca.aspas.length > 0) await this.d.cas.caAspasUpdate(ca.handle, { add_or_replace: ca.aspas, remove: [] })
  }

  /**
   * Resolves once CA `ca` holds `need` (certified by its parents in this svcd): the in-process RFC 6492 exchanges the
   * parent adds set off are waited for; a CA still short is made to ask its parents again, a bounded number of times.
   */
  private async certified(ca: string, need: ResourceSetText): Promise<void> {
    const want = ResourceSet.parse(need)
    const holds = () => heldResources(this.d.commands.state(ca)).contains(want)
    for (let round = 0; round < CERTIFY_ROUNDS; round++) {
      if (holds()) return
      await this.d.followUps.idle()
      await this.d.parents.idle()
      if (holds()) return
      await this.d.parents.caSyncParents(ca)
    }
    if (holds()) return
    const parent = Object.keys(this.d.commands.state(ca).parents).join(', ')
    throw new AppError('ca-parent-sync', { ca, parent, reason: `'${ca}' did not receive ${want.difference(heldResources(this.d.commands.state(ca))).toString()} (svcc parents statuses shows the exchanges)` })
  }
}

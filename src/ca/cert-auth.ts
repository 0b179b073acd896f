/**
 * A CA as an aggregate (Krill's CertAuth): `process` checks a command against the state and returns events,
 * `apply` folds them in. The only logic here is dispatch and the initial state; the rules live in children.ts,
 * parents.ts and routes.ts. Pure apart from the context's signer (new keys, signing child certificates).
 */
import type { AggregateType } from '../eventsourcing.js'
import { AppError } from '../errors.js'
import { checkAspaProvidersUpdate, checkAspasUpdate } from './aspas.js'
import { checkBgpSecUpdate } from './bgpsec.js'
import { processChildAdd, processChildCertify, processChildRemove, processChildRevoke, processChildUpdate, heldResources, reissueChild, shrinkChild } from './children.js'
import { processChildImport } from './child-import.js'
import { commandSummary, type CaCommand } from './commands.js'
import type { CaContext } from './context.js'
import { applyEvent, copyForEvents, type CaEvent } from './events.js'
import {
  processCertificateReceive, processCertificateRequest, processEntitlements, processKeyRevoked, processKeyRollActivate, processKeyRollInit,
  processParentAdd, processParentRemove, processParentUpdate,
} from './parents.js'
import { checkRoaDeltaInput } from './roas.js'
import { stateFingerprint } from './plans.js'
import { processRscSign } from './rsc.js'
import { processChildSuspend, processChildUnsuspend } from './suspension.js'
import { processChildIdConfirm, processIdRollFinish, processIdRollInit } from './id-roll.js'
import { processTaKeyRollActivate, processTaKeyRollFinish, processTaKeyRollInit } from './ta-keyroll.js'
import type { CaState, RepoInfo, TaInfo } from './state.js'

/** The state of a new CA: identity only; no repository, parents, children or ROAs yet (spec §1). */
export function initialState(handle: string, idKey: string, idCert: string, ta?: TaInfo): CaState {
  return { handle, idKey, idCert, repo: undefined, parents: {}, classes: {}, nextClass: 0, children: {}, routes: {}, ...(ta ? { ta } : {}) }
}

/** The aggregate type for runCommand, bound to a context factory (the clock and signer of this command). */
export function certAuthType(ctx: () => CaContext): AggregateType<CaState, CaCommand, CaEvent> {
  return {
    process: (s, c) => processCommand(s, c, ctx()),
    apply: applyEvent,
    copy: copyForEvents,
    summary: commandSummary,
    kind: (c) => c.type,
  }
}

export async function processCommand(s: CaState, c: CaCommand, ctx: CaContext): Promise<CaEvent[]> {
  switch (c.type) {
    case 'repo-update': return processRepoUpdate(s, c, ctx)
    case 'repo-cleanup': return s.oldRepo ? [{ type: 'old-repo-cleaned' }] : []
    case 'parent-add': return processParentAdd(s, c)
    case 'parent-update': return processParentUpdate(s, c)
    case 'parent-remove': return processParentRemove(s, c)
    case 'parent-entitlements-update': return processEntitlements(s, c, ctx)
    case 'certificate-request': return processCertificateRequest(s, c, ctx)
    case 'certificate-receive': return withShrunkChildren(s, processCertificateReceive(s, c, ctx), ctx)
    case 'key-revoked': return processKeyRevoked(s, c)
    case 'child-add': return processChildAdd(s, c)
    case 'child-update': return processChildUpdate(s, c, ctx)
    case 'child-remove': return processChildRemove(s, c)
    case 'child-import': return processChildImport(s, c, ctx)
    case 'child-certify': return processChildCertify(s, c, ctx)
    case 'child-revoke': return processChildRevoke(s, c)
    case 'child-suspend': return processChildSuspend(s, c)
    case 'child-unsuspend': return processChildUnsuspend(s, c, ctx)
    case 'roas-update': return processRoasUpdate(s, c, ctx)
    case 'aspas-update': return checkAspasUpdate(s.handle, s.aspas, heldResources(s), c.addOrReplace, c.remove)
    case 'aspa-providers-update': return checkAspaProvidersUpdate(s.handle, s.aspas, heldResources(s), c.customer, c.added, c.removed)
    case 'plan-apply': return processPlanApply(s, c, ctx)
    case 'change-control-update': return (s.changeControl?.fourEyes ?? false) === c.fourEyes ? [] : [{ type: 'change-control-updated', fourEyes: c.fourEyes }]
    case 'bgpsec-update': return checkBgpSecUpdate(s.handle, s.bgpsec, heldResources(s), c.add, c.remove)
    case 'keyroll-init': return processKeyRollInit(notTa(s, 'init'), c, ctx)
    case 'keyroll-activate': return withChildrenUnderNewKeys(s, processKeyRollActivate(notTa(s, 'activate')), ctx)
    case 'children-shrink': return Object.values(s.children).flatMap((ch) => shrinkChild(s, ch, ctx))
    case 'rsc-sign': return processRscSign(s, c)
    case 'ta-keyroll-init': return processTaKeyRollInit(s, ctx, c.signer)
    case 'ta-keyroll-activate': return withChildrenUnderNewKeys(s, processTaKeyRollActivate(s, ctx), ctx)
    case 'ta-keyroll-finish': return processTaKeyRollFinish(s)
    case 'id-roll-init': return processIdRollInit(s, c)
    case 'id-roll-finish': return processIdRollFinish(s)
    case 'child-id-confirm': return processChildIdConfirm(s, c)
  }
}

/** The trust anchor rolls its key with the TA key roll (RFC 9691: svcc ta keyroll), not the RFC 6489 one. */
function notTa(s: CaState, action: string): CaState {
  if (s.ta) throw new AppError('key-roll-disallowed', { ca: s.handle, action, reason: `the trust anchor rolls its key with 'svcc ta keyroll ${action}'` })
  return s
}

/** RFC 6489 §2.3: after activation every child certificate is re-issued under the class's new current key. */
function withChildrenUnderNewKeys(s: CaState, events: CaEvent[], ctx: CaContext): CaEvent[] {
  const after = structuredClone(s)
  for (const e of events) applyEvent(after, e)
  const moved = new Set(events.filter((e) => e.type === 'key-roll-activated').map((e) => (e as { className: string }).className))
  const reissued = Object.values(after.children).flatMap((ch) => {
    const stale = Object.fromEntries(Object.entries(ch.issued).filter(([, c]) => moved.has(c.className) && c.signedBy !== after.classes[c.className]?.current?.keyId))
    return reissueChild(after, { ...ch, issued: stale }, ctx)
  })
  return [...events, ...reissued]
}

/** After our own certificate changed, children holding more than we now hold get shrunk certificates. */
function withShrunkChildren(s: CaState, events: CaEvent[], ctx: CaContext): CaEvent[] {
  if (events.length === 0) return events
  const after = structuredClone(s)
  for (const e of events) applyEvent(after, e)
  return [...events, ...Object.values(after.children).flatMap((ch) => shrinkChild(after, ch, ctx))]
}

/** `ca-repo-same` unless `repo` differs from the CA's current repository (checked before any network exchange too). */
export function checkRepoChanged(s: CaState, repo: RepoInfo): void {
  if (JSON.stringify(s.repo) === JSON.stringify(repo)) throw new AppError('ca-repo-same', { ca: s.handle })
}

/**
 * Spec §3 rule 1: the CA moves to a new repository. Children's certificates are re-issued at once with the CRL
 * location in the new jail; our own objects are regenerated there by the publisher; our parents re-certify our keys
 * with the new SIA; the previous repository is kept until then (state.oldRepo) and cleaned up afterwards.
 */
function processRepoUpdate(s: CaState, c: Extract<CaCommand, { type: 'repo-update' }>, ctx: CaContext): CaEvent[] {
  checkRepoChanged(s, c.repo)
  if (s.ta) throw new AppError('ca-repo-issue', { ca: s.handle, uri: c.repo.serviceUri, reason: 'the embedded trust anchor cannot move: its TAL names the repository' })
  const certified = Object.values(s.classes).some((rc) => rc.current?.cert)
  const previous = certified ? repoToClean(s, c.repo) : undefined
  const events: CaEvent[] = [{ type: 'repo-updated', repo: c.repo, ...(previous ? { previous } : {}) }]
  const moved = { ...s, repo: c.repo }
  for (const ch of Object.values(s.children)) events.push(...reissueChild(moved, ch, ctx))
  return events
}

/**
 * Issue 22 defect 5: the same publisher at the same repository (its service URI, or the embedded repository's handle)
 * holds the CA's current objects, so it is never the "old" repository to be emptied and released.
 */
export function samePublisher(a: RepoInfo, b: RepoInfo): boolean {
  return a.serviceUri === b.serviceUri || (a.embedded && b.embedded && a.publisherHandle === b.publisherHandle)
}

/**
 * The repository to clean up once the move to `to` is complete: the current one when it is another publisher and no
 * earlier move is pending; when going back to the pending move's old repository, the one being left instead.
 */
function repoToClean(s: CaState, to: RepoInfo): RepoInfo | undefined {
  if (!s.repo || samePublisher(s.repo, to)) return undefined
  if (!s.oldRepo || samePublisher(s.oldRepo, to)) return s.repo
  return undefined
}

/**
 * A plan (ca/plans.ts), applied in one command: refused as stale unless the CA's ROA/ASPA configuration is still the
 * one the plan was made against (checked under the CA's lock, so nothing can slip in between); then its ROA delta and
 * its ASPA update, each checked as the direct updates are, all or nothing.
 */
async function processPlanApply(s: CaState, c: Extract<CaCommand, { type: 'plan-apply' }>, ctx: CaContext): Promise<CaEvent[]> {
  if (stateFingerprint(s) !== c.base) throw new AppError('ca-plan-stale', { ca: s.handle, plan: String(c.plan) })
  const roas = await processRoasUpdate(s, { type: 'roas-update', ...c.roas }, ctx)
  const aspas = c.aspas.addOrReplace.length || c.aspas.remove.length ? checkAspasUpdate(s.handle, s.aspas, heldResources(s), c.aspas.addOrReplace, c.aspas.remove) : []
  return [...roas, ...aspas]
}

async function processRoasUpdate(s: CaState, c: Extract<CaCommand, { type: 'roas-update' }>, ctx: CaContext): Promise<CaEvent[]> {
  // In slices with pauses between them (issue 22): a delta may hold 100,000 authorisations and more.
  const changes = await checkRoaDeltaInput(s.routes, c, heldResources(s), ctx.now, ctx.pause, s.handle)
  if (!changes.added.length && !changes.removed.length && !changes.comments.length) return []
  return [{ type: 'roas-updated', changes }]
}

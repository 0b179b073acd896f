/**
 * CA state as the JSON API shows it (krill-reference.md §1.1): CertAuthInfo, parent contacts and statuses, child
 * info, repository details, issues (the configured ROAs: ca-roas-view.ts). Read-only mapping; no decisions.
 * Resource sets go out in their canonical text (stored state may hold an older spelling, e.g. 'AS1-2'); exchange
 * times as Krill's `Timestamp`, unix seconds (krill:src/api/ca.rs ParentStatus, RepoStatus, ParentExchange).
 */
import type { ActorJson, CaIssuesJson, CertAuthInfo, CommandDetailsJson, CommandHistoryJson, ChildInfoJson, ExchangeJson, KeyInfoJson, ParentContactJson, ParentStatusJson, RepoInfoJson } from '../../api/cas.js'
import { heldResources } from '../../ca/children.js'
import { eventSummary, type CaEvent } from '../../ca/events.js'
import type { StoredCommand } from '../../eventsourcing.js'
import { keyState, type CaKey, type CaState } from '../../ca/state.js'
import { idCertInfo, type IdCertInfo } from '../../protocol/id-cert.js'
import { ResourceSet, type ResourceSetText } from '../../resources/resource-set.js'
import { fromBase64 } from '../../util/base64.js'
import type { CaKeySummary } from '../../ca/object-model.js'
import type { ExchangeStatus } from '../../store/interfaces.js'
import type { ChildRowJson, ChildSort, ChildrenPageJson, ListQuery } from '../../api/paging.js'
import { compareText, pageOf } from '../../util/paging.js'

/**
 * The JSON of an identity certificate (base64 DER), remembered: a CA's page shows its own and its parents' on every
 * request (a client polling a CA decoded the same certificates again and again). At most this many are kept.
 */
const ID_CERT_CACHE = 4096
const idCertCache = new Map<string, IdCertInfo>()

function idCertJson(base64: string): IdCertInfo {
  let info = idCertCache.get(base64)
  if (!info) {
    info = idCertInfo(fromBase64(base64))
    if (idCertCache.size >= ID_CERT_CACHE) idCertCache.delete(idCertCache.keys().next().value!)
    idCertCache.set(base64, info)
  }
  return { ...info }
}

/** `signerOf`: the name of the signer holding a key (shown beside each key; issue 25), undefined when unknown. */
export function certAuthInfo(s: CaState, objects: readonly CaKeySummary[], signerOf: (keyId: string) => string | undefined = () => undefined): CertAuthInfo {
  const classes: CertAuthInfo['resource_classes'] = {}
  for (const rc of Object.values(s.classes)) {
    const state = keyState(rc)
    const keys: Record<string, KeyInfoJson> = {}
    if (rc.current) keys[state === 'pending' ? 'pending_key' : 'active_key'] = keyInfo(rc.current, signerOf)
    if (rc.next) keys.new_key = keyInfo(rc.next, signerOf)
    if (rc.old) keys.old_key = keyInfo(rc.old, signerOf)
    const current_objects = objects.filter((o) => o.state.className === rc.name).flatMap((o) => o.objects.map((x) => x.name))
    classes[rc.name] = { name_space: rc.name, parent_handle: rc.parent || s.handle, keys: { [state]: keys }, current_objects }
  }
  return {
    handle: s.handle,
    id_cert: idCertJson(s.idCert),
    ...(s.idNext ? { id_cert_pending: idCertJson(s.idNext.idCert) } : {}),
    repo_info: s.repo ? { sia_base: s.repo.siaBase, rrdp_notification_uri: s.repo.rrdpNotificationUri } : null,
    parents: Object.keys(s.parents).sort().map((handle) => ({ handle, kind: 'rfc6492' as const })),
    resources: heldResources(s).toJSON(),
    resource_classes: classes,
    children: Object.keys(s.children).filter((c) => !s.children[c]!.suspended).sort(),
    suspended_children: Object.keys(s.children).filter((c) => s.children[c]!.suspended).sort(),
  }
}

function keyInfo(k: CaKey, signerOf: (keyId: string) => string | undefined): KeyInfoJson {
  const signer = signerOf(k.keyId)
  return {
    key_id: k.keyId,
    ...(signer === undefined ? {} : { signer }),
    incoming_cert: k.cert ? { cert: k.cert.der, uri: k.cert.uri, resources: canonical(k.cert.resources) } : null,
    request: k.requested ? { time: k.requested } : null,
  }
}

export function parentContact(s: CaState, name: string): ParentContactJson {
  const p = s.parents[name]
  return { type: 'rfc6492', service_uri: p.serviceUri, parent_handle: p.parentHandle, child_handle: p.childHandle, id_cert: idCertJson(p.idCert) }
}

export function exchangeJson(e: ExchangeStatus | undefined): ExchangeJson | null {
  if (!e) return null
  return { timestamp: unixSeconds(e.time), uri: e.uri, result: e.result === 'success' ? 'Success' : { Failure: { label: e.label ?? 'general-error', msg: e.msg ?? '', args: e.args ?? {} } } }
}

export function parentStatus(s: CaState, name: string, status: ExchangeStatus | undefined): ParentStatusJson {
  const classes = Object.values(s.classes).filter((rc) => rc.parent === name)
  const all = classes.reduce((acc, rc) => acc.union(ResourceSet.parse(rc.entitled)), ResourceSet.empty())
  return {
    last_exchange: exchangeJson(status),
    last_success: status?.lastSuccess ? unixSeconds(status.lastSuccess) : null,
    all_resources: all.toJSON(),
    classes: classes.map((rc) => ({ class_name: rc.parentClass, resource_set: canonical(rc.entitled), not_after: rc.notAfter })),
  }
}

export function childInfo(s: CaState, child: string): ChildInfoJson {
  const c = s.children[child]
  return { state: c.suspended ? 'suspended' : 'active', id_cert: idCertJson(c.idCert), entitled_resources: canonical(c.resources) }
}

/** GET …/children: a page of the CA's children (api/paging.ts), searched in the handle and the resources. */
export function childrenPage(s: CaState, q: ListQuery<ChildSort>): ChildrenPageJson {
  const rows: ChildRowJson[] = Object.keys(s.children)
    .sort(compareText)
    .map((handle) => ({ handle, state: s.children[handle]!.suspended ? 'suspended' : 'active', entitled_resources: canonical(s.children[handle]!.resources) }))
  const text = (r: ChildRowJson) => `${r.handle}\n${r.entitled_resources.asn}\n${r.entitled_resources.ipv4}\n${r.entitled_resources.ipv6}`
  const page = pageOf(rows, q, { text, compare: { handle: (a, b) => compareText(a.handle, b.handle), state: (a, b) => compareText(a.state, b.state) } })
  return { total: page.total, offset: q.offset, limit: q.limit, children: page.items }
}

/** A stored resource set in the canonical text of today ('AS1-AS2', Krill's form). */
export function canonical(r: ResourceSetText): ResourceSetText {
  return ResourceSet.parse(r).toJSON()
}

/** A stored ISO 8601 time as Krill's `Timestamp`: whole seconds since the epoch. */
export function unixSeconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000)
}

export function repoInfo(s: CaState): RepoInfoJson {
  if (!s.repo) return { contact: null }
  const r = s.repo
  return {
    contact: {
      type: r.embedded ? 'embedded' : 'remote',
      repo_info: { sia_base: r.siaBase, rrdp_notification_uri: r.rrdpNotificationUri },
      server_info: { public_key: idCertJson(r.serverIdCert).public_key, service_uri: r.serviceUri },
    },
  }
}

export function caIssues(statuses: { kind: string; name: string; status: ExchangeStatus }[]): CaIssuesJson {
  const issue = (st: ExchangeStatus) => ({ label: st.label ?? 'general-error', msg: st.msg ?? '', args: st.args ?? {} })
  const repo = statuses.find((x) => x.kind === 'repo' && x.status.result === 'failure')
  const objects = statuses.find((x) => x.kind === 'objects' && x.status.result === 'failure')
  return {
    repo_issue: repo ? issue(repo.status) : null,
    parent_issues: statuses.filter((x) => x.kind === 'parent' && x.status.result === 'failure').map((x) => ({ parent: x.name, issue: issue(x.status) })),
    ...(objects ? { objects_issue: issue(objects.status) } : {}),
  }
}

/** Who ran a command: Krill's `actor`, and beside it the provider and an API token's name (records before issue 24 have neither). */
function actorJson(r: StoredCommand): ActorJson {
  return { actor: r.actor, actor_provider: r.provider ?? (r.actor === 'admin-token' ? 'admin-token' : 'svc'), actor_token: r.token ?? null }
}

/** The history page (krill-reference.md §4 CommandHistory): `version` is the action key. */
export function historyJson(offset: number, h: { total: number; records: StoredCommand[] }): CommandHistoryJson {
  return {
    offset,
    total: h.total,
    commands: h.records.map((r) => ({
      ...actorJson(r),
      timestamp: Date.parse(r.time),
      handle: r.handle,
      version: r.seq,
      summary: r.summary,
      effect: r.effect.result === 'success' ? { Ok: (r.effect.events as CaEvent[]).map(eventSummary) } : { Error: r.effect.msg },
    })),
  }
}

/** One action with its events (krill-reference.md §4 CommandDetails). */
export function historyDetailsJson(r: StoredCommand): CommandDetailsJson {
  const effect: CommandDetailsJson['effect'] = r.effect.result === 'success' ? { result: 'success', events: (r.effect.events as CaEvent[]).map((e) => ({ msg: eventSummary(e), details: e })) } : { result: 'error', msg: r.effect.msg }
  return { ...actorJson(r), time: r.time, handle: r.handle, version: r.seq, msg: r.summary.msg, details: r.details, effect }
}

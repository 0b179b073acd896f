/**
 * Krill's CA structure import (POST /api/v1/bulk/cas/import, krill:src/api/import.rs `Structure`): the wire JSON and
 * its checks. `{"ta"?:{ta_aia,ta_uri,ta_key_pem?,ta_mft_nr_override?}, "publication_server"?:{rrdp_base_uri,rsync_jail},
 * "cas":[{"handle","parent":{handle,resources}|[…],"roas"?:[…],"aspas"?:[…]}]}`. `aspas` (Krill's ASPA definition
 * shape `{customer, providers}`) is svcd's addition: Krill's import has none. Also read, as Krill's older files have
 * them: `ta_aia`/`ta_uri`/`publication_server_uris` at the top, `parents` for `parent`, and `"parent": "<handle>"` with
 * the CA's `resources` beside it (krill:test-resources/bulk-ca-import/cas-only.json).
 * checkStructure finds every problem of the document itself (syntax, handles, order, resources, ROAs, ASPAs) at once;
 * what depends on the instance (empty, repository URIs, the TA's URIs) is app/ca/structure-import.ts's.
 */
import { ASN_MAX } from '../resources/asn.js'
import { formatPrefix } from '../resources/ip.js'
import { ResourceSet, type ResourceSetText } from '../resources/resource-set.js'
import { checkMaxLength, parseRoaPayload, roaPayloadKey } from '../resources/roa-payload.js'
import { LOCAL_HANDLE } from '../util/handle.js'

/** The trust anchor of the import (Krill's ImportTa): the TA certificate's rsync and https URIs. */
export interface ImportTaJson {
  ta_aia: string
  ta_uri: string
  /** Krill: an existing TA's private key (PEM). svcd refuses it (see structure-import.ts). */
  ta_key_pem?: string
  ta_mft_nr_override?: number
}

/** Krill's PublicationServerUris. */
export interface PublicationServerUrisJson {
  rrdp_base_uri: string
  rsync_jail: string
}

export interface ImportResourcesJson {
  asn?: string
  ipv4?: string
  ipv6?: string
}

export interface ImportParentJson {
  handle: string
  resources: ImportResourcesJson
}

/** A ROA as Krill's RoaConfiguration writes it. */
export interface ImportRoaJson {
  asn: number
  prefix: string
  max_length?: number | null
  comment?: string | null
}

export interface ImportCaJson {
  handle: string
  /** One parent or several (Krill's `OneOrMany`). */
  parent: ImportParentJson | ImportParentJson[]
  roas?: ImportRoaJson[]
  /** svcd's addition: ASPA definitions, as POST …/aspas takes them. */
  aspas?: { customer: number; providers: number[] }[]
}

export interface StructureJson {
  ta?: ImportTaJson
  publication_server?: PublicationServerUrisJson
  cas?: ImportCaJson[]
}

/** The trust anchor's handle: always there in an import (Krill treats it as implicitly present with all resources). */
export const IMPORT_TA_HANDLE = 'ta'
/** At most this many CAs in one import. */
export const IMPORT_CAS_MAX = 10_000
/** At most this many problems are listed (the count says how many there were). */
export const IMPORT_PROBLEMS_MAX = 50

/** A checked CA: parents with parsed grants, its resources (their union), ROAs and ASPAs normalised. */
export interface CheckedImportCa {
  handle: string
  parents: { handle: string; resources: ResourceSetText }[]
  resources: ResourceSetText
  roas: { asn: number; prefix: string; max_length: number; comment?: string }[]
  aspas: { customer: number; providers: number[] }[]
}

export interface CheckedStructure {
  ta?: { aia: string; uri: string; keyPem: boolean; mftNrOverride?: number }
  publicationServer?: { rrdpBaseUri: string; rsyncJail: string }
  cas: CheckedImportCa[]
}

const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isAsn = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= ASN_MAX
const q = (s: unknown) => JSON.stringify(s)

function unknownKeys(v: Record<string, unknown>, known: readonly string[], where: string, problems: string[]): void {
  for (const k of Object.keys(v)) if (!known.includes(k)) problems.push(`${where}: unknown field ${q(k)}`)
}

/**
 * Check a structure document: every problem found (each names where: `cas[2] 'child2': …`), and what of the
 * structure passed (all of it when there is no problem; the instance's own checks look at it too). `structure` is
 * undefined only when the document is no object at all.
 */
export function checkStructure(v: unknown): { structure?: CheckedStructure; problems: string[] } {
  const problems: string[] = []
  if (!obj(v)) return { problems: ['the structure must be a JSON object {"ta"?, "publication_server"?, "cas": […]}'] }
  unknownKeys(v, ['ta', 'publication_server', 'cas', 'ta_aia', 'ta_uri', 'publication_server_uris'], 'structure', problems)
  const ta = checkTa(v, problems)
  const publicationServer = checkPublicationServer(v.publication_server ?? v.publication_server_uris, problems)
  // Krill's `cas` may be left out (a TA only); a structure with neither is nothing to import.
  const cas = v.cas === undefined && ta ? [] : checkCas(v.cas, problems, ta !== undefined)
  return { structure: { ...(ta ? { ta } : {}), ...(publicationServer ? { publicationServer } : {}), cas }, problems }
}

function checkTa(v: Record<string, unknown>, problems: string[]): CheckedStructure['ta'] {
  const t: unknown = v.ta ?? (v.ta_aia !== undefined || v.ta_uri !== undefined ? { ta_aia: v.ta_aia, ta_uri: v.ta_uri } : undefined)
  if (t === undefined || t === null) return undefined
  if (!obj(t)) {
    problems.push('ta: must be an object {"ta_aia","ta_uri"}')
    return undefined
  }
  unknownKeys(t, ['ta_aia', 'ta_uri', 'ta_key_pem', 'ta_mft_nr_override'], 'ta', problems)
  if (typeof t.ta_aia !== 'string' || !t.ta_aia.startsWith('rsync://')) problems.push('ta.ta_aia: must be the rsync URI of the TA certificate (rsync://…)')
  if (typeof t.ta_uri !== 'string' || !t.ta_uri.startsWith('https://')) problems.push('ta.ta_uri: must be the https URI of the TA certificate (https://…)')
  if (t.ta_key_pem !== undefined && t.ta_key_pem !== null && typeof t.ta_key_pem !== 'string') problems.push('ta.ta_key_pem: must be a string') // never echoed
  const mft = t.ta_mft_nr_override
  if (mft !== undefined && mft !== null && !(typeof mft === 'number' && Number.isSafeInteger(mft) && mft >= 0)) problems.push('ta.ta_mft_nr_override: must be a whole number')
  return {
    aia: String(t.ta_aia),
    uri: String(t.ta_uri),
    keyPem: typeof t.ta_key_pem === 'string',
    ...(typeof mft === 'number' ? { mftNrOverride: mft } : {}),
  }
}

function checkPublicationServer(p: unknown, problems: string[]): CheckedStructure['publicationServer'] {
  if (p === undefined || p === null) return undefined
  if (!obj(p)) {
    problems.push('publication_server: must be an object {"rrdp_base_uri","rsync_jail"}')
    return undefined
  }
  unknownKeys(p, ['rrdp_base_uri', 'rsync_jail'], 'publication_server', problems)
  // krill-reference.md §1.1 pubd init: both end with '/'.
  if (typeof p.rrdp_base_uri !== 'string' || !/^https:\/\/.+\/$/.test(p.rrdp_base_uri)) problems.push("publication_server.rrdp_base_uri: must be an https URI ending with '/'")
  if (typeof p.rsync_jail !== 'string' || !/^rsync:\/\/.+\/$/.test(p.rsync_jail)) problems.push("publication_server.rsync_jail: must be an rsync URI ending with '/'")
  return { rrdpBaseUri: String(p.rrdp_base_uri), rsyncJail: String(p.rsync_jail) }
}

function checkCas(v: unknown, problems: string[], withTa: boolean): CheckedImportCa[] {
  if (v === undefined || v === null) {
    problems.push('cas: the structure lists no CAs (and no "ta")')
    return []
  }
  if (!Array.isArray(v)) {
    problems.push('cas: must be a list of CAs')
    return []
  }
  if (v.length === 0 && !withTa) problems.push('cas: the structure lists no CAs (and no "ta")')
  if (v.length > IMPORT_CAS_MAX) {
    problems.push(`cas: at most ${IMPORT_CAS_MAX} CAs in one import (${v.length} given)`)
    return []
  }
  // Every CA's resources as the structure gives them (the TA holds everything), in the order of the list.
  const seen = new Map<string, ResourceSet>([[IMPORT_TA_HANDLE, ResourceSet.all()]])
  const listed = new Map<string, number>()
  v.forEach((ca, i) => {
    if (obj(ca) && typeof ca.handle === 'string' && !listed.has(ca.handle.toLowerCase())) listed.set(ca.handle.toLowerCase(), i)
  })
  const out: CheckedImportCa[] = []
  v.forEach((ca, i) => {
    const c = checkCa(ca, i, seen, listed, problems)
    if (c) out.push(c)
  })
  problems.push(...cycles(v))
  return out
}

function checkCa(ca: unknown, i: number, seen: Map<string, ResourceSet>, listed: Map<string, number>, problems: string[]): CheckedImportCa | undefined {
  if (!obj(ca)) {
    problems.push(`cas[${i}]: must be an object {"handle","parent","roas"?,"aspas"?}`)
    return undefined
  }
  const where = `cas[${i}]${typeof ca.handle === 'string' ? ` '${ca.handle}'` : ''}`
  const before = problems.length
  unknownKeys(ca, ['handle', 'parent', 'parents', 'resources', 'roas', 'aspas'], where, problems)
  const handle = typeof ca.handle === 'string' ? ca.handle : ''
  if (typeof ca.handle !== 'string' || !LOCAL_HANDLE.test(ca.handle)) problems.push(`${where}: the handle must be 1 to 255 letters, digits, '-' or '_'`)
  else if (handle.toLowerCase() === IMPORT_TA_HANDLE) problems.push(`${where}: the handle '${IMPORT_TA_HANDLE}' is reserved for the trust anchor`)
  else if (listed.get(handle.toLowerCase()) !== i) problems.push(`${where}: the handle is listed twice (also cas[${listed.get(handle.toLowerCase())}])`)
  const parents = parentsOf(ca, where, problems)
  let resources = ResourceSet.empty()
  const checkedParents: CheckedImportCa['parents'] = []
  const parentSeen = new Set<string>()
  for (const p of parents) {
    if (p.handle === handle) {
      problems.push(`${where}: a CA cannot be its own parent`)
      continue
    }
    if (parentSeen.has(p.handle)) problems.push(`${where}: parent '${p.handle}' is named twice`)
    parentSeen.add(p.handle)
    const grant = parseGrant(p.resources, `${where} parent '${p.handle}'`, problems)
    const parentHolds = seen.get(p.handle)
    if (!parentHolds) {
      const at = listed.get(p.handle.toLowerCase())
      problems.push(at !== undefined && at > i
        ? `${where}: parent '${p.handle}' is listed after this CA (cas[${at}]); a parent must come before its children`
        : `${where}: parent '${p.handle}' is neither the trust anchor '${IMPORT_TA_HANDLE}' nor a CA listed before this one`)
    } else if (grant && !parentHolds.contains(grant)) {
      problems.push(`${where}: parent '${p.handle}' does not hold ${grant.difference(parentHolds).toString()}`)
    }
    if (grant) {
      resources = resources.union(grant)
      checkedParents.push({ handle: p.handle, resources: grant.toJSON() })
    }
  }
  if (handle && !seen.has(handle)) seen.set(handle, resources)
  const roas = checkRoas(ca.roas, where, resources, problems)
  const aspas = checkAspas(ca.aspas, where, resources, problems)
  if (problems.length > before) return undefined
  return { handle, parents: checkedParents, resources: resources.toJSON(), roas, aspas }
}

/** The parents as given: `parent` (or `parents`) as one object, a list, or a handle with the CA's `resources`. */
function parentsOf(ca: Record<string, unknown>, where: string, problems: string[]): { handle: string; resources: unknown }[] {
  if (ca.parent !== undefined && ca.parents !== undefined) problems.push(`${where}: give "parent" or "parents", not both`)
  const p = ca.parent ?? ca.parents
  if (typeof p === 'string') return [{ handle: p, resources: ca.resources }]
  if (ca.resources !== undefined) problems.push(`${where}: "resources" belong to each parent ({"handle","resources"})`)
  const list = Array.isArray(p) ? p : p === undefined || p === null ? [] : [p]
  if (list.length === 0) problems.push(`${where}: the CA needs a parent ({"handle","resources"}), e.g. '${IMPORT_TA_HANDLE}'`)
  const out: { handle: string; resources: unknown }[] = []
  list.forEach((x: unknown, j) => {
    if (!obj(x) || typeof x.handle !== 'string') return void problems.push(`${where}: parent ${j + 1} must be an object {"handle","resources"}`)
    unknownKeys(x, ['handle', 'resources'], `${where} parent '${x.handle}'`, problems)
    out.push({ handle: x.handle, resources: x.resources })
  })
  return out
}

function parseGrant(r: unknown, where: string, problems: string[]): ResourceSet | undefined {
  if (!obj(r)) return void problems.push(`${where}: resources must be an object {"asn","ipv4","ipv6"}`)
  unknownKeys(r, ['asn', 'ipv4', 'ipv6', 'v4', 'v6'], `${where} resources`, problems)
  for (const k of ['asn', 'ipv4', 'ipv6', 'v4', 'v6']) if (r[k] !== undefined && r[k] !== null && typeof r[k] !== 'string') return void problems.push(`${where}: resources.${k} must be a string`)
  try {
    const set = ResourceSet.parse({ asn: (r.asn as string | undefined) ?? '', ipv4: ((r.ipv4 ?? r.v4) as string | undefined) ?? '', ipv6: ((r.ipv6 ?? r.v6) as string | undefined) ?? '' })
    if (set.isEmpty()) return void problems.push(`${where}: the resources are empty; a child must be given at least some`)
    return set
  } catch (e) {
    return void problems.push(`${where}: invalid resources: ${e instanceof Error ? e.message : String(e)}`)
  }
}

function checkRoas(v: unknown, where: string, held: ResourceSet, problems: string[]): CheckedImportCa['roas'] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) {
    problems.push(`${where}: roas must be a list`)
    return []
  }
  const out: CheckedImportCa['roas'] = []
  const keys = new Set<string>()
  v.forEach((r: unknown, j) => {
    const at = `${where} roas[${j}]`
    if (!obj(r) || !isAsn(r.asn) || typeof r.prefix !== 'string') return void problems.push(`${at}: needs "asn" (an AS number) and "prefix" (a string)`)
    unknownKeys(r, ['asn', 'prefix', 'max_length', 'comment'], at, problems)
    if (r.max_length !== undefined && r.max_length !== null && !(typeof r.max_length === 'number' && Number.isInteger(r.max_length))) return void problems.push(`${at}: max_length must be a whole number`)
    if (r.comment !== undefined && r.comment !== null && typeof r.comment !== 'string') return void problems.push(`${at}: comment must be a string`)
    let payload
    try {
      payload = parseRoaPayload(`${r.prefix}${typeof r.max_length === 'number' ? `-${r.max_length}` : ''} => ${r.asn}`)
    } catch (e) {
      return void problems.push(`${at}: ${e instanceof Error ? e.message : String(e)}`)
    }
    const text = `${formatPrefix(payload.prefix)}-${payload.maxLength} => ${payload.asn}`
    const length = checkMaxLength(payload)
    if (length) return void problems.push(`${at}: ${length}`)
    if (!held.ipv4.containsPrefix(payload.prefix) && !held.ipv6.containsPrefix(payload.prefix)) return void problems.push(`${at}: ${text} is outside the CA's resources (${held.toString()})`)
    const key = roaPayloadKey(payload)
    if (keys.has(key)) return void problems.push(`${at}: ${text} is listed twice`)
    keys.add(key)
    out.push({ asn: payload.asn, prefix: formatPrefix(payload.prefix), max_length: payload.maxLength, ...(typeof r.comment === 'string' && r.comment !== '' ? { comment: r.comment } : {}) })
  })
  return out
}

/** The ASPA rules of ca/aspas.ts checkAspa (draft-ietf-sidrops-aspa-profile §3.3), all reported. */
function checkAspas(v: unknown, where: string, held: ResourceSet, problems: string[]): CheckedImportCa['aspas'] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) {
    problems.push(`${where}: aspas must be a list of {"customer","providers"}`)
    return []
  }
  const out: CheckedImportCa['aspas'] = []
  const customers = new Set<number>()
  v.forEach((a: unknown, j) => {
    const at = `${where} aspas[${j}]`
    if (!obj(a) || !isAsn(a.customer) || !Array.isArray(a.providers) || !a.providers.every(isAsn)) return void problems.push(`${at}: needs "customer" (an AS number) and "providers" (a list of AS numbers)`)
    unknownKeys(a, ['customer', 'providers'], at, problems)
    const providers = a.providers as number[]
    const c = a.customer
    if (customers.has(c)) problems.push(`${at}: customer AS${c} is listed twice`)
    customers.add(c)
    if (providers.length === 0) problems.push(`${at}: AS${c} needs at least one provider (AS0 alone for none)`)
    if (new Set(providers).size !== providers.length) problems.push(`${at}: AS${c} lists a provider twice`)
    if (providers.includes(c)) problems.push(`${at}: AS${c} cannot be its own provider`)
    if (providers.includes(0) && providers.length > 1) problems.push(`${at}: AS0 must stand alone`)
    if (!held.asn.containsAsn(c)) problems.push(`${at}: customer AS${c} is outside the CA's resources`)
    out.push({ customer: c, providers: [...providers].sort((x, y) => x - y) })
  })
  return out
}

/** Cycles among the parents named (a CA that is, through its parents, its own ancestor): each reported once. */
function cycles(cas: unknown[]): string[] {
  const edges = new Map<string, string[]>()
  for (const ca of cas) {
    if (!obj(ca) || typeof ca.handle !== 'string') continue
    const p = ca.parent ?? ca.parents
    const list = typeof p === 'string' ? [p] : (Array.isArray(p) ? p : [p]).flatMap((x: unknown) => (obj(x) && typeof x.handle === 'string' ? [x.handle] : []))
    edges.set(ca.handle, [...(edges.get(ca.handle) ?? []), ...list])
  }
  const found: string[] = []
  const reported = new Set<string>()
  const state = new Map<string, 'open' | 'done'>()
  const visit = (h: string, path: string[]): void => {
    if (state.get(h) === 'done') return
    if (state.get(h) === 'open') {
      const loop = [...path.slice(path.indexOf(h)), h]
      const key = [...new Set(loop)].sort().join(',')
      if (!reported.has(key)) found.push(`cycle: ${loop.map((x) => `'${x}'`).join(' → ')} (each is the parent of the one before)`)
      reported.add(key)
      return
    }
    state.set(h, 'open')
    for (const p of edges.get(h) ?? []) if (p !== h && edges.has(p)) visit(p, [...path, h])
    state.set(h, 'done')
  }
  for (const h of edges.keys()) visit(h, [])
  return found
}

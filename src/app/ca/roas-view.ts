/**
 * The `roas list` view of a CA (GET /api/v1/cas/{ca}/routes; krill-reference.md §1.1 ConfiguredRoa), paged, with
 * work per request bounded by the page (issue 10, defect 5).
 *
 * Krill embeds every ROA object in each configured authorisation it carries. An aggregated ROA (one per ASN above
 * the aggregation threshold, krill-reference.md §5) carries many, so the listing grew with the square of the ROA
 * count. Here each ROA object is given in full (`authorizations`, `base64`) once in the whole listing: at the first
 * authorisation, in listing order, that it carries. The other authorisations it carries refer to it with `uri` and
 * `hash` (plus `serial` and `validity`). Below the aggregation threshold every object carries one authorisation,
 * so the listing is exactly Krill's.
 *
 * The listing order (RFC 9582 payload order: family, address, length, max length, ASN) and which object each
 * authorisation shows are kept in an index per CA, rebuilt when the CA's configuration or objects change (its
 * snapshot version or its manifest numbers), in slices that yield to the event loop. A page then costs its own
 * size: the objects it shows are read and decoded one by one, and what a decode yields is kept in the index.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { ConfiguredRoa, RoaObjectJson, RoasPageJson, RoasQuery } from '../../api/cas.js'
import { classDir } from '../../ca/locations.js'
import { roaConfigPayload, type RoaConfig } from '../../ca/roas.js'
import { AppError } from '../../errors.js'
import { decodeRoa } from '../../objects/roa.js'
import { compareRoaPayloads, formatRoaPayload, type RoaPayload } from '../../resources/roa-payload.js'
import { toBase64 } from '../../util/base64.js'
import type { CaObjectsStore } from '../../store/interfaces.js'
import type { CaCommands } from './ca-commands.js'

/** Routes handled between two yields to the event loop while an index or a page is built. */
const SLICE = 2_000

interface IndexedObject {
  keyId: string
  name: string
  uri: string
  hash: string
  serial: string
  /** Filled on first use from the decoded object. */
  decoded?: { validity: RoaObjectJson['validity']; authorizations: string[] }
}

interface IndexedRoa {
  config: RoaConfig
  /** The objects carrying it (indices into RoutesIndex.objects). */
  objects: number[]
  /** Those of `objects` given in full here (this is the first route, in listing order, that they carry). */
  full?: Set<number>
}

interface RoasIndex {
  /** Snapshot version and manifest numbers it was built from. */
  tag: string
  routes: IndexedRoa[]
  objects: IndexedObject[]
  /** What a search looks in, per route (lower case): made on the first search, kept with the index. */
  texts?: string[]
}

export interface RoasPage {
  /** Configured authorisations in all. */
  total: number
  items: ConfiguredRoa[]
}

export class RoasView {
  private readonly indexes = new Map<string, RoasIndex>()
  private readonly building = new Map<string, { tag: string; index: Promise<RoasIndex> }>()
  /** Per CA, the matches of its last query (RoasView.query). */
  private readonly queries = new Map<string, { tag: string; key: string; order: number[] }>()

  constructor(private readonly d: { commands: CaCommands; objects: CaObjectsStore }) {}

  /** Authorisations `offset` to `offset + limit` (fewer at the end) in listing order, with the total. */
  async page(ca: string, offset: number, limit: number): Promise<RoasPage> {
    const index = await this.index(ca)
    const slice = index.routes.slice(offset, offset + limit)
    const items: ConfiguredRoa[] = []
    for (let i = 0; i < slice.length; i++) {
      if (i > 0 && i % SLICE === 0) await yieldToLoop()
      const r = slice[i]!
      items.push({
        asn: r.config.asn,
        prefix: r.config.prefix,
        max_length: r.config.maxLength,
        comment: r.config.comment ?? null,
        roa_objects: r.objects.flatMap((o) => this.objectJson(ca, index.objects[o]!, r.full?.has(o) ?? false)),
      })
    }
    return { total: index.routes.length, items }
  }

  /**
   * The console's table (api/cas.ts RoasQuery): authorisations matching `q.q`, sorted by `q.sort`, a page of light
   * rows. The matches of the CA's last query are kept while the index holds, so paging through them costs a page.
   */
  async query(ca: string, q: RoasQuery): Promise<RoasPageJson> {
    const index = await this.index(ca)
    const key = `${q.q.toLowerCase()}\n${q.sort}\n${q.order}`
    let kept = this.queries.get(ca)
    if (kept?.tag !== index.tag || kept.key !== key) {
      kept = { tag: index.tag, key, order: await this.select(index, q) }
      this.queries.set(ca, kept)
    }
    const items = kept.order.slice(q.offset, q.offset + q.limit).map((i) => {
      const r = index.routes[i]!
      return { asn: r.config.asn, prefix: r.config.prefix, max_length: r.config.maxLength, comment: r.config.comment ?? null, roa_objects: r.objects.length }
    })
    return { total: kept.order.length, offset: q.offset, limit: q.limit, items }
  }

  /** Drop what is kept for a CA (deleted). */
  forget(ca: string): void {
    this.indexes.delete(ca)
    this.queries.delete(ca)
  }

  /** Indices into index.routes of the matches of `q`, in its order (ties in listing order). */
  private async select(index: RoasIndex, q: RoasQuery): Promise<number[]> {
    const needle = q.q.trim().toLowerCase()
    const out: number[] = []
    if (!needle) for (let i = 0; i < index.routes.length; i++) out.push(i)
    else {
      const texts = (index.texts ??= index.routes.map(({ config: c }) => `${c.prefix}-${c.maxLength} => as${c.asn}\n${(c.comment ?? '').toLowerCase()}`))
      for (let i = 0; i < texts.length; i++) {
        if (i > 0 && i % (SLICE * 10) === 0) await yieldToLoop()
        if (texts[i]!.includes(needle)) out.push(i)
      }
    }
    const cfg = (i: number) => index.routes[i]!.config
    if (q.sort === 'asn') out.sort((a, b) => cfg(a).asn - cfg(b).asn || a - b)
    else if (q.sort === 'max_length') out.sort((a, b) => cfg(a).maxLength - cfg(b).maxLength || a - b)
    else if (q.sort === 'comment') out.sort((a, b) => compareText(cfg(a).comment ?? '', cfg(b).comment ?? '') || a - b)
    return q.order === 'desc' ? out.reverse() : out
  }

  /** The CA's current index: the kept one while its tag holds, else one built now (shared by concurrent callers). */
  private async index(ca: string): Promise<RoasIndex> {
    const version = this.d.commands.version(ca)
    if (version === undefined) throw new AppError('ca-unknown', { ca })
    const tag = `${version}|${this.d.objects.revisions(ca)}`
    const kept = this.indexes.get(ca)
    if (kept?.tag === tag) return kept
    const pending = this.building.get(ca)
    if (pending?.tag === tag) return pending.index
    const index = this.build(ca, tag).finally(() => {
      if (this.building.get(ca)?.index === index) this.building.delete(ca)
    })
    this.building.set(ca, { tag, index })
    const built = await index
    if (this.d.commands.exists(ca)) this.indexes.set(ca, built)
    return built
  }

  private async build(ca: string, tag: string): Promise<RoasIndex> {
    const s = this.d.commands.state(ca)
    const objects: IndexedObject[] = []
    const byPayload = new Map<string, number[]>()
    for (const o of this.d.objects.roas(ca)) {
      const i = objects.push({ keyId: o.keyId, name: o.name, uri: classDir(s, o.className) + o.name, hash: o.hash, serial: o.meta.serial }) - 1
      for (const key of o.meta.payloads ?? []) {
        const l = byPayload.get(key)
        if (l) l.push(i)
        else byPayload.set(key, [i])
      }
    }
    // The configuration is keyed by the canonical payload key (routes.ts applyRoaChanges), as are the objects' payloads.
    const entries = Object.entries(s.routes)
    const keyed: { payload: RoaPayload; route: IndexedRoa }[] = []
    for (let i = 0; i < entries.length; i++) {
      if (i > 0 && i % SLICE === 0) await yieldToLoop()
      const [key, config] = entries[i]!
      keyed.push({ payload: roaConfigPayload(config), route: { config, objects: byPayload.get(key) ?? [] } })
    }
    await yieldToLoop()
    keyed.sort((a, b) => compareRoaPayloads(a.payload, b.payload))
    await yieldToLoop()
    const shown = new Set<number>()
    const routes = keyed.map(({ route }) => {
      for (const o of route.objects) {
        if (shown.has(o)) continue
        shown.add(o)
        ;(route.full ??= new Set()).add(o)
      }
      return route
    })
    return { tag, routes, objects }
  }

  /** An object in full, or as a reference; nothing when it disappeared since the index was built (next call rebuilds). */
  private objectJson(ca: string, o: IndexedObject, full: boolean): RoaObjectJson[] {
    const der = full || !o.decoded ? this.d.objects.der(ca, o.keyId, o.name) : undefined
    if (der && !o.decoded) {
      const roa = decodeRoa(der)
      o.decoded = { validity: { not_before: roa.ee.notBefore.toISOString(), not_after: roa.ee.notAfter.toISOString() }, authorizations: roa.payloads.map(formatRoaPayload) }
    }
    if (!o.decoded || (full && !der)) return []
    const { validity } = o.decoded
    // Krill's RoaInfo field order.
    if (full) return [{ authorizations: o.decoded.authorizations, validity, serial: o.serial, uri: o.uri, base64: toBase64(der!), hash: o.hash }]
    return [{ validity, serial: o.serial, uri: o.uri, hash: o.hash }]
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

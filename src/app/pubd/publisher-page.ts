/**
 * GET /api/v1/pubd/publishers with paging parameters (api/paging.ts): the publishers a page at a time, searched in
 * the handle and sorted by svcd, each with its objects, size and last publication from the stats, and whether it is
 * stale when asked (as GET /pubd/stale/{seconds} decides it).
 */
import type { ListQuery, PublisherRowJson, PublisherSort, PublishersPageJson } from '../../api/paging.js'
import type { Publisher } from '../../pubd/publishers.js'
import type { PublisherStats } from '../../store/interfaces.js'
import { compareText, pageOf } from '../../util/paging.js'

/** A publisher that has not published since `cutoff` (ms since the epoch; a never-published one from its creation). */
export function isStale(p: Publisher, cutoff: number): boolean {
  return Date.parse(p.lastPublish ?? p.created) < cutoff
}

export function publishersPage(publishers: readonly Publisher[], stats: readonly PublisherStats[], q: ListQuery<PublisherSort>, stale?: { cutoff: number }): PublishersPageJson {
  const figures = new Map(stats.map((s) => [s.handle, s]))
  const rows = [...publishers]
    .sort((a, b) => compareText(a.handle, b.handle))
    .map((p): PublisherRowJson => {
      const s = figures.get(p.handle)
      return { handle: p.handle, objects: Number(s?.objects ?? 0), size: Number(s?.size ?? 0), last_update: p.lastPublish ?? null, ...(stale ? { stale: isStale(p, stale.cutoff) } : {}) }
    })
  const page = pageOf(rows, q, {
    text: (r) => r.handle,
    compare: {
      handle: (a, b) => compareText(a.handle, b.handle),
      objects: (a, b) => a.objects - b.objects,
      size: (a, b) => a.size - b.size,
      last_update: (a, b) => compareText(a.last_update ?? '', b.last_update ?? ''),
    },
  })
  return { total: page.total, offset: q.offset, limit: q.limit, publishers: page.items }
}

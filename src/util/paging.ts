/**
 * One page of a list held in memory: the items whose search text holds `q` (case-insensitive), sorted by one of the
 * list's sort keys either way (ties in the list's own order, reversed when descending), `limit` of them from `offset`, with the count of
 * matches. The paged API lists (children, publishers; api/paging.ts) are made with it, so each answers a page in
 * the same way.
 */

export interface PageQuery<S extends string> {
  offset: number
  limit: number
  /** Text to look for; '' matches everything. */
  q: string
  sort: S
  order: 'asc' | 'desc'
}

export interface PageOf<T> {
  /** The matches in all. */
  total: number
  items: T[]
}

export interface PageRules<T, S extends string> {
  /** What a search looks in (compared in lower case). */
  text: (item: T) => string
  /** How each sort key orders two items (ascending). */
  compare: Record<S, (a: T, b: T) => number>
}

export function pageOf<T, S extends string>(items: readonly T[], q: PageQuery<S>, rules: PageRules<T, S>): PageOf<T> {
  const needle = q.q.toLowerCase()
  const matches = items.map((item, i) => ({ item, i })).filter(({ item }) => !needle || rules.text(item).toLowerCase().includes(needle))
  const by = rules.compare[q.sort]
  const sign = q.order === 'desc' ? -1 : 1
  matches.sort((a, b) => sign * (by(a.item, b.item) || a.i - b.i))
  return { total: matches.length, items: matches.slice(q.offset, q.offset + q.limit).map((m) => m.item) }
}

/** Text order that does not depend on the locale of the machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

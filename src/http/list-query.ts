/**
 * The query parameters of the paged lists (api/paging.ts, and the ROA table's GET …/routes/page): each read once,
 * checked, and refused with 400 api-invalid-query naming the parameter and the rule.
 */
import type { Context } from 'koa'
import { LIST_PAGE_DEFAULT, LIST_PAGE_MAX, LIST_QUERY_MAX, PAGING_PARAMS, type ListQuery } from '../api/paging.js'
import { AppError } from '../errors.js'

/** A whole-number query parameter between `min` and `max`, `dflt` when absent; else 400 api-invalid-query. */
export function queryCount(ctx: Context, name: string, dflt: number, max: number, min = 0): number {
  const v = ctx.query[name]
  if (v === undefined) return dflt
  if (typeof v !== 'string' || !/^[0-9]{1,16}$/.test(v)) throw new AppError('api-invalid-query', { name, reason: 'must be a whole number, given once' })
  const n = Number(v)
  if (n < min || n > max) throw new AppError('api-invalid-query', { name, reason: `must be between ${min} and ${max}` })
  return n
}

/** A text query parameter given at most once, or undefined. */
export function queryText(ctx: Context, name: string): string | undefined {
  const v = ctx.query[name]
  if (v !== undefined && typeof v !== 'string') throw new AppError('api-invalid-query', { name, reason: 'given more than once' })
  return v
}

/** A search text of at most `max` characters ('' when absent). */
export function querySearch(ctx: Context, max = LIST_QUERY_MAX): string {
  const q = queryText(ctx, 'q') ?? ''
  if (q.length > max) throw new AppError('api-invalid-query', { name: 'q', reason: `at most ${max} characters` })
  return q
}

/** `asc` (the default) or `desc`. */
export function queryOrder(ctx: Context): 'asc' | 'desc' {
  const order = queryText(ctx, 'order') ?? 'asc'
  if (order !== 'asc' && order !== 'desc') throw new AppError('api-invalid-query', { name: 'order', reason: 'asc or desc' })
  return order
}

/** One of `sorts`, the first when absent. */
export function querySort<S extends string>(ctx: Context, sorts: readonly S[]): S {
  const sort = queryText(ctx, 'sort') ?? sorts[0]
  if (!(sorts as readonly string[]).includes(sort)) throw new AppError('api-invalid-query', { name: 'sort', reason: `one of ${sorts.join(', ')}` })
  return sort as S
}

/** offset, limit, q, sort and order of a paged list. */
export function listQuery<S extends string>(ctx: Context, sorts: readonly S[], limits = { dflt: LIST_PAGE_DEFAULT, max: LIST_PAGE_MAX }): ListQuery<S> {
  const offset = queryCount(ctx, 'offset', 0, Number.MAX_SAFE_INTEGER)
  const limit = queryCount(ctx, 'limit', limits.dflt, limits.max, 1)
  return { offset, limit, q: querySearch(ctx), sort: querySort(ctx, sorts), order: queryOrder(ctx) }
}

/** Whether the request asks for a page (any paging parameter), where the plain answer is Krill's. */
export function wantsPage(ctx: Context, more: readonly string[] = []): boolean {
  return [...PAGING_PARAMS, ...more].some((p) => ctx.query[p] !== undefined)
}

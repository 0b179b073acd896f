/**
 * The child and route rows of a CA's state (ca-store.ts, migration 006): which rows a save must write or delete,
 * compared with the rows stored, and the frozen object (keys sorted) the cached state holds. Written as a sliced
 * computation (util/slices.ts): run through at once, or with pauses between slices when a command changed 100,000
 * rows (issue 22 defect 8: a large ROA delta held the event loop for seconds inside the save).
 */
import { sliceCounter, sortSteps, type Sliced } from '../util/slices.js'

/** The rows of one kind (children or routes): key → JSON text as stored, and the frozen value it parses to. */
export type Rows = Map<string, { json: string; value: unknown }>

/** What a save writes for one kind of row, and what it stores afterwards. */
export interface RowsDiff {
  /** The rows stored after the save (values parsed and frozen when `full`, else filled in by the caller). */
  out: Rows
  /** Rows to insert or update: key and JSON text. */
  changed: [string, string][]
  /** Keys of rows to delete. */
  gone: string[]
  /** With `full`: the state's frozen object, keys sorted. */
  object?: Record<string, unknown>
}

/**
 * The rows of `values` that differ from `stored` and the stored keys no longer there. Unchanged rows are recognised
 * without serialising them when `stored` holds their parsed value. With `full`, changed values are parsed back from
 * their JSON (what a load would give) and the state's object is built in sorted key order.
 */
export function* diffRows(values: Record<string, unknown>, stored: Map<string, { json: string; value?: unknown }>, full: boolean): Sliced<RowsDiff> {
  const due = sliceCounter()
  const out: Rows = new Map()
  const changed: [string, string][] = []
  for (const k in values) {
    const v = values[k]
    if (due()) yield
    const old = stored.get(k)
    if (old?.value !== undefined && jsonEqual(old.value, v)) {
      out.set(k, { json: old.json, value: old.value })
      continue
    }
    const json = JSON.stringify(v)
    if (old?.json !== json) changed.push([k, json])
    out.set(k, { json, value: full ? deepFreeze(JSON.parse(json)) : undefined })
  }
  const gone: string[] = []
  for (const k of stored.keys()) {
    if (!out.has(k)) gone.push(k)
    if (due()) yield
  }
  if (!full) return { out, changed, gone }
  const keys = yield* sortSteps([...out.keys()], (a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const object: Record<string, unknown> = {}
  for (const k of keys) {
    object[k] = out.get(k)!.value
    if (due()) yield
  }
  return { out, changed, gone, object: Object.freeze(object) }
}

/** Freeze `v` and everything reachable from it. */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const x of Object.values(v as object)) deepFreeze(x)
  }
  return v
}

/** Equality as JSON sees it (a field holding undefined is no field): `a` is parsed JSON, `b` any JSON-able value. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const bb = b as unknown[]
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i] === undefined ? null : bb[i]))
  }
  if (typeof (b as { toJSON?: unknown }).toJSON === 'function') return false
  const ao = a as Record<string, unknown>
  const bo = b as Record<string, unknown>
  let n = 0
  for (const k in bo) {
    const bv = bo[k]
    if (bv === undefined || typeof bv === 'function') continue
    n++
    if (!(k in ao) || !jsonEqual(ao[k], bv)) return false
  }
  return n === Object.keys(ao).length
}

/**
 * The console's one list kit (design.md §8): `useList` holds a list's search, sort and page (in the URL, so a list
 * keeps them on reload and in bookmarks) and asks svcd for that page; `ListView` shows it: the search field, the
 * pager, the table with its sort buttons, and the loading, empty and error states. svcd searches, sorts and pages
 * (api/paging.ts); the browser never holds more than a page of a long list. Short lists that Krill's API answers
 * whole (CAs, parents, ASPAs, router keys) use the same view without a pager.
 */
import { Fragment, type ComponentChildren, type JSX } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { later } from './clock.js'
import { ErrorBox, Loading } from './components.js'
import { useLoad, type Loaded } from './load.js'
import { setQuery, useLocation } from './router.js'

export interface PageQuery<S extends string = string> {
  offset: number
  limit: number
  q: string
  sort: S
  order: 'asc' | 'desc'
}

export interface Page<T> {
  total: number
  items: T[]
}

/** The pause after typing before a search goes to svcd. */
const SEARCH_PAUSE_MS = 150

export interface ListOptions<T, S extends string> {
  /** One page from svcd. */
  load: (q: PageQuery<S>) => Promise<Page<T>>
  /** Anything else the page depends on (the CA, filters): a change reloads from the first page. */
  deps: unknown[]
  /** The sort keys, the default first. */
  sorts?: readonly S[]
  /** Rows per page, and the sizes one may choose (the default among them). */
  limit?: number
  pageSizes?: readonly number[]
  /** The order unless the URL says otherwise (default asc). */
  order?: 'asc' | 'desc'
}

export interface ListState<T, S extends string> extends Loaded<Page<T>> {
  query: PageQuery<S>
  /** The search field's text (the search follows it after a pause). */
  text: string
  setText(text: string): void
  /** Sort by `s`; again by the same key turns the order. */
  sortBy(s: S): void
  setOrder(order: 'asc' | 'desc'): void
  setOffset(offset: number): void
  setLimit(limit: number): void
  pageSizes?: readonly number[]
}

export function useList<T, S extends string = string>(o: ListOptions<T, S>): ListState<T, S> {
  const url = useLocation().query
  const sorts = o.sorts ?? []
  const dfltLimit = o.limit ?? 25
  const [text, setText] = useState(url.get('q') ?? '')
  const [q, setQ] = useState(text)
  const [sort, setSort] = useState<S>(sorts.find((s) => s === url.get('sort')) ?? sorts[0] ?? ('' as S))
  const dfltOrder = o.order ?? 'asc'
  const [order, setOrder] = useState<'asc' | 'desc'>(url.get('order') === 'asc' || url.get('order') === 'desc' ? (url.get('order') as 'asc' | 'desc') : dfltOrder)
  const [offset, setOffset] = useState(Math.max(0, Number(url.get('offset')) || 0))
  const [limit, setLimit] = useState(o.pageSizes?.includes(Number(url.get('limit'))) ? Number(url.get('limit')) : dfltLimit)
  // Other filters changed (not on the first render, which may come with an offset in the URL): the first page.
  const mounted = useRef(false)
  useEffect(() => (mounted.current ? setOffset(0) : void (mounted.current = true)), o.deps)

  useEffect(() => (text === q ? undefined : later(() => (setQ(text), setOffset(0)), SEARCH_PAUSE_MS)), [text])
  useEffect(() => setQuery({ q, sort: sort === sorts[0] ? undefined : sort, order: order === dfltOrder ? undefined : order, offset: offset || undefined, limit: limit === dfltLimit ? undefined : limit }), [q, sort, order, offset, limit])

  const query = { offset, limit, q, sort, order }
  const loaded = useLoad(() => o.load(query), [...o.deps, offset, limit, q, sort, order])
  return {
    ...loaded,
    query,
    text,
    setText,
    sortBy: (s) => (s === sort ? setOrder(order === 'asc' ? 'desc' : 'asc') : (setSort(s), setOrder('asc')), setOffset(0)),
    setOrder: (x) => (setOrder(x), setOffset(0)),
    setOffset,
    setLimit: (n) => (setLimit(n), setOffset(0)),
    pageSizes: o.pageSizes,
  }
}

/** A whole list as one page (the short lists Krill's API answers in full). */
export function whole<T>(items: T[]): Page<T> {
  return { total: items.length, items }
}

export interface Column<T, S extends string = string> {
  label: string
  /** The sort key of this column, if svcd sorts by it. */
  sort?: S
  cell: (item: T) => ComponentChildren
  testid?: string
}

/** A table of items with a header row; sortable columns get a button that reports to `onSort`. */
export function DataTable<T, S extends string = string>(props: { columns: Column<T, S>[]; items: T[]; rowKey: (item: T) => string | number; class?: string; busy?: boolean; sorted?: { sort: S; order: 'asc' | 'desc'; onSort: (s: S) => void }; row?: (item: T, cells: JSX.Element) => ComponentChildren; rowClass?: (item: T) => string | undefined }): JSX.Element {
  const s = props.sorted
  return (
    <div class="scroll">
      <table class={props.class} aria-busy={props.busy}>
        <thead>
          <tr>
            {props.columns.map((c) => {
              const on = s && c.sort === s.sort
              return (
                <th key={c.label} scope="col" aria-sort={on ? (s.order === 'asc' ? 'ascending' : 'descending') : undefined}>
                  {s && c.sort ? (
                    <button type="button" class="sort" onClick={() => s.onSort(c.sort!)}>
                      {c.label}
                      <span aria-hidden="true">{on ? (s.order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                    </button>
                  ) : (
                    c.label
                  )}
                </th>
              )
            })}
          </tr>
        </thead>
        <tbody>
          {props.items.map((item) => {
            const cells = (
              <tr key={props.rowKey(item)} class={props.rowClass?.(item)}>
                {props.columns.map((c) => (
                  <td key={c.label} data-testid={c.testid}>
                    {c.cell(item)}
                  </td>
                ))}
              </tr>
            )
            return props.row ? <Fragment key={props.rowKey(item)}>{props.row(item, cells)}</Fragment> : cells
          })}
        </tbody>
      </table>
    </div>
  )
}

export interface ListViewProps<T, S extends string> {
  list: ListState<T, S>
  /** What the list holds, for the pager's and the search's accessible names ("Children"). */
  label: string
  rowKey: (item: T) => string | number
  /** A table with these columns, or… */
  columns?: Column<T, S>[]
  /** …each item as a block of its own (an article with its buttons). */
  item?: (item: T) => ComponentChildren
  /** Rows of their own around the cells (a row with its details below it). */
  row?: (item: T, cells: JSX.Element) => ComponentChildren
  rowClass?: (item: T) => string | undefined
  /** Show a search field with this placeholder (svcd searches). */
  search?: string
  /** The empty list, and no match for the search. */
  empty: string
  noMatch?: string
  /** More controls beside the search (filters, export). */
  toolbar?: ComponentChildren
  /** A whole list: no pager. */
  whole?: boolean
  class?: string
  what?: string
}

export function ListView<T, S extends string = string>(props: ListViewProps<T, S>): JSX.Element {
  const { list, label } = props
  const id = `list-${label.replace(/\W+/g, '-').toLowerCase()}`
  const page = list.data
  return (
    <>
      {props.search !== undefined || list.pageSizes || props.toolbar ? (
        <div class="toolbar" role="search" aria-label={label}>
          {props.search !== undefined ? (
            <div class="field">
              <label for={`${id}-q`}>Search</label>
              <input id={`${id}-q`} type="search" value={list.text} placeholder={props.search} onInput={(e) => list.setText((e.target as HTMLInputElement).value)} />
            </div>
          ) : null}
          {list.pageSizes ? (
            <div class="field">
              <label for={`${id}-limit`}>Rows per page</label>
              <select id={`${id}-limit`} value={String(list.query.limit)} onChange={(e) => list.setLimit(Number((e.target as HTMLSelectElement).value))}>
                {list.pageSizes.map((n) => (
                  <option key={n} value={String(n)}>
                    {n}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          {props.toolbar}
        </div>
      ) : null}
      <ErrorBox error={list.error} />
      {page ? (
        <>
          {props.whole ? null : <Pager offset={list.query.offset} limit={list.query.limit} total={page.total} onPage={list.setOffset} label={label} />}
          {page.items.length === 0 ? (
            <p>{list.query.q ? (props.noMatch ?? 'Nothing matches the search.') : props.empty}</p>
          ) : props.columns ? (
            <DataTable columns={props.columns} items={page.items} rowKey={props.rowKey} class={props.class} busy={list.loading} row={props.row} rowClass={props.rowClass} sorted={{ sort: list.query.sort, order: list.query.order, onSort: list.sortBy }} />
          ) : (
            page.items.map((item) => <div key={props.rowKey(item)}>{props.item?.(item)}</div>)
          )}
        </>
      ) : list.loading ? (
        <Loading what={props.what} />
      ) : null}
    </>
  )
}

/** Sort controls for a list shown as blocks (a table sorts by its column headers). */
export function SortSelect<S extends string>(props: { list: Pick<ListState<unknown, S>, 'query' | 'sortBy' | 'setOrder'>; options: [S, string][] }): JSX.Element {
  const { query } = props.list
  const select = (id: string, label: string, value: string, options: [string, string][], onChange: (v: string) => void) => (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  )
  return (
    <>
      {select('list-sort', 'Sort by', query.sort, props.options, (v) => v !== query.sort && props.list.sortBy(v as S))}
      {select('list-order', 'Order', query.order, [['asc', 'Ascending'], ['desc', 'Descending']], (v) => props.list.setOrder(v as 'asc' | 'desc'))}
    </>
  )
}

/** Previous / next for a paged list: `offset` of `total`, `limit` at a time. */
export function Pager(props: { offset: number; limit: number; total: number; onPage: (offset: number) => void; label: string }): JSX.Element | null {
  const { offset, limit, total } = props
  if (total <= limit && offset === 0) return <p class="count">{total === 0 ? 'None' : `${total} in all`}</p>
  const last = Math.max(0, Math.floor((total - 1) / limit) * limit)
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" disabled={offset === 0} onClick={() => props.onPage(0)}>
        First
      </button>
      <button type="button" disabled={offset === 0} onClick={() => props.onPage(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span aria-live="polite">
        {total === 0 ? 0 : offset + 1}–{Math.min(offset + limit, total)} of {total}
      </span>
      <button type="button" disabled={offset + limit >= total} onClick={() => props.onPage(offset + limit)}>
        Next
      </button>
      <button type="button" disabled={offset >= last} onClick={() => props.onPage(last)}>
        Last
      </button>
    </nav>
  )
}

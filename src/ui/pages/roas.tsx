/**
 * /ui/cas/{ca}/roas: the configured ROAs, searched, sorted and paged by svcd (GET …/routes/page), so a CA with 50,000
 * ROAs answers a page at a time; each ROA's BGP analysis state (GET …/routes/analysis/full); staged adds and removes
 * applied as one delta (roas-stage.tsx); CSV export of all ROAs. The search, sort and page are in the URL.
 */
import type { JSX } from 'preact'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { api, ok, type Schemas } from '../api.js'
import { ErrorBox, Loading, Pager, saveFile, Section } from '../components.js'
import { useAction, useLoad } from '../load.js'
import { setQuery, useLocation } from '../router.js'
import { keyOf, roasCsv, type Staged } from '../roa-delta.js'
import { CaHeader } from './ca-tabs.js'
import { StagePanel } from './roas-stage.js'

type Sort = 'prefix' | 'asn' | 'max_length' | 'comment'
const SORTS: [Sort, string][] = [
  ['prefix', 'Prefix'],
  ['max_length', 'Max length'],
  ['asn', 'ASN'],
  ['comment', 'Comment'],
]
const PAGE_SIZES = [25, 100, 500]
/** Analysis states load on their own for CAs up to this many ROAs; larger ones on request (the report holds every ROA). */
const ANALYSIS_AUTO = 5_000
const EXPORT_PAGE = 10_000

export function RoasPage(props: { ca: string }): JSX.Element {
  const { query } = useLocation()
  const [q, setQ] = useState(query.get('q') ?? '')
  const [search, setSearch] = useState(q)
  const [sort, setSort] = useState<Sort>((SORTS.find(([s]) => s === query.get('sort'))?.[0] as Sort) ?? 'prefix')
  const [order, setOrder] = useState<'asc' | 'desc'>(query.get('order') === 'desc' ? 'desc' : 'asc')
  const [offset, setOffset] = useState(Math.max(0, Number(query.get('offset')) || 0))
  const [limit, setLimit] = useState(PAGE_SIZES.includes(Number(query.get('limit'))) ? Number(query.get('limit')) : 100)
  const [staged, setStaged] = useState<Staged[]>([])
  const [version, setVersion] = useState(0)
  const [wantAnalysis, setWantAnalysis] = useState(false)
  const path = { ca: props.ca }

  // Search as one types, once the typing pauses.
  useEffect(() => {
    if (q === search) return undefined
    const t = setTimeout(() => {
      setSearch(q)
      setOffset(0)
    }, 150)
    return () => clearTimeout(t)
  }, [q])
  useEffect(() => setQuery({ q: search, sort: sort === 'prefix' ? undefined : sort, order: order === 'asc' ? undefined : order, offset: offset || undefined, limit: limit === 100 ? undefined : limit }), [search, sort, order, offset, limit])

  const page = useLoad(() => ok(api.GET('/cas/{ca}/routes/page', { params: { path, query: { q: search, sort, order, offset, limit } } })), [props.ca, search, sort, order, offset, limit, version])
  const total = page.data?.total
  const auto = total !== undefined && search === '' && total <= ANALYSIS_AUTO
  const analysis = useLoad(() => (auto || wantAnalysis ? ok(api.GET('/cas/{ca}/routes/analysis/full', { params: { path } })) : Promise.resolve(undefined)), [props.ca, auto, wantAnalysis, version])
  const states = useMemo(() => new Map((analysis.data ?? []).map((e) => [keyOf(e), e.state])), [analysis.data])
  const exporting = useAction()

  const sortBy = (s: Sort) => {
    if (s === sort) setOrder(order === 'asc' ? 'desc' : 'asc')
    else (setSort(s), setOrder('asc'))
    setOffset(0)
  }
  const exportCsv = () =>
    exporting.run(async () => {
      const rows: Schemas['RoaRowJson'][] = []
      for (let at = 0; ; at += EXPORT_PAGE) {
        const p = await ok(api.GET('/cas/{ca}/routes/page', { params: { path, query: { offset: at, limit: EXPORT_PAGE } } }))
        rows.push(...p.items)
        if (rows.length >= p.total || p.items.length === 0) break
      }
      saveFile(`${props.ca}-roas.csv`, roasCsv(rows), 'text/csv')
    })
  const stagedRemove = (r: Schemas['RoaRowJson']) => staged.some((s) => s.kind === 'remove' && keyOf(s.roa) === keyOf(r))

  return (
    <>
      <CaHeader ca={props.ca} title="ROAs" />
      <StagePanel ca={props.ca} staged={staged} setStaged={setStaged} onApplied={() => setVersion((v) => v + 1)} />
      <Section title="Configured ROAs">
        <div class="toolbar" role="search">
          <div class="field">
            <label for="roa-search">Search</label>
            <input id="roa-search" type="search" value={q} placeholder="prefix, AS number or comment" onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
          </div>
          <div class="field">
            <label for="roa-limit">Rows per page</label>
            <select id="roa-limit" value={String(limit)} onChange={(e) => (setLimit(Number((e.target as HTMLSelectElement).value)), setOffset(0))}>
              {PAGE_SIZES.map((n) => (
                <option key={n} value={String(n)}>
                  {n}
                </option>
              ))}
            </select>
          </div>
          <button type="button" onClick={() => void exportCsv()} disabled={exporting.busy}>
            Export all as CSV
          </button>
          {!auto && !wantAnalysis ? (
            <button type="button" onClick={() => setWantAnalysis(true)}>
              Show BGP analysis
            </button>
          ) : null}
        </div>
        <ErrorBox error={exporting.error} title="Export" />
        <ErrorBox error={page.error} />
        <ErrorBox error={analysis.error} title="BGP analysis" />
        {page.data ? (
          <>
            <Pager offset={offset} limit={limit} total={page.data.total} onPage={setOffset} label="ROA" />
            <div class="scroll">
              <table class="roas" aria-busy={page.loading}>
                <thead>
                  <tr>
                    {SORTS.map(([s, label]) => (
                      <th key={s} scope="col" aria-sort={sort === s ? (order === 'asc' ? 'ascending' : 'descending') : undefined}>
                        <button type="button" class="sort" onClick={() => sortBy(s)}>
                          {label}
                          <span aria-hidden="true">{sort === s ? (order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                        </button>
                      </th>
                    ))}
                    <th scope="col">Objects</th>
                    <th scope="col">BGP state</th>
                    <th scope="col">Change</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.items.map((r) => (
                    <tr key={keyOf(r)}>
                      <td>{r.prefix}</td>
                      <td>{r.max_length}</td>
                      <td>AS{r.asn}</td>
                      <td>{r.comment ?? ''}</td>
                      <td>{r.roa_objects}</td>
                      <td data-testid="bgp-state">{states.get(keyOf(r))?.replace(/^roa_/, '').replace(/_/g, ' ') ?? (analysis.loading ? '…' : '')}</td>
                      <td>
                        <button type="button" disabled={stagedRemove(r)} aria-label={`Remove ${r.prefix}-${r.max_length} => AS${r.asn}`} onClick={() => setStaged([...staged, { kind: 'remove', roa: { asn: r.asn, prefix: r.prefix, max_length: r.max_length }, source: 'table' }])}>
                          Remove
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {page.data.items.length === 0 ? <p>{search ? 'No ROA matches the search.' : 'No ROAs configured.'}</p> : null}
          </>
        ) : page.loading ? <Loading what="ROAs" /> : null}
      </Section>
    </>
  )
}

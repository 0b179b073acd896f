/**
 * /ui/cas/{ca}/roas: the configured ROAs, searched, sorted and paged by svcd (GET …/routes/page), so a CA with 50,000
 * ROAs answers a page at a time; each ROA's BGP analysis state (GET …/routes/analysis/full); staged adds and removes
 * applied as one delta or saved as a change plan (roas-stage.tsx; only as a plan under four-eyes); CSV export of all ROAs. The search, sort and page are in the URL.
 */
import type { JSX } from 'preact'
import { useMemo, useState } from 'preact/hooks'
import { Can, can } from '../access.js'
import { api, ok, type Schemas } from '../api.js'
import { ErrorBox, saveFile, Section } from '../components.js'
import { ListView, useList, type Column } from '../list.js'
import { useAction, useLoad } from '../load.js'
import { keyOf, roasCsv, type Staged } from '../roa-delta.js'
import { CaHeader } from './ca-tabs.js'
import { StagePanel } from './roas-stage.js'

type Row = Schemas['RoaRowJson']
type Sort = 'prefix' | 'asn' | 'max_length' | 'comment'
const SORTS: readonly Sort[] = ['prefix', 'max_length', 'asn', 'comment']
/** Analysis states load on their own for CAs up to this many ROAs; larger ones on request (the report holds every ROA). */
const ANALYSIS_AUTO = 5_000
const EXPORT_PAGE = 10_000

export function RoasPage(props: { ca: string }): JSX.Element {
  const [staged, setStaged] = useState<Staged[]>([])
  const [version, setVersion] = useState(0)
  const [wantAnalysis, setWantAnalysis] = useState(false)
  const path = { ca: props.ca }
  // Each page remembers the search it answers: the analysis loads on its own only for a whole list that is small, never
  // in the moment between a cleared search and the answer for it (when the old page's total is still the search's).
  const list = useList({ load: (query) => ok(api.GET('/cas/{ca}/routes/page', { params: { path, query } })).then((p) => ({ ...p, q: query.q })), deps: [props.ca], sorts: SORTS, limit: 100, pageSizes: [25, 100, 500] })
  const page = list.data as (typeof list.data & { q: string }) | undefined
  const auto = page !== undefined && page.q === '' && page.total <= ANALYSIS_AUTO
  const analysis = useLoad(() => (auto || wantAnalysis ? ok(api.GET('/cas/{ca}/routes/analysis/full', { params: { path } })) : Promise.resolve(undefined)), [props.ca, auto, wantAnalysis, version])
  const states = useMemo(() => new Map((analysis.data ?? []).map((e) => [keyOf(e), e.state])), [analysis.data])
  const exporting = useAction()
  // Four-eyes (GET …/change-control): direct changes are refused, so only plans are offered.
  const control = useLoad(() => (can('routes-update', props.ca) ? ok(api.GET('/cas/{ca}/change-control', { params: { path } })) : Promise.resolve(undefined)), [props.ca])

  const exportCsv = () =>
    exporting.run(async () => {
      const rows: Row[] = []
      for (let at = 0; ; at += EXPORT_PAGE) {
        const p = await ok(api.GET('/cas/{ca}/routes/page', { params: { path, query: { offset: at, limit: EXPORT_PAGE } } }))
        rows.push(...p.items)
        if (rows.length >= p.total || p.items.length === 0) break
      }
      saveFile(`${props.ca}-roas.csv`, roasCsv(rows), 'text/csv')
    })
  const stagedRemove = (r: Row) => staged.some((s) => s.kind === 'remove' && keyOf(s.roa) === keyOf(r))
  const columns: Column<Row, Sort>[] = [
    { label: 'Prefix', sort: 'prefix', cell: (r) => r.prefix },
    { label: 'Max length', sort: 'max_length', cell: (r) => r.max_length },
    { label: 'ASN', sort: 'asn', cell: (r) => `AS${r.asn}` },
    { label: 'Comment', sort: 'comment', cell: (r) => r.comment ?? '' },
    { label: 'Objects', cell: (r) => r.roa_objects },
    { label: 'BGP state', testid: 'bgp-state', cell: (r) => states.get(keyOf(r))?.replace(/^roa_/, '').replace(/_/g, ' ') ?? (analysis.loading ? '…' : '') },
    // routes-update on this CA: the Change column and the staging panel.
    ...(!can('routes-update', props.ca) ? [] : [{
      label: 'Change',
      cell: (r: Row) => (
        <button type="button" disabled={stagedRemove(r)} aria-label={`Remove ${r.prefix}-${r.max_length} => AS${r.asn}`} onClick={() => setStaged([...staged, { kind: 'remove', roa: { asn: r.asn, prefix: r.prefix, max_length: r.max_length }, source: 'table' }])}>
          Remove
        </button>
      ),
    }]),
  ]

  return (
    <>
      <CaHeader ca={props.ca} title="ROAs" />
      <Can need="routes-update" ca={props.ca}>
        {control.data ? <StagePanel ca={props.ca} staged={staged} setStaged={setStaged} fourEyes={control.data.four_eyes} onApplied={() => (setVersion((v) => v + 1), list.reload())} /> : <ErrorBox error={control.error} title="Change control" />}
      </Can>
      <Section title="Configured ROAs">
        <ErrorBox error={exporting.error} title="Export" />
        <ErrorBox error={analysis.error} title="BGP analysis" />
        <ListView list={list} label="ROA" search="prefix, AS number or comment" empty="No ROAs configured." noMatch="No ROA matches the search." class="roas" what="ROAs" rowKey={keyOf} columns={columns}
          toolbar={
            <>
              <button type="button" onClick={() => void exportCsv()} disabled={exporting.busy}>
                Export all as CSV
              </button>
              {!auto && !wantAnalysis ? (
                <button type="button" onClick={() => setWantAnalysis(true)}>
                  Show BGP analysis
                </button>
              ) : null}
            </>
          }
        />
      </Section>
    </>
  )
}

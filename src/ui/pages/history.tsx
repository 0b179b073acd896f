/**
 * /ui/cas/{ca}/history: the CA's actions, newest first or oldest, searched and paged by svcd (the history routes' q
 * and order); filtered by time; each with its details.
 */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { api, ok, type Schemas } from '../api.js'
import { ErrorBox, Loading, Section, when } from '../components.js'
import { ListView, useList, type PageQuery } from '../list.js'
import { can } from '../access.js'
import { useAction, useLoad } from '../load.js'
import { navigate, url } from '../router.js'
import { CaHeader } from './ca-tabs.js'

type Action = Schemas['HistoryRecordJson']

/** A date input's value as unix seconds (start of that day, UTC), or undefined. */
const seconds = (d: string, endOfDay = false): number | undefined => (d ? Math.floor(Date.parse(`${d}T00:00:00Z`) / 1000) + (endOfDay ? 86_400 : 0) : undefined)

/** One page of the history, through the route variant the time filters need. */
async function historyPage(ca: string, p: PageQuery, filter: { after: string; before: string; full: boolean }): Promise<{ total: number; items: Action[] }> {
  const a = seconds(filter.after)
  const b = seconds(filter.before, true)
  const query = { full: filter.full, order: p.order, ...(p.q ? { q: p.q } : {}) }
  const base = { ca, rows: p.limit, offset: p.offset }
  const h =
    b !== undefined
      ? await ok(api.GET('/cas/{ca}/history/commands/{rows}/{offset}/{after}/{before}', { params: { path: { ...base, after: a ?? 0, before: b }, query } }))
      : a !== undefined
        ? await ok(api.GET('/cas/{ca}/history/commands/{rows}/{offset}/{after}', { params: { path: { ...base, after: a }, query } }))
        : await ok(api.GET('/cas/{ca}/history/commands/{rows}/{offset}', { params: { path: base, query } }))
  return { total: h.total, items: h.commands }
}

export function HistoryPage(props: { ca: string }): JSX.Element {
  const [after, setAfter] = useState('')
  const [before, setBefore] = useState('')
  const [full, setFull] = useState(false)
  const [open, setOpen] = useState<number | undefined>()
  const list = useList({ load: (p) => historyPage(props.ca, p, { after, before, full }), deps: [props.ca, after, before, full], order: 'desc' })
  const input = (e: Event) => e.target as HTMLInputElement
  return (
    <>
      <CaHeader ca={props.ca} title="History" />
      <Section title="Actions">
        <ListView list={list} label="History" search="action, message or actor" empty="No actions." noMatch="No action matches the search." class="history" rowKey={(c) => c.version}
          toolbar={
            <>
              <div class="field">
                <label for="h-after">From (UTC day)</label>
                <input id="h-after" type="date" value={after} onChange={(e) => setAfter(input(e).value)} />
              </div>
              <div class="field">
                <label for="h-before">To (UTC day)</label>
                <input id="h-before" type="date" value={before} onChange={(e) => setBefore(input(e).value)} />
              </div>
              <div class="field check">
                <input id="h-newest" type="checkbox" checked={list.query.order === 'desc'} onChange={(e) => list.setOrder(input(e).checked ? 'desc' : 'asc')} />
                <label for="h-newest">Newest first</label>
              </div>
              <div class="field check">
                <input id="h-full" type="checkbox" checked={full} onChange={(e) => setFull(input(e).checked)} />
                <label for="h-full">Include publication entries</label>
              </div>
            </>
          }
          columns={[
            { label: 'When', cell: (c) => when(c.timestamp) },
            { label: 'Action', testid: 'history-action', cell: (c) => (<><code>{c.summary.label}</code> {c.summary.msg}</>) },
            { label: 'Actor', cell: (c) => c.actor },
            { label: 'Result', cell: (c) => <span class={'Error' in c.effect ? 'bad' : 'ok'}>{'Error' in c.effect ? `failed: ${c.effect.Error}` : `${c.effect.Ok.length} event${c.effect.Ok.length === 1 ? '' : 's'}`}</span> },
            {
              label: 'Details',
              cell: (c) => (
                <button type="button" aria-expanded={open === c.version} onClick={() => setOpen(open === c.version ? undefined : c.version)}>
                  {open === c.version ? 'Hide' : 'Show'} #{c.version}
                </button>
              ),
            },
          ]}
          row={(c, cells) => (
            <>
              {cells}
              {open === c.version ? (
                <tr>
                  <td colSpan={5}>
                    <Details ca={props.ca} version={c.version} />
                  </td>
                </tr>
              ) : null}
            </>
          )}
        />
      </Section>
    </>
  )
}

function Details(props: { ca: string; version: number }): JSX.Element {
  const d = useLoad(() => ok(api.GET('/cas/{ca}/history/details/{key}', { params: { path: { ca: props.ca, key: String(props.version) } } })), [props.ca, props.version])
  if (d.error) return <ErrorBox error={d.error} />
  if (!d.data) return <Loading what="details" />
  const e = d.data.effect
  return (
    <div class="details" data-testid="history-details">
      <p>
        {d.data.msg} — by {d.data.actor} at {when(d.data.time)}
      </p>
      <pre tabIndex={0} role="region" aria-label="Action details">{JSON.stringify(d.data.details, null, 2)}</pre>
      {e.result === 'success' ? (
        <ul>
          {e.events.map((ev, i) => (
            <li key={i}>{ev.msg}</li>
          ))}
        </ul>
      ) : (
        <p class="bad">{e.msg}</p>
      )}
      {e.result === 'success' && can('routes-update', props.ca) ? <Rollback ca={props.ca} version={props.version} /> : null}
    </div>
  )
}

/**
 * Design.md §12 rollback: a plan that restores the CA's ROAs and ASPAs as they were right after this entry (POST
 * …/plans/rollback); its page shows the diff and impact, and applying it is the plan's own step (four-eyes included).
 */
function Rollback(props: { ca: string; version: number }): JSX.Element {
  const act = useAction()
  const make = () =>
    void act.run(async () => {
      const plan = await ok(api.POST('/cas/{ca}/plans/rollback', { params: { path: { ca: props.ca } }, body: { version: props.version, comment: `Roll back to the ROAs and ASPAs of history #${props.version}` } }))
      navigate(url`/ui/cas/${props.ca}/plans/${plan.id}`)
    })
  return (
    <p>
      <button type="button" data-testid="history-rollback" disabled={act.busy} onClick={make}>
        Plan a rollback of ROAs and ASPAs to #{props.version}
      </button>
      {act.error ? <ErrorBox error={act.error} /> : null}
    </p>
  )
}

/** /ui/cas/{ca}/history: the CA's actions (newest first, or oldest), a page at a time; filtered by time and text; each with its details. */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { api, ok, type Schemas } from '../api.js'
import { ErrorBox, Loading, Pager, Section, when } from '../components.js'
import { useLoad } from '../load.js'
import { CaHeader } from './ca-tabs.js'

const PAGE = 25

/** A date input's value as unix seconds (start of that day, UTC), or undefined. */
const seconds = (d: string, endOfDay = false): number | undefined => (d ? Math.floor(Date.parse(`${d}T00:00:00Z`) / 1000) + (endOfDay ? 86_400 : 0) : undefined)

export function HistoryPage(props: { ca: string }): JSX.Element {
  const [offset, setOffset] = useState(0)
  const [after, setAfter] = useState('')
  const [before, setBefore] = useState('')
  const [full, setFull] = useState(false)
  const [newest, setNewest] = useState(true)
  const [text, setText] = useState('')
  const [open, setOpen] = useState<number | undefined>()
  const history = useLoad(async () => {
    const a = seconds(after)
    const b = seconds(before, true)
    const query = { full }
    const get = (rows: number, at: number) => {
      const base = { ca: props.ca, rows, offset: at }
      if (b !== undefined) return ok(api.GET('/cas/{ca}/history/commands/{rows}/{offset}/{after}/{before}', { params: { path: { ...base, after: a ?? 0, before: b }, query } }))
      if (a !== undefined) return ok(api.GET('/cas/{ca}/history/commands/{rows}/{offset}/{after}', { params: { path: { ...base, after: a }, query } }))
      return ok(api.GET('/cas/{ca}/history/commands/{rows}/{offset}', { params: { path: base, query } }))
    }
    if (!newest) return get(PAGE, offset)
    // Newest first: the server lists oldest first, so this page is the window `offset` entries back from the end.
    const { total } = await get(1, 0)
    const end = Math.max(0, total - offset)
    const start = Math.max(0, end - PAGE)
    if (end === 0) return { offset, total, commands: [] }
    const page = await get(end - start, start)
    return { offset, total: page.total, commands: [...page.commands].reverse() }
  }, [props.ca, offset, after, before, full, newest])
  const needle = text.trim().toLowerCase()
  const rows = (history.data?.commands ?? []).filter((c) => !needle || `${c.summary.label} ${c.summary.msg} ${c.actor}`.toLowerCase().includes(needle))
  return (
    <>
      <CaHeader ca={props.ca} title="History" />
      <Section title="Filters">
        <div class="inline">
          <div class="field">
            <label for="h-after">From (UTC day)</label>
            <input id="h-after" type="date" value={after} onChange={(e) => (setAfter((e.target as HTMLInputElement).value), setOffset(0))} />
          </div>
          <div class="field">
            <label for="h-before">To (UTC day)</label>
            <input id="h-before" type="date" value={before} onChange={(e) => (setBefore((e.target as HTMLInputElement).value), setOffset(0))} />
          </div>
          <div class="field">
            <label for="h-text">Filter this page</label>
            <input id="h-text" type="search" value={text} placeholder="action, message or actor" onInput={(e) => setText((e.target as HTMLInputElement).value)} />
          </div>
          <div class="field check">
            <input id="h-newest" type="checkbox" checked={newest} onChange={(e) => (setNewest((e.target as HTMLInputElement).checked), setOffset(0))} />
            <label for="h-newest">Newest first</label>
          </div>
          <div class="field check">
            <input id="h-full" type="checkbox" checked={full} onChange={(e) => (setFull((e.target as HTMLInputElement).checked), setOffset(0))} />
            <label for="h-full">Include publication entries</label>
          </div>
        </div>
      </Section>
      <Section title="Actions">
        <ErrorBox error={history.error} />
        {history.data ? (
          <>
            <Pager offset={offset} limit={PAGE} total={history.data.total} onPage={setOffset} label="History" />
            <table class="history">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Action</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Result</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <Row key={c.version} ca={props.ca} c={c} open={open === c.version} toggle={() => setOpen(open === c.version ? undefined : c.version)} />
                ))}
              </tbody>
            </table>
            {rows.length === 0 ? <p>No actions{needle ? ' match the filter on this page' : ''}.</p> : null}
          </>
        ) : history.loading ? <Loading /> : null}
      </Section>
    </>
  )
}

function Row(props: { ca: string; c: Schemas['HistoryRecordJson']; open: boolean; toggle: () => void }): JSX.Element {
  const { c } = props
  const failed = 'Error' in c.effect
  return (
    <>
      <tr>
        <td>{when(c.timestamp)}</td>
        <td data-testid="history-action">
          <code>{c.summary.label}</code> {c.summary.msg}
        </td>
        <td>{c.actor}</td>
        <td class={failed ? 'bad' : 'ok'}>{'Error' in c.effect ? `failed: ${c.effect.Error}` : `${c.effect.Ok.length} event${c.effect.Ok.length === 1 ? '' : 's'}`}</td>
        <td>
          <button type="button" aria-expanded={props.open} onClick={props.toggle}>
            {props.open ? 'Hide' : 'Show'} #{c.version}
          </button>
        </td>
      </tr>
      {props.open ? (
        <tr>
          <td colSpan={5}>
            <Details ca={props.ca} version={c.version} />
          </td>
        </tr>
      ) : null}
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
    </div>
  )
}

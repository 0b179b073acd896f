/**
 * /ui/pubd: the publication server: RRDP session and serial, publishers a page at a time with the stale ones marked,
 * their objects and sizes, a chart of objects and RRDP serial (publications) over time, and publishers added from
 * their RFC 8183 publisher request (with the repository response to download), removed, their responses downloaded.
 */
import type { JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, asText, ok, xmlBody, type Schemas } from '../api.js'
import { ConfirmButton, DownloadButton, ErrorBox, FileField, Loading, onSubmit, Pager, Section, when } from '../components.js'
import { useAction, useLoad } from '../load.js'
import { optionalPubd } from './dashboard.js'
import { Chart, recordSample, samples } from './pubd-chart.js'

const PAGE = 25
const STALE_SECONDS = 3600

export function PubdPage(): JSX.Element {
  const [tick, setTick] = useState(0)
  const stats = useLoad(() => optionalPubd(ok(api.GET('/pubd/stats'))), [tick])
  const list = useLoad(() => optionalPubd(ok(api.GET('/pubd/publishers'))), [tick])
  const stale = useLoad(() => optionalPubd(ok(api.GET('/pubd/stale/{seconds}', { params: { path: { seconds: STALE_SECONDS } } }))), [tick])
  const [offset, setOffset] = useState(0)
  const [xml, setXml] = useState<string | undefined>()
  const [added, setAdded] = useState<string | undefined>()
  const add = useAction()
  const remove = useAction()
  // Refresh every 15 s while the page is open: the chart gets a point each time.
  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), 15_000)
    return () => clearInterval(t)
  }, [])
  useEffect(() => {
    if (stats.data) recordSample(stats.data)
  }, [stats.data])
  if (stats.data === null) {
    return (
      <>
        <h1>Publication server</h1>
        <p>This svcd runs no publication server ([repository] is not enabled).</p>
      </>
    )
  }
  const staleSet = new Set((stale.data?.publishers ?? []).map((p) => p.handle))
  const publishers = (list.data?.publishers ?? []).map((p) => p.handle).sort()
  const addPublisher = () =>
    add.run(
      async () => {
        if (!xml) throw new Error('choose the publisher request file')
        const r = await ok(api.POST('/pubd/publishers', { body: xml as never, ...xmlBody }))
        setAdded(r.publisher_handle)
      },
      () => (setXml(undefined), setTick((n) => n + 1)),
    )
  return (
    <>
      <h1>Publication server</h1>
      <div class="cards">
        <Section title="RRDP">
          <ErrorBox error={stats.error} />
          {stats.data ? (
            <dl>
              <dt>Session</dt>
              <dd>{stats.data.session}</dd>
              <dt>Serial</dt>
              <dd data-testid="pubd-serial">{stats.data.serial}</dd>
              <dt>Last update</dt>
              <dd>{when(stats.data.last_update)}</dd>
              <dt>rsync base</dt>
              <dd>{stats.data.rsync_base}</dd>
              <dt>RRDP base</dt>
              <dd>{stats.data.rrdp_base}</dd>
            </dl>
          ) : stats.loading ? <Loading /> : null}
          {stats.data?.problems.length ? (
            <ul class="error">
              {stats.data.problems.map((p, i) => (
                <li key={i}>
                  <code>{p.label}</code> {p.msg}
                </li>
              ))}
            </ul>
          ) : null}
        </Section>
        <Section title="Objects and publications over time">
          <Chart points={samples()} />
        </Section>
      </div>
      <Section title="Add a publisher">
        <form class="inline" onSubmit={onSubmit(() => void addPublisher())}>
          <FileField label="Publisher request (RFC 8183 XML)" name="publisher-request" accept=".xml,application/xml" onText={(t) => (add.clear(), setAdded(undefined), setXml(t))} />
          <button type="submit" disabled={add.busy || !xml}>
            Add publisher
          </button>
        </form>
        <ErrorBox error={add.error} title="Not added" />
        {added !== undefined ? (
          <p class="ok" role="status">
            Added {added}. <ResponseButton publisher={added} />
          </p>
        ) : null}
      </Section>
      <Section title="Publishers">
        <ErrorBox error={list.error} />
        <ErrorBox error={remove.error} title="Not removed" />
        {list.data ? (
          <>
            <Pager offset={offset} limit={PAGE} total={publishers.length} onPage={setOffset} label="Publishers" />
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Publisher</th>
                    <th scope="col">Objects</th>
                    <th scope="col">Size</th>
                    <th scope="col">Last update</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {publishers.slice(offset, offset + PAGE).map((h) => (
                    <PublisherRow key={h} handle={h} stats={stats.data?.publishers[h]} stale={staleSet.has(h)} onRemove={() => void remove.run(() => ok(api.DELETE('/pubd/publishers/{publisher}', { params: { path: { publisher: h } } })), () => setTick((n) => n + 1))} />
                  ))}
                </tbody>
              </table>
            </div>
          </>
        ) : list.loading ? <Loading /> : null}
      </Section>
    </>
  )
}

function PublisherRow(props: { handle: string; stats?: Schemas['PublisherStatsJson']; stale: boolean; onRemove: () => void }): JSX.Element {
  const s = props.stats
  return (
    <tr class={props.stale ? 'stale' : undefined}>
      <td>
        {props.handle} {props.stale ? <span class="badge bad">stale</span> : null}
      </td>
      <td>{s?.objects ?? ''}</td>
      <td>{s ? `${(s.size / 1024).toFixed(1)} KiB` : ''}</td>
      <td>{when(s?.last_update)}</td>
      <td>
        <div class="buttons">
          <ResponseButton publisher={props.handle} />
          <ConfirmButton label={`Remove ${props.handle}`} confirm="Yes, remove" onConfirm={props.onRemove} />
        </div>
      </td>
    </tr>
  )
}

function ResponseButton(props: { publisher: string }): JSX.Element {
  return <DownloadButton label={`Repository response for ${props.publisher}`} file={`${props.publisher}-repository-response.xml`} fetch={() => ok(api.GET('/pubd/publishers/{publisher}/response.xml', { params: { path: { publisher: props.publisher } }, ...asText }))} />
}

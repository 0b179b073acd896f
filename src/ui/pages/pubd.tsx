/**
 * /ui/pubd: the publication server: RRDP session and serial, publishers searched, sorted and paged by svcd with the stale ones marked,
 * their objects and sizes, a chart of objects and RRDP serial (publications) over time, and publishers added from
 * their RFC 8183 publisher request (with the repository response to download), removed, their responses downloaded.
 */
import type { JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { Can, can } from '../access.js'
import { api, asText, ok, xmlBody, type Schemas } from '../api.js'
import { every } from '../clock.js'
import { ConfirmButton, DownloadButton, ErrorBox, FileField, FormSection, Loading, Section, when } from '../components.js'
import { ListView, useList, type Page, type PageQuery } from '../list.js'
import { useAction, useLoad } from '../load.js'
import { optionalPubd } from './dashboard.js'
import { Chart, recordSample, samples } from './pubd-chart.js'

const STALE_SECONDS = 3600
const SORTS = ['handle', 'objects', 'size', 'last_update'] as const

/** A page of publishers, each marked stale when silent for an hour (GET /pubd/publishers with paging parameters). */
async function publishersPage(query: PageQuery<(typeof SORTS)[number]>): Promise<Page<Schemas['PublisherRowJson']>> {
  const r = await ok(api.GET('/pubd/publishers', { params: { query: { ...query, stale: STALE_SECONDS } } }))
  if (!('total' in r)) throw new Error('svcd answered the publishers without paging')
  return { total: r.total, items: r.publishers }
}

export function PubdPage(): JSX.Element {
  const [tick, setTick] = useState(0)
  const stats = useLoad(() => optionalPubd(ok(api.GET('/pubd/stats'))), [tick])
  const list = useList({ load: publishersPage, deps: [], sorts: SORTS, pageSizes: [25, 100, 500] })
  const [xml, setXml] = useState<string | undefined>()
  const [added, setAdded] = useState<string | undefined>()
  const add = useAction()
  const remove = useAction()
  // Refresh every 15 s while the page is open: the chart gets a point each time.
  useEffect(() => every(() => setTick((n) => n + 1), 15_000), [])
  // The same page again on each refresh (a change of deps would go back to the first page).
  useEffect(() => void (tick && list.reload()), [tick])
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
      <Can need="pub-create">
      <FormSection
        title="Add a publisher" submit="Add publisher" busy={add.busy} disabled={!xml} error={add.error} errorTitle="Not added" onSubmit={() => void addPublisher()}
        done={added !== undefined ? (<p class="ok" role="status">Added {added}. <ResponseButton publisher={added} /></p>) : null}
      >
        <FileField label="Publisher request (RFC 8183 XML)" name="publisher-request" accept=".xml,application/xml" onText={(t) => (add.clear(), setAdded(undefined), setXml(t))} />
      </FormSection>
      </Can>
      <Section title="Publishers">
        <ErrorBox error={remove.error} title="Not removed" />
        <ListView list={list} label="Publishers" search="handle" empty="No publishers." noMatch="No publisher matches the search." rowKey={(p) => p.handle} rowClass={(p) => (p.stale ? 'stale' : undefined)}
          columns={[
            { label: 'Publisher', sort: 'handle', cell: (p) => (<>{p.handle} {p.stale ? <span class="badge bad">stale</span> : null}</>) },
            { label: 'Objects', sort: 'objects', cell: (p) => p.objects },
            { label: 'Size', sort: 'size', cell: (p) => `${(p.size / 1024).toFixed(1)} KiB` },
            { label: 'Last update', sort: 'last_update', cell: (p) => when(p.last_update) },
            {
              label: 'Actions',
              cell: (p) => (
                <div class="buttons">
                  <ResponseButton publisher={p.handle} />
                  {can('pub-delete') && <ConfirmButton label={`Remove ${p.handle}`} confirm="Yes, remove" onConfirm={() => void remove.run(() => ok(api.DELETE('/pubd/publishers/{publisher}', { params: { path: { publisher: p.handle } } })), () => setTick((n) => n + 1))} />}
                </div>
              ),
            },
          ]}
        />
      </Section>
    </>
  )
}

function ResponseButton(props: { publisher: string }): JSX.Element {
  return <DownloadButton label={`Repository response for ${props.publisher}`} file={`${props.publisher}-repository-response.xml`} fetch={() => ok(api.GET('/pubd/publishers/{publisher}/response.xml', { params: { path: { publisher: props.publisher } }, ...asText }))} />
}

/**
 * /ui/audit: the audit trail across all CAs and the publication server (issue 24, beyond Krill): who did what, when,
 * from where, and whether it succeeded; filtered by actor, CA, kind and time, paged by svcd (GET /api/v1/audit), newest
 * first unless chosen otherwise. Logins, failed logins and token changes are there too, never with a secret.
 */
import type { JSX } from 'preact'
import type { components } from 'svc-api-schema'
import { useState } from 'preact/hooks'
import { call } from '../api.js'
import { Section, when } from '../components.js'
import { ListView, useList, type Page, type PageQuery } from '../list.js'

/** One record of GET /api/v1/audit, and a page of them: the shapes of the OpenAPI description. */
export type AuditRecordJson = components['schemas']['AuditRecordJson']
type AuditPageJson = components['schemas']['AuditPageJson']

interface Filter {
  actor: string
  ca: string
  kind: string
  since: string
  until: string
}

async function auditPage(p: PageQuery, f: Filter): Promise<Page<AuditRecordJson>> {
  const q = new URLSearchParams({ offset: String(p.offset), limit: String(p.limit), order: p.order })
  for (const k of ['actor', 'ca', 'kind'] as const) if (f[k].trim()) q.set(k, f[k].trim())
  if (f.since) q.set('since', `${f.since}T00:00:00Z`)
  if (f.until) q.set('until', `${f.until}T23:59:59Z`)
  const r = await call<AuditPageJson>('GET', `/audit?${q}`)
  return { total: r.total, items: r.records }
}

export function AuditPage(): JSX.Element {
  const [f, setF] = useState<Filter>({ actor: '', ca: '', kind: '', since: '', until: '' })
  const [draft, setDraft] = useState(f)
  const list = useList({ load: (p) => auditPage(p, f), deps: [f.actor, f.ca, f.kind, f.since, f.until], order: 'desc', pageSizes: [25, 100, 500] })
  const field = (k: keyof Filter, label: string, date = false) => {
    const attrs = { id: `audit-${k}`, value: draft[k], onInput: (e: Event) => setDraft({ ...draft, [k]: (e.target as HTMLInputElement).value }), onChange: () => setF({ ...draft }) }
    return (
      <div class="field">
        <label for={`audit-${k}`}>{label}</label>
        {date ? <input type="date" {...attrs} /> : <input type="text" {...attrs} />}
      </div>
    )
  }
  return (
    <>
      <h1>Audit trail</h1>
      <Section title="Actions">
        <ListView list={list} label="Audit" empty="No records." class="audit" rowKey={(r) => r.seq}
          toolbar={
            <>
              {field('actor', 'Actor')}
              {field('ca', 'CA')}
              {field('kind', 'Kind')}
              {field('since', 'From (UTC day)', true)}
              {field('until', 'To (UTC day)', true)}
              <div class="field check">
                <input id="audit-newest" type="checkbox" checked={list.query.order === 'desc'} onChange={(e) => list.setOrder((e.target as HTMLInputElement).checked ? 'desc' : 'asc')} />
                <label for="audit-newest">Newest first</label>
              </div>
            </>
          }
          columns={[
            { label: 'Time', cell: (r) => when(r.time) },
            { label: 'Actor', testid: 'audit-actor', cell: (r) => `${r.actor}${r.token ? ` via token ${r.token}` : ''} (${r.provider})` },
            { label: 'Kind', testid: 'audit-kind', cell: (r) => r.kind },
            { label: 'CA', cell: (r) => r.ca ?? '' },
            { label: 'Result', cell: (r) => (r.success ? <span class="ok">done</span> : <span class="bad">refused</span>) },
            { label: 'From', cell: (r) => r.source ?? '' },
            { label: 'Details', cell: (r) => (r.details && typeof r.details === 'object' && Object.keys(r.details).length ? <details><summary>Details</summary><code class="json">{JSON.stringify(r.details, null, 1)}</code></details> : '') },
          ]}
        />
      </Section>
    </>
  )
}

/**
 * /ui/health: the repository as relying parties see it (issue 26 §2; GET /api/v1/health/cas): per CA whether it is
 * functional, the hours to manifest, CRL and certificate expiry, the last good fetch per transport and the rsync lag,
 * its findings (expandable), and the delegated children elsewhere with the date a registry would revoke them. Paged and
 * sorted by svcd; "Check now" (POST /api/v1/health/check) only for a role with ca-admin.
 */
import type { JSX } from 'preact'
import type { components } from 'svc-api-schema'
import { useState } from 'preact/hooks'
import { can } from '../access.js'
import { call } from '../api.js'
import { ErrorBox, Link, Section, when } from '../components.js'
import { ListView, useList, type Page, type PageQuery } from '../list.js'
import { url } from '../router.js'

type HealthCaJson = components['schemas']['HealthCaJson']
type HealthPageJson = components['schemas']['HealthPageJson']
type Sort = 'ca' | 'functional' | 'manifest_expiry'

async function healthPage(p: PageQuery<Sort>, onlyBad: boolean, summary: (s: HealthPageJson['summary']) => void): Promise<Page<HealthCaJson>> {
  const q = new URLSearchParams({ offset: String(p.offset), limit: String(p.limit), q: p.q, sort: p.sort, order: p.order })
  if (onlyBad) q.set('functional', 'false')
  const r = await call<HealthPageJson>('GET', `/health/cas?${q}`)
  summary(r.summary)
  return { total: r.total, items: r.cas }
}

/** Hours left, or how long ago it expired. */
function hours(h: number | null): string {
  if (h === null) return '–'
  return h >= 0 ? `${h} h` : `expired ${-h} h ago`
}

function state(f: boolean | null): JSX.Element {
  return f === null ? <span>not checked</span> : f ? <span class="ok">functional</span> : <span class="bad">not functional</span>
}

function findings(c: HealthCaJson): JSX.Element | string {
  const all = c.points.flatMap((p) => p.findings)
  if (all.length === 0) return '0'
  return (
    <details data-testid="health-findings">
      <summary>{all.length}</summary>
      <ul>
        {all.map((f, i) => (
          <li key={i}>
            <code>{f.kind}</code>
            {f.transport ? ` over ${f.transport}` : ''}
            {f.uri ? <> <code>{f.uri}</code></> : null}: {f.detail}
            {f.rule ? ` (${f.rule})` : ''}
          </li>
        ))}
      </ul>
    </details>
  )
}

export function HealthPage(): JSX.Element {
  const [onlyBad, setOnlyBad] = useState(false)
  const [summary, setSummary] = useState<HealthPageJson['summary'] | undefined>()
  const [run, setRun] = useState(0)
  const [checking, setChecking] = useState(false)
  const [checkError, setCheckError] = useState<Error | undefined>()
  const list = useList<HealthCaJson, Sort>({ load: (p) => healthPage(p, onlyBad, setSummary), deps: [onlyBad, run], sorts: ['ca', 'functional', 'manifest_expiry'], pageSizes: [25, 100, 500] })
  const checkNow = async () => {
    setChecking(true)
    setCheckError(undefined)
    try {
      await call('POST', '/health/check?limit=1')
      setRun((n) => n + 1)
    } catch (e) {
      setCheckError(e as Error)
    } finally {
      setChecking(false)
    }
  }
  const children = (list.data?.items ?? []).flatMap((c) => c.children.map((ch) => ({ ca: c.ca, ch })))
  return (
    <>
      <h1>Health</h1>
      <p>What relying parties fetch of each CA's repository over RRDP and rsync, checked by svcd against what the CA published.</p>
      {summary ? (
        <p data-testid="health-summary">
          {summary.cas} CAs: {summary.functional} functional, <span class={summary.non_functional ? 'bad' : undefined}>{summary.non_functional} not functional</span>
          {summary.cas - summary.checked ? `, ${summary.cas - summary.checked} not checked yet` : ''}.
        </p>
      ) : null}
      <Section title="Certificate authorities">
        <ErrorBox error={checkError} title="The check failed" />
        <ListView list={list} label="Health" empty="No CAs." noMatch="No CA matches." search="CA handle" class="health" rowKey={(c) => c.ca}
          rowClass={(c) => (c.functional === false ? 'bad' : undefined)}
          toolbar={
            <>
              <div class="field check">
                <input id="health-bad" type="checkbox" checked={onlyBad} onChange={(e) => setOnlyBad((e.target as HTMLInputElement).checked)} />
                <label for="health-bad">Only not functional</label>
              </div>
              {can('ca-admin') ? (
                <button type="button" data-testid="health-check" disabled={checking} onClick={() => void checkNow()}>
                  {checking ? 'Checking…' : 'Check now'}
                </button>
              ) : null}
            </>
          }
          columns={[
            { label: 'CA', sort: 'ca', testid: 'health-ca', cell: (c) => <Link href={url`/ui/cas/${c.ca}`}>{c.ca}</Link> },
            { label: 'State', sort: 'functional', testid: 'health-state', cell: (c) => state(c.functional) },
            { label: 'Manifest expires in', sort: 'manifest_expiry', testid: 'health-manifest', cell: (c) => hours(c.hours_to_manifest_expiry) },
            { label: 'CRL expires in', cell: (c) => hours(c.hours_to_crl_expiry) },
            { label: 'Certificates expire in', cell: (c) => hours(c.hours_to_cert_expiry) },
            { label: 'Last RRDP fetch', cell: (c) => when(c.last_good_fetch.rrdp) },
            { label: 'Last rsync fetch', cell: (c) => when(c.last_good_fetch.rsync) },
            { label: 'rsync lag', cell: (c) => (c.rsync_lag_seconds === null ? '–' : `${c.rsync_lag_seconds} s`) },
            { label: 'Checked', cell: (c) => when(c.checked_at) },
            { label: 'Findings', cell: findings },
          ]}
        />
      </Section>
      {children.length ? (
        <Section title="Children publishing elsewhere">
          <ul data-testid="health-children">
            {children.map(({ ca, ch }) => (
              <li key={`${ca}/${ch.child}`}>
                {ca}/{ch.child} ({ch.point.dir}): {ch.functional ? <span class="ok">functional</span> : <><span class="bad">not functional</span> since {when(ch.non_functional_since)}{ch.revoke_at ? `; a registry would revoke it at ${when(ch.revoke_at)} (in ${ch.hours_to_revoke} h)` : ''}</>}
              </li>
            ))}
          </ul>
        </Section>
      ) : null}
    </>
  )
}

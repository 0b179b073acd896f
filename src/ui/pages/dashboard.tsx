/** /ui/: the CAs, their open issues, the publication server's RRDP session and serial, and its stale publishers. */
import type { JSX } from 'preact'
import { can } from '../access.js'
import { api, ApiError, call, ok, type Schemas } from '../api.js'
import { ErrorBox, Link, Loading, Section, when } from '../components.js'
import { useLoad } from '../load.js'
import { url } from '../router.js'

/** A publisher that has not published for this long is stale. */
const STALE_SECONDS = 3600

export function Dashboard(): JSX.Element {
  const cas = useLoad(() => ok(api.GET('/cas')), [])
  const issues = useLoad(() => ok(api.GET('/bulk/cas/issues')), [])
  const alarms = useLoad(() => ok(api.GET('/alerts', { params: { query: { active: 'true', limit: 1 } } })), [])
  // The relying-party view's figures only (one row): the badge of non-functional CAs.
  const health = useLoad(() => call<Schemas['HealthPageJson']>('GET', '/health/cas?limit=1'), [])
  // The publication server's cards only for a role that may read it (pub-list).
  const pubd = can('pub-list')
  const stats = useLoad(() => (pubd ? optionalPubd(ok(api.GET('/pubd/stats'))) : Promise.resolve(undefined)), [pubd])
  const stale = useLoad(() => (pubd ? optionalPubd(ok(api.GET('/pubd/stale/{seconds}', { params: { path: { seconds: STALE_SECONDS } } }))) : Promise.resolve(undefined)), [pubd])
  const open = issues.data
    ? Object.entries(issues.data.cas).flatMap(([ca, i]) => [
        ...(i.repo_issue ? [{ ca, where: 'repository', issue: i.repo_issue }] : []),
        ...i.parent_issues.map((p) => ({ ca, where: `parent ${p.parent}`, issue: p.issue })),
        ...(i.objects_issue ? [{ ca, where: 'objects', issue: i.objects_issue }] : []),
      ])
    : []
  return (
    <>
      <h1>Dashboard</h1>
      <div class="cards">
        <Section title="Certificate authorities">
          <ErrorBox error={cas.error} />
          {cas.data ? (
            <ul class="plain" data-testid="ca-list">
              {cas.data.cas.map((c) => (
                <li key={c.handle}>
                  <Link href={url`/ui/cas/${c.handle}`}>{c.handle}</Link>
                </li>
              ))}
            </ul>
          ) : cas.loading ? <Loading /> : null}
          <p>
            <Link href="/ui/cas">Manage CAs</Link>
          </p>
          {health.data ? (
            <p data-testid="health-badge">
              <Link href="/ui/health">Health</Link>:{' '}
              {health.data.summary.non_functional ? <span class="bad">{health.data.summary.non_functional} not functional</span> : <span class="ok">no CA found not functional</span>}
            </p>
          ) : null}
        </Section>
        <Section title="Open issues">
          <ErrorBox error={issues.error} />
          {issues.data ? (
            open.length === 0 && !issues.data.publication_server?.length ? (
              <p class="ok">No open issues.</p>
            ) : (
              <ul data-testid="issues">
                {open.map((o, i) => (
                  <li key={i}>
                    <Link href={url`/ui/cas/${o.ca}`}>{o.ca}</Link> ({o.where}): <code>{o.issue.label}</code> {o.issue.msg}
                  </li>
                ))}
                {(issues.data.publication_server ?? []).map((p, i) => (
                  <li key={`p${i}`}>
                    publication server: <code>{p.label}</code> {p.msg}
                  </li>
                ))}
              </ul>
            )
          ) : issues.loading ? <Loading /> : null}
        </Section>
        <Section title="Alarms">
          <ErrorBox error={alarms.error} />
          {alarms.data ? (
            <p class={alarms.data.active.length ? 'error' : 'ok'}>
              <span data-testid="alarm-count">{alarms.data.active.length}</span> active {alarms.data.active.length === 1 ? 'alarm' : 'alarms'}
              {alarms.data.active.length ? `: ${alarms.data.active.slice(0, 3).map((a) => `${a.kind} ${a.subject}`).join(', ')}${alarms.data.active.length > 3 ? ', …' : ''}` : ''}
            </p>
          ) : alarms.loading ? <Loading /> : null}
          <p>
            <Link href="/ui/alerts">Alarms and webhooks</Link>
          </p>
        </Section>
        {pubd ? (
        <>
        <Section title="RRDP">
          <ErrorBox error={stats.error} />
          {stats.data === null ? <p>This svcd runs no publication server.</p> : null}
          {stats.data ? (
            <dl>
              <dt>Session</dt>
              <dd data-testid="rrdp-session">{stats.data.session}</dd>
              <dt>Serial</dt>
              <dd data-testid="rrdp-serial">{stats.data.serial}</dd>
              <dt>Last update</dt>
              <dd>{when(stats.data.last_update)}</dd>
            </dl>
          ) : null}
        </Section>
        <Section title="Stale publishers">
          <ErrorBox error={stale.error} />
          {stale.data ? (
            stale.data.publishers.length === 0 ? (
              <p class="ok">No publisher has been silent for more than an hour.</p>
            ) : (
              <ul data-testid="stale">
                {stale.data.publishers.map((p) => (
                  <li key={p.handle}>{p.handle}</li>
                ))}
              </ul>
            )
          ) : null}
          <p>
            <Link href="/ui/pubd">Publication server</Link>
          </p>
        </Section>
        </>
        ) : null}
      </div>
    </>
  )
}

/** null when this svcd has no publication server (pub-repo-not-initialized). */
export async function optionalPubd<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p
  } catch (e) {
    if (e instanceof ApiError && e.body.label === 'pub-repo-not-initialized') return null
    throw e
  }
}

/**
 * /ui/cas/{ca}: resources, parents with their last exchange, children, repository status, issues, keys and key rolls,
 * and change control (four-eyes approval of ROA and ASPA changes; turned on or off with ca-admin).
 */
import type { JSX } from 'preact'
import { Can, can } from '../access.js'
import { api, ok, type Schemas } from '../api.js'
import { ErrorBox, Link, Loading, resourcesText, Section, when } from '../components.js'
import { useAction, useLoad } from '../load.js'
import { url } from '../router.js'
import { CaHeader } from './ca-tabs.js'

export function CaPage(props: { ca: string }): JSX.Element {
  const path = { params: { path: { ca: props.ca } } }
  const info = useLoad(() => ok(api.GET('/cas/{ca}', path)), [props.ca])
  const parents = useLoad(() => ok(api.GET('/cas/{ca}/parents', path)), [props.ca])
  const repo = useLoad(() => ok(api.GET('/cas/{ca}/repo/status', path)), [props.ca])
  const issues = useLoad(() => ok(api.GET('/cas/{ca}/issues', path)), [props.ca])
  const control = useLoad(() => ok(api.GET('/cas/{ca}/change-control', path)), [props.ca])
  const roll = useAction()
  const toggle = useAction()
  const sync = useAction()
  const ca = info.data
  return (
    <>
      <CaHeader ca={props.ca} title="Overview" />
      <ErrorBox error={info.error} />
      {!ca && info.loading ? <Loading what="the CA" /> : null}
      {ca ? (
        <div class="cards">
          <Section title="Resources">
            <p data-testid="resources">{resourcesText(ca.resources)}</p>
          </Section>
          <Section title="Parents">
            <ErrorBox error={parents.error} />
            {ca.parents.length === 0 ? (
              <p>
                No parent yet.{' '}
                <Can need="ca-update" ca={props.ca}>
                  <Link href={url`/ui/cas/${props.ca}/parents`}>Add one</Link>.
                </Can>
              </p>
            ) : (
              <ul>
                {ca.parents.map((p) => (
                  <li key={p.handle}>
                    <strong>{p.handle}</strong>: <Exchange status={parents.data?.[p.handle]?.last_exchange ?? null} />
                  </li>
                ))}
              </ul>
            )}
            <Can need="ca-update" ca={props.ca}>
              <button type="button" disabled={sync.busy} onClick={() => void sync.run(() => ok(api.POST('/cas/{ca}/sync/parents', path)), parents.reload)}>
                Sync with the parents now
              </button>
            </Can>
            <ErrorBox error={sync.error} title="Sync" />
          </Section>
          <Section title="Children">
            {ca.children.length === 0 ? (
              <p>No children.</p>
            ) : (
              <p>
                {ca.children.length} child{ca.children.length === 1 ? '' : 'ren'}
                {ca.suspended_children.length ? `, ${ca.suspended_children.length} suspended` : ''}: <Link href={url`/ui/cas/${props.ca}/children`}>see them</Link>
              </p>
            )}
          </Section>
          <Section title="Repository">
            <ErrorBox error={repo.error} />
            {repo.data ? (
              <p>
                <Exchange status={repo.data.last_exchange} /> {repo.data.published.length} objects published; last success {when(repo.data.last_success)}.
              </p>
            ) : null}
            <p>
              <Link href={url`/ui/cas/${props.ca}/repository`}>Repository settings</Link>
            </p>
            <Can need="ca-update" ca={props.ca}>
              <button type="button" disabled={sync.busy} onClick={() => void sync.run(() => ok(api.POST('/cas/{ca}/sync/repo', path)), repo.reload)}>
                Sync with the repository now
              </button>
            </Can>
          </Section>
          <Section title="Change control">
            <ErrorBox error={control.error} />
            {control.data ? (
              <p>
                Four-eyes: <strong data-testid="four-eyes">{control.data.four_eyes ? 'on' : 'off'}</strong>
                {control.data.enforced ? ' (set for every CA in the configuration)' : ''}.{' '}
                {control.data.four_eyes ? 'ROA and ASPA changes are made as plans and approved by a second user.' : 'ROA and ASPA changes may be applied directly or as plans.'}{' '}
                <Link href={url`/ui/cas/${props.ca}/plans`}>See the plans</Link>
              </p>
            ) : null}
            {control.data && !control.data.enforced && can('ca-admin', props.ca) ? (
              <button type="button" disabled={toggle.busy} onClick={() => void toggle.run(() => ok(api.POST('/cas/{ca}/change-control', { ...path, body: { four_eyes: !control.data!.four_eyes } })), control.reload)}>
                {control.data.four_eyes ? 'Turn four-eyes off' : 'Turn four-eyes on'}
              </button>
            ) : null}
            <ErrorBox error={toggle.error} title="Change control" />
          </Section>
          <Section title="Issues">
            <ErrorBox error={issues.error} />
            {issues.data ? <Issues issues={issues.data} /> : null}
          </Section>
          <Section title="Keys">
            <Keys ca={ca} />
            <Can need="ca-update" ca={props.ca}>
            <div class="buttons">
              <button type="button" disabled={roll.busy} onClick={() => void roll.run(() => ok(api.POST('/cas/{ca}/keys/roll_init', path)), info.reload)}>
                Start key roll
              </button>
              <button type="button" disabled={roll.busy} onClick={() => void roll.run(() => ok(api.POST('/cas/{ca}/keys/roll_activate', path)), info.reload)}>
                Activate new key
              </button>
            </div>
            </Can>
            <ErrorBox error={roll.error} title="Key roll" />
          </Section>
        </div>
      ) : null}
    </>
  )
}

/** A parent's or the repository's last exchange: when, and its error if it failed. */
export function Exchange(props: { status: Schemas['ExchangeJson'] | null }): JSX.Element {
  const s = props.status
  if (!s) return <span>no exchange yet</span>
  if (s.result === 'Success') return <span class="ok">last exchange {when(s.timestamp)} succeeded</span>
  return (
    <span class="bad">
      last exchange {when(s.timestamp)} failed: <code>{s.result.Failure.label}</code> {s.result.Failure.msg}
    </span>
  )
}

function Issues(props: { issues: Schemas['CaIssuesJson'] }): JSX.Element {
  const i = props.issues
  const all = [...(i.repo_issue ? [['repository', i.repo_issue] as const] : []), ...i.parent_issues.map((p) => [`parent ${p.parent}`, p.issue] as const), ...(i.objects_issue ? [['objects', i.objects_issue] as const] : [])]
  if (all.length === 0) return <p class="ok">No issues.</p>
  return (
    <ul>
      {all.map(([where, issue]) => (
        <li key={where}>
          {where}: <code>{issue.label}</code> {issue.msg}
        </li>
      ))}
    </ul>
  )
}

/** Each resource class's keys by state (pending, active, new, old: where a key roll stands). */
function Keys(props: { ca: Schemas['CertAuthInfo'] }): JSX.Element {
  const classes = Object.entries(props.ca.resource_classes)
  if (classes.length === 0) return <p>No resource class yet (no certificate from a parent).</p>
  return (
    <table class="keys">
      <thead>
        <tr>
          <th scope="col">Class</th>
          <th scope="col">Roll state</th>
          <th scope="col">Key</th>
          <th scope="col">Key identifier</th>
        </tr>
      </thead>
      <tbody>
        {classes.flatMap(([name, rc]) =>
          Object.entries(rc.keys).flatMap(([state, keys]) =>
            Object.entries(keys).map(([role, k]) => (
              <tr key={`${name}-${k.key_id}`}>
                <td>{name}</td>
                <td data-testid="key-state">{state}</td>
                <td>{role.replace('_key', '')}</td>
                <td>
                  <code>{k.key_id}</code>
                </td>
              </tr>
            )),
          ),
        )}
      </tbody>
    </table>
  )
}

/**
 * /ui/cas/{ca}/plans: the CA's change plans (design.md §12), newest first, filtered by status and paged by svcd
 * (GET …/plans?status=&offset=&limit=). Each row: the plan, its status (and a stale badge when the CA's configuration
 * changed after it was made), its comment, who made it and when, what it changes, and its BGP impact with the
 * announcements it turns invalid highlighted. Also the pieces the one-plan page shares (badges, counts, stamps).
 */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { api, ok, type Schemas } from '../api.js'
import { Link, Section, when } from '../components.js'
import { ListView, useList } from '../list.js'
import { useLoad } from '../load.js'
import { setQuery, url, useLocation } from '../router.js'
import { CaHeader } from './ca-tabs.js'

export type Plan = Schemas['PlanJson']
export type PlanStatus = Plan['status']
type Stamp = NonNullable<Plan['approved']>

const STATUSES: readonly PlanStatus[] = ['open', 'approved', 'applied', 'rejected', 'withdrawn']

export function PlansPage(props: { ca: string }): JSX.Element {
  const initial = useLocation().query.get('status')
  const [status, setStatus] = useState<PlanStatus | ''>(STATUSES.find((s) => s === initial) ?? '')
  const path = { ca: props.ca }
  const list = useList({
    load: (q) => ok(api.GET('/cas/{ca}/plans', { params: { path, query: { offset: q.offset, limit: q.limit, ...(status ? { status } : {}) } } })).then((r) => ({ total: r.total, items: r.plans })),
    deps: [props.ca, status],
    limit: 25,
    pageSizes: [25, 100],
  })
  const control = useLoad(() => ok(api.GET('/cas/{ca}/change-control', { params: { path } })), [props.ca])
  const filter = (s: string) => {
    setStatus(s as PlanStatus | '')
    setQuery({ status: s })
  }
  return (
    <>
      <CaHeader ca={props.ca} title="Plans" />
      {control.data ? <FourEyesNote ca={props.ca} fourEyes={control.data.four_eyes} enforced={control.data.enforced === true} /> : null}
      <Section title="Change plans">
        <ListView list={list} label="Plans" empty={status ? `No ${status} plans.` : 'No plans yet: stage ROA or ASPA changes and save them as a plan.'} class="plans" what="plans" rowKey={(p) => p.id}
          rowClass={(p) => (p.stale && live(p) ? 'stale' : undefined)}
          toolbar={
            <div class="field">
              <label for="plan-status">Status</label>
              <select id="plan-status" value={status} onChange={(e) => filter((e.target as HTMLSelectElement).value)}>
                <option value="">all</option>
                {STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </div>
          }
          columns={[
            { label: 'Plan', cell: (p) => <Link href={url`/ui/cas/${props.ca}/plans/${p.id}`}>Plan {p.id}</Link> },
            { label: 'Status', testid: 'plan-status', cell: (p) => <StatusBadges plan={p} /> },
            { label: 'Comment', cell: (p) => p.comment },
            { label: 'Made by', cell: (p) => <StampText stamp={p.created} /> },
            { label: 'Changes', testid: 'plan-changes', cell: (p) => changeCounts(p) },
            { label: 'BGP impact', testid: 'plan-impact', cell: (p) => <ImpactCounts plan={p} /> },
          ]}
        />
      </Section>
    </>
  )
}

/** Open or approved: the plan may still be applied (or turned down). */
export function live(p: Plan): boolean {
  return p.status === 'open' || p.status === 'approved'
}

/** The plan's status, and a stale badge while it could still be applied but no longer can. */
export function StatusBadges(props: { plan: Plan }): JSX.Element {
  const p = props.plan
  return (
    <span class="badges">
      <span class={`badge status-${p.status}`}>{p.status}</span>
      {p.stale && live(p) ? (
        <>
          {' '}
          <span class="badge stale" data-testid="stale-badge" title="The CA's ROAs or ASPAs changed after this plan was made: it cannot be applied">
            stale
          </span>
        </>
      ) : null}
    </span>
  )
}

/** +ROAs, −ROAs and ASPAs the plan changes. */
export function changeCounts(p: Plan): string {
  const a = p.change.aspas.add_or_replace.length + p.change.aspas.remove.length
  return `+${p.change.roas.added.length} ROAs, −${p.change.roas.removed.length} ROAs, ${a} ASPA${a === 1 ? '' : 's'}`
}

/** The announcements the plan turns valid, invalid and not found; invalid ones highlighted. */
export function ImpactCounts(props: { plan: Plan }): JSX.Element {
  const b = props.plan.impact.bgp
  if (!b.available) return <span class="muted">no BGP data</span>
  return (
    <span>
      {b.turned_invalid > 0 ? <strong class="bad invalid-count">{b.turned_invalid} turn invalid</strong> : <span>0 turn invalid</span>}, {b.turned_valid} valid, {b.turned_not_found} not found
    </span>
  )
}

/** Who did a step (how they logged in, the API token used) and when. */
export function StampText(props: { stamp: Stamp }): JSX.Element {
  const s = props.stamp
  return (
    <span>
      <span data-testid="stamp-by">{s.by}</span>
      {s.token ? ` (token ${s.token})` : ''} <small class="hint">{when(s.at)}</small>
    </span>
  )
}

/** Whether four-eyes holds for the CA, and what that means for changing it. */
export function FourEyesNote(props: { ca: string; fourEyes: boolean; enforced: boolean }): JSX.Element | null {
  if (!props.fourEyes) return null
  return (
    <p class="notice" data-testid="four-eyes-note">
      Four-eyes is on for CA {props.ca}
      {props.enforced ? ' (set for every CA in the configuration)' : ''}: ROA and ASPA changes are made as plans, and a second user with the <code>plans-approve</code> permission approves them before they are applied.
    </p>
  )
}

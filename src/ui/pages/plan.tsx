/**
 * /ui/cas/{ca}/plans/{id}: one change plan (design.md §12): its diff (the ROAs and ASPAs it adds and removes), its BGP
 * impact (the announcements it turns invalid first, each with its state before and after), its effect on VRPs and
 * ASPAs, who made, approved, applied, rejected or withdrew it and when, and the steps the caller may take (by the
 * permissions of GET /api/v1/whoami; svcd decides each): approve (and apply), apply, reject with a reason, withdraw.
 * A plan that turns seen announcements invalid is applied only with an explicit confirmation (accept_invalid).
 */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { can } from '../access.js'
import { api, ok } from '../api.js'
import { ErrorBox, Field, Link, Loading, Section } from '../components.js'
import { DataTable } from '../list.js'
import { useAction, useLoad } from '../load.js'
import { sameUser } from '../permissions.js'
import { authorisationText } from '../roa-delta.js'
import { url } from '../router.js'
import { currentSession } from '../session.js'
import { CaHeader } from './ca-tabs.js'
import { changeCounts, ImpactCounts, live, StampText, StatusBadges, type Plan } from './plans.js'

type Announcement = Plan['impact']['bgp']['changes'][number]

export function PlanPage(props: { ca: string; id: string }): JSX.Element {
  const path = { ca: props.ca, id: props.id }
  const plan = useLoad(() => ok(api.GET('/cas/{ca}/plans/{id}', { params: { path } })), [props.ca, props.id])
  const p = plan.data
  return (
    <>
      <CaHeader ca={props.ca} title={`Plan ${props.id}`} />
      <p>
        <Link href={url`/ui/cas/${props.ca}/plans`}>All plans of CA {props.ca}</Link>
      </p>
      <ErrorBox error={plan.error} />
      {!p && plan.loading ? <Loading what="the plan" /> : null}
      {p ? (
        <>
          <Summary plan={p} />
          <Steps ca={props.ca} plan={p} onDone={plan.reload} />
          <Diff plan={p} />
          <BgpImpact plan={p} />
          <VrpEffect plan={p} />
          <AspaEffect plan={p} />
        </>
      ) : null}
    </>
  )
}

/** Status, comment, source, and each step taken: by whom and when (the applied one with its history version). */
function Summary(props: { plan: Plan }): JSX.Element {
  const p = props.plan
  return (
    <Section title="Plan">
      <dl>
        <dt>Status</dt>
        <dd data-testid="plan-status">
          <StatusBadges plan={p} />
          {p.stale && live(p) ? <span class="bad"> The CA's ROAs or ASPAs changed after this plan was made: it can no longer be applied. Make a new plan.</span> : null}
        </dd>
        <dt>Comment</dt>
        <dd>{p.comment || <span class="hint">none</span>}</dd>
        <dt>Source</dt>
        <dd>
          {p.source}
          {p.rollback_to !== undefined ? ` (restores history version #${p.rollback_to})` : ''}
        </dd>
        <dt>Changes</dt>
        <dd>{changeCounts(p)}</dd>
        <dt>BGP impact</dt>
        <dd>
          <ImpactCounts plan={p} />
        </dd>
        {p.needs_approval && live(p) ? (
          <>
            <dt>Four-eyes</dt>
            <dd>{p.status === 'approved' ? 'approved by a second user' : 'needs the approval of a user other than its author'}</dd>
          </>
        ) : null}
        <dt>Made</dt>
        <dd data-testid="plan-created">
          <StampText stamp={p.created} />
        </dd>
        {p.approved ? (
          <>
            <dt>Approved</dt>
            <dd data-testid="plan-approved">
              <StampText stamp={p.approved} />
            </dd>
          </>
        ) : null}
        {p.applied ? (
          <>
            <dt>Applied</dt>
            <dd data-testid="plan-applied">
              <StampText stamp={p.applied} /> as <Link href={url`/ui/cas/${p.ca}/history`}>history version #{p.applied.version}</Link>
            </dd>
          </>
        ) : null}
        {p.rejected ? (
          <>
            <dt>Rejected</dt>
            <dd data-testid="plan-rejected">
              <StampText stamp={p.rejected} />
              {p.rejected.reason ? `: ${p.rejected.reason}` : ''}
            </dd>
          </>
        ) : null}
        {p.withdrawn ? (
          <>
            <dt>Withdrawn</dt>
            <dd data-testid="plan-withdrawn">
              <StampText stamp={p.withdrawn} />
            </dd>
          </>
        ) : null}
      </dl>
    </Section>
  )
}

/** The buttons of the steps the caller may take now; a refusal shows svcd's label and message. */
function Steps(props: { ca: string; plan: Plan; onDone: () => void }): JSX.Element | null {
  const p = props.plan
  const [accept, setAccept] = useState(false)
  const [reason, setReason] = useState('')
  const act = useAction()
  if (!live(p)) return null
  const who = currentSession()?.who
  const path = { params: { path: { ca: props.ca, id: String(p.id) } } }
  const aspas = p.change.aspas.add_or_replace.length + p.change.aspas.remove.length > 0
  const mayChange = can('routes-update', props.ca) && (!aspas || can('aspas-update', props.ca))
  const mayApprove = can('plans-approve', props.ca)
  const author = sameUser(who, p.created)
  const mayWithdraw = author && can('routes-update', props.ca)
  const invalid = p.impact.bgp.turned_invalid
  const blocked = invalid > 0 && !accept
  const acceptInvalid = invalid > 0 ? { accept_invalid: true } : {}
  const run = (fn: () => Promise<unknown>) => void act.run(fn, props.onDone)
  const approve = mayApprove && p.status === 'open'
  const apply = mayChange && (!p.needs_approval || p.status === 'approved')
  if (!approve && !apply && !mayApprove && !mayWithdraw) return null
  return (
    <Section title="Steps">
      {invalid > 0 && (approve || apply) ? (
        <div class="field check invalid-accept">
          <input id="accept-invalid" type="checkbox" checked={accept} onChange={(e) => setAccept((e.target as HTMLInputElement).checked)} />
          <label for="accept-invalid">
            I accept that {invalid} announcement{invalid === 1 ? '' : 's'} become{invalid === 1 ? 's' : ''} invalid
          </label>
        </div>
      ) : null}
      <div class="buttons">
        {approve ? (
          <>
            <button type="button" class="primary" disabled={act.busy || blocked} onClick={() => run(() => ok(api.POST('/cas/{ca}/plans/{id}/approve', { ...path, body: { apply: true, ...acceptInvalid } })))}>
              Approve and apply
            </button>
            <button type="button" disabled={act.busy} onClick={() => run(() => ok(api.POST('/cas/{ca}/plans/{id}/approve', { ...path, body: { apply: false } })))}>
              Approve only
            </button>
          </>
        ) : null}
        {apply ? (
          <button type="button" class={approve ? undefined : 'primary'} disabled={act.busy || blocked} onClick={() => run(() => ok(api.POST('/cas/{ca}/plans/{id}/apply', { ...path, body: acceptInvalid })))}>
            Apply
          </button>
        ) : null}
        {mayWithdraw ? (
          <button type="button" class="danger" disabled={act.busy} onClick={() => run(() => ok(api.POST('/cas/{ca}/plans/{id}/withdraw', path)))}>
            Withdraw
          </button>
        ) : null}
      </div>
      {approve && author && p.needs_approval ? <p class="hint">You made this plan: under four-eyes a different user must approve it.</p> : null}
      {!apply && !approve && p.needs_approval && p.status === 'open' ? <p class="hint">Four-eyes is on: the plan is applied once a second user approves it.</p> : null}
      {mayApprove ? (
        <form class="inline" onSubmit={(e) => (e.preventDefault(), run(() => ok(api.POST('/cas/{ca}/plans/{id}/reject', { ...path, body: reason.trim() ? { reason: reason.trim() } : {} }))))}>
          <Field label="Reason for rejecting" name="reject-reason" value={reason} onInput={setReason} size={40} />
          <button type="submit" class="danger" disabled={act.busy}>
            Reject
          </button>
        </form>
      ) : null}
      <ErrorBox error={act.error} title="Refused" />
    </Section>
  )
}

/** The change as +/− lines: ROAs (in delta-file form) and ASPAs. */
function Diff(props: { plan: Plan }): JSX.Element {
  const c = props.plan.change
  const lines: [kind: 'add' | 'remove', text: string][] = [
    ...c.roas.added.map((r) => ['add', `ROA ${authorisationText(r)}${r.comment ? ` # ${r.comment}` : ''}`] as ['add', string]),
    ...c.roas.removed.map((r) => ['remove', `ROA ${authorisationText(r)}`] as ['remove', string]),
    ...c.aspas.add_or_replace.map((a) => ['add', `ASPA AS${a.customer} => ${a.providers.map((x) => `AS${x}`).join(', ')}`] as ['add', string]),
    ...c.aspas.remove.map((x) => ['remove', `ASPA AS${x}`] as ['remove', string]),
  ]
  return (
    <Section title="Change">
      <ul class="diff" data-testid="plan-diff" aria-label="The plan's change">
        {lines.map(([kind, text], i) => (
          <li key={i} class={kind}>
            <span aria-hidden="true">{kind === 'add' ? '+ ' : '− '}</span>
            <span class="sr-only">{kind === 'add' ? 'add ' : 'remove '}</span>
            <code>{text}</code>
          </li>
        ))}
      </ul>
    </Section>
  )
}

const RANK: Record<string, number> = { invalid: 0, not_found: 1, valid: 2 }
const STATE_TEXT: Record<string, string> = { valid: 'valid', invalid: 'invalid', not_found: 'not found' }

/** The announcements whose RPKI state the plan changes, those it turns invalid first. */
function BgpImpact(props: { plan: Plan }): JSX.Element {
  const b = props.plan.impact.bgp
  const rows = [...b.changes].sort((x, y) => (RANK[x.after] ?? 3) - (RANK[y.after] ?? 3))
  return (
    <Section title="BGP impact">
      {!b.available ? (
        <p>svcd had no BGP announcements loaded when the plan was made (bgp_riswhois_* settings): its effect on announcements is unknown.</p>
      ) : (
        <>
          <p data-testid="bgp-counts">
            <ImpactCounts plan={props.plan} /> (analysed {props.plan.impact.analysed_at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}).
          </p>
          {rows.length === 0 ? (
            <p>No seen announcement changes state.</p>
          ) : (
            <DataTable<Announcement & { i: number }>
              class="impact"
              items={rows.map((r, i) => ({ ...r, i }))}
              rowKey={(r) => r.i}
              rowClass={(r) => (r.after === 'invalid' ? 'refused' : undefined)}
              columns={[
                { label: 'Announcement', cell: (r) => `${r.prefix} from AS${r.asn}` },
                { label: 'Before → after', testid: 'impact-change', cell: (r) => <span class={r.after === 'invalid' ? 'bad' : r.after === 'valid' ? 'ok' : undefined}>{`${STATE_TEXT[r.before] ?? r.before} → ${STATE_TEXT[r.after] ?? r.after}`}</span> },
                { label: 'Why', cell: (r) => r.detail.replace(/^announcement_/, '').replace(/_/g, ' ') },
              ]}
            />
          )}
          {b.truncated ? <p class="hint">Only the first {b.changes.length} changes are listed.</p> : null}
        </>
      )}
    </Section>
  )
}

/** The VRPs the plan adds and removes, and their count before and after. */
function VrpEffect(props: { plan: Plan }): JSX.Element {
  const v = props.plan.impact.vrps
  const vrp = (r: { asn: number; prefix: string; max_length: number }) => `${r.prefix}-${r.max_length} => AS${r.asn}`
  return (
    <Section title="VRP effect">
      <p data-testid="vrp-counts">
        {v.before} VRPs → {v.after} VRPs: {v.added_count} added, {v.removed_count} removed.
      </p>
      {v.added.length + v.removed.length > 0 ? (
        <ul class="diff">
          {v.added.map((r, i) => (
            <li key={`a${i}`} class="add">
              <span aria-hidden="true">+ </span>
              <span class="sr-only">added </span>
              <code>{vrp(r)}</code>
            </li>
          ))}
          {v.removed.map((r, i) => (
            <li key={`r${i}`} class="remove">
              <span aria-hidden="true">− </span>
              <span class="sr-only">removed </span>
              <code>{vrp(r)}</code>
            </li>
          ))}
        </ul>
      ) : null}
      {v.added.length < v.added_count || v.removed.length < v.removed_count ? <p class="hint">The lists are cut; the counts are whole.</p> : null}
    </Section>
  )
}

/** The customer ASes whose ASPA the plan adds, changes or removes. */
function AspaEffect(props: { plan: Plan }): JSX.Element {
  const a = props.plan.impact.aspas
  const ases = (l: number[]) => (l.length ? l.map((x) => `AS${x}`).join(', ') : 'none')
  return (
    <Section title="ASPA effect">
      <dl data-testid="aspa-effect">
        <dt>Added</dt>
        <dd>{ases(a.added)}</dd>
        <dt>Changed</dt>
        <dd>{ases(a.changed)}</dd>
        <dt>Removed</dt>
        <dd>{ases(a.removed)}</dd>
      </dl>
    </Section>
  )
}

/**
 * Staged ROA changes: added from the form, the table or a delta file, applied as one delta with per-line errors, or
 * saved as a change plan (source `console`) to be reviewed, approved and applied later. Under four-eyes (the CA's
 * change control) the direct apply is not offered: svcd would refuse it (ca-plan-required).
 */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { api, ApiError, ok } from '../api.js'
import { ErrorBox, FileField, Field, onSubmit, Section } from '../components.js'
import { DataTable } from '../list.js'
import { navigate, url } from '../router.js'
import { authorisationText, deltaOf, markProblems, parseAuthorisation, parseDeltaFile, type Staged } from '../roa-delta.js'

export function StagePanel(props: { ca: string; staged: Staged[]; setStaged: (s: Staged[]) => void; onApplied: () => void; fourEyes: boolean }): JSX.Element {
  const { staged, setStaged } = props
  const [prefix, setPrefix] = useState('')
  const [maxLength, setMaxLength] = useState('')
  const [asn, setAsn] = useState('')
  const [comment, setComment] = useState('')
  const [formError, setFormError] = useState<string | undefined>()
  const [fileErrors, setFileErrors] = useState<string[]>([])
  const [applyError, setApplyError] = useState<Error | undefined>()
  const [unmatched, setUnmatched] = useState<string[]>([])
  const [busy, setBusy] = useState(false)
  const [applied, setApplied] = useState<string | undefined>()
  const [planComment, setPlanComment] = useState('')

  const stage = () => {
    try {
      const roa = parseAuthorisation(`${prefix.trim()}${maxLength.trim() ? `-${maxLength.trim()}` : ''} => ${asn.trim()}`)
      setStaged([...staged, { kind: 'add', roa: comment.trim() ? { ...roa, comment: comment.trim() } : roa, source: 'form' }])
      setPrefix('')
      setMaxLength('')
      setAsn('')
      setComment('')
      setFormError(undefined)
    } catch (e) {
      setFormError((e as Error).message)
    }
  }
  /** Send the staged changes (applied directly, or as a new plan); a refused delta marks its lines. */
  const send = async (fn: () => Promise<void>) => {
    setBusy(true)
    setApplyError(undefined)
    setUnmatched([])
    setApplied(undefined)
    try {
      await fn()
    } catch (e) {
      setApplyError(e as Error)
      if (e instanceof ApiError && e.body.label === 'ca-roa-delta-error') {
        const marked = markProblems(staged, e.body)
        setStaged(marked.staged)
        setUnmatched(marked.unmatched)
      }
    } finally {
      setBusy(false)
    }
  }
  const apply = () =>
    send(async () => {
      const d = deltaOf(staged)
      await ok(api.POST('/cas/{ca}/routes', { params: { path: { ca: props.ca } }, body: d }))
      setApplied(`Applied: ${d.added.length} added, ${d.removed.length} removed.`)
      setStaged([])
      props.onApplied()
    })
  const savePlan = () =>
    send(async () => {
      const body = { source: 'console' as const, roas: deltaOf(staged), ...(planComment.trim() ? { comment: planComment.trim() } : {}) }
      const plan = await ok(api.POST('/cas/{ca}/plans', { params: { path: { ca: props.ca } }, body }))
      setStaged([])
      navigate(url`/ui/cas/${props.ca}/plans/${plan.id}`)
    })
  const refused = staged.filter((s) => s.problem).length
  return (
    <Section title="Change ROAs">
      {props.fourEyes ? (
        <p class="notice" data-testid="four-eyes-roas">
          Four-eyes is on for CA {props.ca}: changes are not applied directly. Save them as a plan; a second user approves and applies it.
        </p>
      ) : null}
      <form class="inline" onSubmit={onSubmit(stage)}>
        <Field label="Prefix" name="prefix" value={prefix} onInput={setPrefix} placeholder="192.0.2.0/24" required size={22} />
        <Field label="Max length" name="max_length" value={maxLength} onInput={setMaxLength} placeholder="(prefix length)" size={6} />
        <Field label="ASN" name="asn" value={asn} onInput={setAsn} placeholder="AS65000" required size={12} />
        <Field label="Comment" name="comment" value={comment} onInput={setComment} size={16} />
        <button type="submit">Stage addition</button>
      </form>
      {formError ? (
        <p class="error" role="alert">
          {formError}
        </p>
      ) : null}
      <FileField
        label="Delta file (A: / R: lines)"
        name="delta"
        accept=".txt,.delta,text/plain"
        onText={(text, name) => {
          const parsed = parseDeltaFile(text, name)
          setStaged([...staged, ...parsed.staged])
          setFileErrors(parsed.errors)
        }}
      />
      {fileErrors.length ? (
        <div class="error" role="alert">
          <p>Lines of the file that could not be read (nothing staged from them):</p>
          <ul>
            {fileErrors.map((e, i) => (
              <li key={i}>{e}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {applied ? (
        <p class="ok" role="status">
          {applied}
        </p>
      ) : null}
      {staged.length > 0 ? (
        <>
          <h3>Staged changes ({staged.length})</h3>
          <DataTable
            class="staged"
            items={staged.slice(0, 500).map((s, i) => ({ ...s, i }))}
            rowKey={(s) => s.i}
            rowClass={(s) => (s.problem ? 'refused' : undefined)}
            columns={[
              { label: 'Change', cell: (s) => (s.kind === 'add' ? 'Add' : 'Remove') },
              { label: 'Authorisation', cell: (s) => `${authorisationText(s.roa)}${s.roa.comment ? ` # ${s.roa.comment}` : ''}` },
              { label: 'From', cell: (s) => s.source },
              { label: 'Problem', testid: 'line-problem', cell: (s) => s.problem ?? '' },
              {
                label: 'Unstage',
                cell: (s) => (
                  <button type="button" aria-label={`Unstage ${authorisationText(s.roa)}`} onClick={() => setStaged(staged.filter((_, j) => j !== s.i))}>
                    Unstage
                  </button>
                ),
              },
            ]}
          />
          {staged.length > 500 ? <p>…and {staged.length - 500} more.</p> : null}
          <div class="inline">
            <Field label="Plan comment" name="plan_comment" value={planComment} onInput={setPlanComment} placeholder="why (shown to the approver)" size={30} />
          </div>
          <div class="buttons">
            {props.fourEyes ? null : (
              <button type="button" class="primary" disabled={busy} onClick={() => void apply()}>
                Apply {staged.length} change{staged.length === 1 ? '' : 's'}
              </button>
            )}
            <button type="button" class={props.fourEyes ? 'primary' : undefined} disabled={busy} onClick={() => void savePlan()}>
              Save as plan
            </button>
            <button type="button" disabled={busy} onClick={() => (setStaged([]), setApplyError(undefined), setUnmatched([]))}>
              Discard all
            </button>
          </div>
        </>
      ) : null}
      <ErrorBox error={applyError} title={refused ? `Nothing changed: ${refused} staged line${refused === 1 ? ' was' : 's were'} refused` : 'Nothing changed'} />
      {unmatched.length ? (
        <ul class="error">
          {unmatched.map((u, i) => (
            <li key={i}>{u}</li>
          ))}
        </ul>
      ) : null}
    </Section>
  )
}

/** Staged ROA changes: added from the form, the table or a delta file, applied as one delta with per-line errors. */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { api, ApiError, ok } from '../api.js'
import { ErrorBox, FileField, Field, onSubmit, Section } from '../components.js'
import { DataTable } from '../list.js'
import { authorisationText, deltaOf, markProblems, parseAuthorisation, parseDeltaFile, type Staged } from '../roa-delta.js'

export function StagePanel(props: { ca: string; staged: Staged[]; setStaged: (s: Staged[]) => void; onApplied: () => void }): JSX.Element {
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
  const apply = async () => {
    setBusy(true)
    setApplyError(undefined)
    setUnmatched([])
    setApplied(undefined)
    try {
      await ok(api.POST('/cas/{ca}/routes', { params: { path: { ca: props.ca } }, body: deltaOf(staged) }))
      const d = deltaOf(staged)
      setApplied(`Applied: ${d.added.length} added, ${d.removed.length} removed.`)
      setStaged([])
      props.onApplied()
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
  const refused = staged.filter((s) => s.problem).length
  return (
    <Section title="Change ROAs">
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
          <div class="buttons">
            <button type="button" class="primary" disabled={busy} onClick={() => void apply()}>
              Apply {staged.length} change{staged.length === 1 ? '' : 's'}
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

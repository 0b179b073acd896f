/** /ui/cas: every CA; add one, delete one. */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { api, ok } from '../api.js'
import { ConfirmButton, ErrorBox, Field, Link, Loading, onSubmit, Section } from '../components.js'
import { useAction, useLoad } from '../load.js'
import { navigate, url } from '../router.js'

export function CasPage(): JSX.Element {
  const cas = useLoad(() => ok(api.GET('/cas')), [])
  const [handle, setHandle] = useState('')
  const add = useAction()
  const del = useAction()
  return (
    <>
      <h1>Certificate authorities</h1>
      <Section title="Add a CA">
        <form class="inline" onSubmit={onSubmit(() => void add.run(() => ok(api.POST('/cas', { body: { handle: handle.trim() } })), () => navigate(url`/ui/cas/${handle.trim()}/parents`)))}>
          <Field label="Handle" name="handle" value={handle} onInput={setHandle} required hint="Letters, digits, - and _ (RFC 8183 handle)" />
          <button type="submit" disabled={add.busy || !handle.trim()}>
            Add CA
          </button>
        </form>
        <ErrorBox error={add.error} title="Not added" />
      </Section>
      <Section title="All CAs">
        <ErrorBox error={cas.error} />
        <ErrorBox error={del.error} title="Not deleted" />
        {cas.data ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Handle</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {cas.data.cas.map((c) => (
                <tr key={c.handle}>
                  <td>
                    <Link href={url`/ui/cas/${c.handle}`}>{c.handle}</Link>
                  </td>
                  <td>
                    <ConfirmButton label={`Delete ${c.handle}`} confirm={`Yes, delete ${c.handle}`} disabled={del.busy} onConfirm={() => void del.run(() => ok(api.DELETE('/cas/{ca}', { params: { path: { ca: c.handle } } })), cas.reload)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : cas.loading ? <Loading /> : null}
      </Section>
    </>
  )
}

/** /ui/cas: the CAs, searched and paged by svcd; add one, delete one. */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { Can, can } from '../access.js'
import { api, ok } from '../api.js'
import { ConfirmButton, ErrorBox, Field, FormSection, Link, Section } from '../components.js'
import { ListView, useList, type Page, type PageQuery } from '../list.js'
import { useAction } from '../load.js'
import { navigate, url } from '../router.js'

/** A page of CAs, searched by svcd (GET /cas with paging parameters). */
async function casPage(query: PageQuery<'handle'>): Promise<Page<{ handle: string }>> {
  const r = await ok(api.GET('/cas', { params: { query } }))
  return { total: 'total' in r ? r.total : r.cas.length, items: r.cas }
}

export function CasPage(): JSX.Element {
  const cas = useList({ load: casPage, deps: [], sorts: ['handle'] as const, pageSizes: [25, 100, 500] })
  const [handle, setHandle] = useState('')
  const add = useAction()
  const del = useAction()
  return (
    <>
      <h1>Certificate authorities</h1>
      <Can need="ca-create">
      <FormSection title="Add a CA" submit="Add CA" busy={add.busy} disabled={!handle.trim()} error={add.error} errorTitle="Not added" onSubmit={() => void add.run(() => ok(api.POST('/cas', { body: { handle: handle.trim() } })), () => navigate(url`/ui/cas/${handle.trim()}/parents`))}>
        <Field label="Handle" name="handle" value={handle} onInput={setHandle} required hint="Letters, digits, - and _ (RFC 8183 handle)" />
      </FormSection>
      </Can>
      <Section title="All CAs">
        <ErrorBox error={del.error} title="Not deleted" />
        <ListView list={cas} label="CAs" search="handle" empty="No CAs yet." noMatch="No CA matches the search." rowKey={(c) => c.handle}
          columns={[
            { label: 'Handle', sort: 'handle', cell: (c) => <Link href={url`/ui/cas/${c.handle}`}>{c.handle}</Link> },
            { label: 'Actions', cell: (c) => can('ca-delete', c.handle) && <ConfirmButton label={`Delete ${c.handle}`} confirm={`Yes, delete ${c.handle}`} disabled={del.busy} onConfirm={() => void del.run(() => ok(api.DELETE('/cas/{ca}', { params: { path: { ca: c.handle } } })), cas.reload)} /> },
          ]}
        />
      </Section>
    </>
  )
}

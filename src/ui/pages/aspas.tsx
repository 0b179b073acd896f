/** /ui/cas/{ca}/aspas: ASPA definitions; add or replace one, remove one. */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { Can, can } from '../access.js'
import { api, ok } from '../api.js'
import { ConfirmButton, Field, FormSection, Section } from '../components.js'
import { ListView, useList, whole } from '../list.js'
import { useAction } from '../load.js'
import { CaHeader } from './ca-tabs.js'

const asNumber = (s: string): number => {
  const m = /^\s*(?:AS)?(\d{1,10})\s*$/i.exec(s)
  if (!m || Number(m[1]) > 4294967295) throw new Error(`'${s.trim()}' is not an AS number`)
  return Number(m[1])
}

export function AspasPage(props: { ca: string }): JSX.Element {
  const path = { params: { path: { ca: props.ca } } }
  const list = useList({ load: async () => whole(await ok(api.GET('/cas/{ca}/aspas', path))), deps: [props.ca] })
  const [customer, setCustomer] = useState('')
  const [providers, setProviders] = useState('')
  const change = useAction()
  const update = (body: { add_or_replace: { customer: number; providers: number[] }[]; remove: number[] }) => ok(api.POST('/cas/{ca}/aspas', { ...path, body }))
  const add = () =>
    change.run(
      () => update({ add_or_replace: [{ customer: asNumber(customer), providers: providers.split(/[\s,]+/).filter(Boolean).map(asNumber) }], remove: [] }),
      () => (setCustomer(''), setProviders(''), list.reload()),
    )
  return (
    <>
      <CaHeader ca={props.ca} title="ASPAs" />
      <Can need="aspas-update" ca={props.ca}>
      <FormSection title="Add or replace an ASPA" submit="Save ASPA" busy={change.busy} error={change.error} errorTitle="Nothing changed" onSubmit={() => void add()}>
        <Field label="Customer AS" name="customer" value={customer} onInput={setCustomer} placeholder="AS65000" required />
        <Field label="Provider ASes" name="providers" value={providers} onInput={setProviders} placeholder="AS65001, AS65002" required hint="Separated by commas or spaces; AS0 alone for none" />
      </FormSection>
      </Can>
      <Section title="ASPA definitions">
        <ListView list={list} label="ASPA definitions" whole empty="No ASPA definitions." rowKey={(a) => a.customer}
          columns={[
            { label: 'Customer', cell: (a) => `AS${a.customer}` },
            { label: 'Providers', cell: (a) => a.providers.map((p) => `AS${p}`).join(', ') },
            { label: 'Actions', cell: (a) => can('aspas-update', props.ca) && <ConfirmButton label={`Remove AS${a.customer}`} confirm="Yes, remove" onConfirm={() => void change.run(() => update({ add_or_replace: [], remove: [a.customer] }), list.reload)} /> },
          ]}
        />
      </Section>
    </>
  )
}

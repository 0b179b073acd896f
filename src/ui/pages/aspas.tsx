/** /ui/cas/{ca}/aspas: ASPA definitions; add or replace one, remove one. */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { api, ok } from '../api.js'
import { ConfirmButton, ErrorBox, Field, Loading, onSubmit, Section } from '../components.js'
import { useAction, useLoad } from '../load.js'
import { CaHeader } from './ca-tabs.js'

const asNumber = (s: string): number => {
  const m = /^\s*(?:AS)?(\d{1,10})\s*$/i.exec(s)
  if (!m || Number(m[1]) > 4294967295) throw new Error(`'${s.trim()}' is not an AS number`)
  return Number(m[1])
}

export function AspasPage(props: { ca: string }): JSX.Element {
  const path = { params: { path: { ca: props.ca } } }
  const list = useLoad(() => ok(api.GET('/cas/{ca}/aspas', path)), [props.ca])
  const [customer, setCustomer] = useState('')
  const [providers, setProviders] = useState('')
  const change = useAction()
  const add = () =>
    change.run(
      async () => {
        const def = { customer: asNumber(customer), providers: providers.split(/[\s,]+/).filter(Boolean).map(asNumber) }
        await ok(api.POST('/cas/{ca}/aspas', { ...path, body: { add_or_replace: [def], remove: [] } }))
      },
      () => (setCustomer(''), setProviders(''), list.reload()),
    )
  return (
    <>
      <CaHeader ca={props.ca} title="ASPAs" />
      <Section title="Add or replace an ASPA">
        <form class="inline" onSubmit={onSubmit(() => void add())}>
          <Field label="Customer AS" name="customer" value={customer} onInput={setCustomer} placeholder="AS65000" required />
          <Field label="Provider ASes" name="providers" value={providers} onInput={setProviders} placeholder="AS65001, AS65002" required hint="Separated by commas or spaces; AS0 alone for none" />
          <button type="submit" disabled={change.busy}>
            Save ASPA
          </button>
        </form>
        <ErrorBox error={change.error} title="Nothing changed" />
      </Section>
      <Section title="ASPA definitions">
        <ErrorBox error={list.error} />
        {list.data ? (
          list.data.length === 0 ? (
            <p>No ASPA definitions.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Customer</th>
                  <th scope="col">Providers</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((a) => (
                  <tr key={a.customer}>
                    <td>AS{a.customer}</td>
                    <td>{a.providers.map((p) => `AS${p}`).join(', ')}</td>
                    <td>
                      <ConfirmButton label={`Remove AS${a.customer}`} confirm="Yes, remove" onConfirm={() => void change.run(() => ok(api.POST('/cas/{ca}/aspas', { ...path, body: { add_or_replace: [], remove: [a.customer] } })), list.reload)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        ) : list.loading ? <Loading /> : null}
      </Section>
    </>
  )
}

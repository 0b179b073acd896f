/**
 * /ui/cas/{ca}/aspas: ASPA definitions; add or replace one, remove one, directly or as a change plan (source
 * `console`, reviewed and applied on its plan page). Under four-eyes (the CA's change control) only plans are
 * offered: svcd would refuse the direct update (ca-plan-required).
 */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { Can, can } from '../access.js'
import { api, ok } from '../api.js'
import { ConfirmButton, ErrorBox, Field, onSubmit, Section } from '../components.js'
import { ListView, useList, whole } from '../list.js'
import { useAction, useLoad } from '../load.js'
import { navigate, url } from '../router.js'
import { CaHeader } from './ca-tabs.js'
import { FourEyesNote } from './plans.js'

const asNumber = (s: string): number => {
  const m = /^\s*(?:AS)?(\d{1,10})\s*$/i.exec(s)
  if (!m || Number(m[1]) > 4294967295) throw new Error(`'${s.trim()}' is not an AS number`)
  return Number(m[1])
}

type Update = { add_or_replace: { customer: number; providers: number[] }[]; remove: number[] }

export function AspasPage(props: { ca: string }): JSX.Element {
  const path = { params: { path: { ca: props.ca } } }
  const list = useList({ load: async () => whole(await ok(api.GET('/cas/{ca}/aspas', path))), deps: [props.ca] })
  const control = useLoad(() => (can('aspas-update', props.ca) ? ok(api.GET('/cas/{ca}/change-control', path)) : Promise.resolve(undefined)), [props.ca])
  const fourEyes = control.data?.four_eyes === true
  const [customer, setCustomer] = useState('')
  const [providers, setProviders] = useState('')
  const [asPlan, setAsPlan] = useState(false)
  const change = useAction()
  const update = (body: Update) => ok(api.POST('/cas/{ca}/aspas', { ...path, body }))
  /** A plan of the update (routes-update and aspas-update), then its page. */
  const plan = async (body: Update) => {
    const p = await ok(api.POST('/cas/{ca}/plans', { ...path, body: { source: 'console', aspas: body } }))
    navigate(url`/ui/cas/${props.ca}/plans/${p.id}`)
  }
  const planned = fourEyes || asPlan
  const add = () =>
    change.run(
      () => {
        const body = { add_or_replace: [{ customer: asNumber(customer), providers: providers.split(/[\s,]+/).filter(Boolean).map(asNumber) }], remove: [] }
        return planned ? plan(body) : update(body)
      },
      () => (setCustomer(''), setProviders(''), list.reload()),
    )
  const remove = (c: number) => void change.run(() => (planned ? plan({ add_or_replace: [], remove: [c] }) : update({ add_or_replace: [], remove: [c] })), list.reload)
  return (
    <>
      <CaHeader ca={props.ca} title="ASPAs" />
      <Can need="aspas-update" ca={props.ca}>
        {control.data ? <FourEyesNote ca={props.ca} fourEyes={control.data.four_eyes} enforced={control.data.enforced === true} /> : <ErrorBox error={control.error} title="Change control" />}
        <Section title="Add or replace an ASPA">
          <form class="inline" onSubmit={onSubmit(() => void add())}>
            <Field label="Customer AS" name="customer" value={customer} onInput={setCustomer} placeholder="AS65000" required />
            <Field label="Provider ASes" name="providers" value={providers} onInput={setProviders} placeholder="AS65001, AS65002" required hint="Separated by commas or spaces; AS0 alone for none" />
            {fourEyes ? null : (
              <div class="field check">
                <input id="aspa-as-plan" type="checkbox" checked={asPlan} onChange={(e) => setAsPlan((e.target as HTMLInputElement).checked)} />
                <label for="aspa-as-plan">As a plan (review before applying)</label>
              </div>
            )}
            <button type="submit" disabled={change.busy || !control.data}>
              {planned ? 'Save as plan' : 'Save ASPA'}
            </button>
          </form>
          <ErrorBox error={change.error} title="Nothing changed" />
        </Section>
      </Can>
      <Section title="ASPA definitions">
        <ListView list={list} label="ASPA definitions" whole empty="No ASPA definitions." rowKey={(a) => a.customer}
          columns={[
            { label: 'Customer', cell: (a) => `AS${a.customer}` },
            { label: 'Providers', cell: (a) => a.providers.map((p) => `AS${p}`).join(', ') },
            { label: 'Actions', cell: (a) => can('aspas-update', props.ca) && control.data && <ConfirmButton label={planned ? `Plan removal of AS${a.customer}` : `Remove AS${a.customer}`} confirm={planned ? 'Yes, make the plan' : 'Yes, remove'} onConfirm={() => remove(a.customer)} /> },
          ]}
        />
      </Section>
    </>
  )
}

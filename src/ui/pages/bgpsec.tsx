/** /ui/cas/{ca}/bgpsec: BGPsec router keys (RFC 8209 router certificates): add from a CSR, remove. */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { Can, can } from '../access.js'
import { api, ok } from '../api.js'
import { ConfirmButton, Field, FormSection, Section } from '../components.js'
import { ListView, useList, whole } from '../list.js'
import { useAction } from '../load.js'
import { derBase64 } from '../rfc8183.js'
import { CaHeader } from './ca-tabs.js'

/** The name of a router key in a remove list: ROUTER-<AS, 8 hex digits>-<key identifier>. */
const keyName = (k: { asn: number; key_identifier: string }) => `ROUTER-${k.asn.toString(16).toUpperCase().padStart(8, '0')}-${k.key_identifier.toUpperCase()}`

export function BgpSecPage(props: { ca: string }): JSX.Element {
  const path = { params: { path: { ca: props.ca } } }
  const list = useList({ load: async () => whole(await ok(api.GET('/cas/{ca}/bgpsec', path))), deps: [props.ca] })
  const [asn, setAsn] = useState('')
  const [csr, setCsr] = useState<string | undefined>()
  const change = useAction()
  const update = (body: { add: { asn: number; csr: string }[]; remove: string[] }) => ok(api.POST('/cas/{ca}/bgpsec', { ...path, body }))
  const add = () =>
    change.run(
      async () => {
        const m = /^\s*(?:AS)?(\d{1,10})\s*$/i.exec(asn)
        if (!m) throw new Error(`'${asn}' is not an AS number`)
        if (!csr) throw new Error('choose the router key request (PKCS #10, PEM or DER)')
        await update({ add: [{ asn: Number(m[1]), csr }], remove: [] })
      },
      () => (setAsn(''), list.reload()),
    )
  return (
    <>
      <CaHeader ca={props.ca} title="BGPsec router keys" />
      <Can need="bgpsec-update" ca={props.ca}>
      <FormSection title="Add a router key" submit="Add router key" busy={change.busy} error={change.error} errorTitle="Nothing changed" onSubmit={() => void add()}>
        <Field label="Router AS" name="asn" value={asn} onInput={setAsn} placeholder="AS65000" required />
        <div class="field">
          <label for="csr-file">Router key request (CSR)</label>
          <input id="csr-file" type="file" accept=".csr,.pem,.der" onChange={async (e) => { const f = (e.target as HTMLInputElement).files?.[0]; setCsr(f ? await derBase64(f) : undefined) }} />
        </div>
      </FormSection>
      </Can>
      <Section title="Router keys">
        <ListView list={list} label="Router keys" whole empty="No router keys." rowKey={(k) => `${k.asn}-${k.key_identifier}`}
          columns={[
            { label: 'AS', cell: (k) => `AS${k.asn}` },
            { label: 'Key identifier', cell: (k) => <code>{k.key_identifier}</code> },
            { label: 'Actions', cell: (k) => can('bgpsec-update', props.ca) && <ConfirmButton label="Remove" confirm="Yes, remove" onConfirm={() => void change.run(() => update({ add: [], remove: [keyName(k)] }), list.reload)} /> },
          ]}
        />
      </Section>
    </>
  )
}

/** /ui/cas/{ca}/bgpsec: BGPsec router keys (RFC 8209 router certificates): add from a CSR, remove. */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { api, ok } from '../api.js'
import { ConfirmButton, ErrorBox, Field, Loading, onSubmit, Section } from '../components.js'
import { useAction, useLoad } from '../load.js'
import { derBase64 } from '../rfc8183.js'
import { CaHeader } from './ca-tabs.js'

export function BgpSecPage(props: { ca: string }): JSX.Element {
  const path = { params: { path: { ca: props.ca } } }
  const list = useLoad(() => ok(api.GET('/cas/{ca}/bgpsec', path)), [props.ca])
  const [asn, setAsn] = useState('')
  const [csr, setCsr] = useState<string | undefined>()
  const change = useAction()
  const add = () =>
    change.run(
      async () => {
        const m = /^\s*(?:AS)?(\d{1,10})\s*$/i.exec(asn)
        if (!m) throw new Error(`'${asn}' is not an AS number`)
        if (!csr) throw new Error('choose the router key request (PKCS #10, PEM or DER)')
        await ok(api.POST('/cas/{ca}/bgpsec', { ...path, body: { add: [{ asn: Number(m[1]), csr }], remove: [] } }))
      },
      () => (setAsn(''), list.reload()),
    )
  return (
    <>
      <CaHeader ca={props.ca} title="BGPsec router keys" />
      <Section title="Add a router key">
        <form class="inline" onSubmit={onSubmit(() => void add())}>
          <Field label="Router AS" name="asn" value={asn} onInput={setAsn} placeholder="AS65000" required />
          <div class="field">
            <label for="csr-file">Router key request (CSR)</label>
            <input id="csr-file" type="file" accept=".csr,.pem,.der" onChange={async (e) => { const f = (e.target as HTMLInputElement).files?.[0]; setCsr(f ? await derBase64(f) : undefined) }} />
          </div>
          <button type="submit" disabled={change.busy}>
            Add router key
          </button>
        </form>
        <ErrorBox error={change.error} title="Nothing changed" />
      </Section>
      <Section title="Router keys">
        <ErrorBox error={list.error} />
        {list.data ? (
          list.data.length === 0 ? (
            <p>No router keys.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">AS</th>
                  <th scope="col">Key identifier</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((k) => (
                  <tr key={`${k.asn}-${k.key_identifier}`}>
                    <td>AS{k.asn}</td>
                    <td>
                      <code>{k.key_identifier}</code>
                    </td>
                    <td>
                      <ConfirmButton label="Remove" confirm="Yes, remove" onConfirm={() => void change.run(() => ok(api.POST('/cas/{ca}/bgpsec', { ...path, body: { add: [], remove: [`ROUTER-${k.asn.toString(16).toUpperCase().padStart(8, '0')}-${k.key_identifier.toUpperCase()}`] } })), list.reload)} />
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

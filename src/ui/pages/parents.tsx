/** /ui/cas/{ca}/parents: each parent's last exchange and entitlements; add one from its RFC 8183 parent response; the CA's child request. */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { api, asText, ok, xmlBody } from '../api.js'
import { ConfirmButton, DownloadButton, ErrorBox, FileField, Loading, onSubmit, resourcesText, Section, when } from '../components.js'
import { useAction, useLoad } from '../load.js'
import { CaHeader } from './ca-tabs.js'
import { Exchange } from './ca.js'

export function ParentsPage(props: { ca: string }): JSX.Element {
  const path = { params: { path: { ca: props.ca } } }
  const statuses = useLoad(() => ok(api.GET('/cas/{ca}/parents', path)), [props.ca])
  const [xml, setXml] = useState<string | undefined>()
  const add = useAction()
  const remove = useAction()
  return (
    <>
      <CaHeader ca={props.ca} title="Parents" />
      <Section title="Child request">
        <p>Give this RFC 8183 child request to the parent; it answers with a parent response to upload below.</p>
        <DownloadButton label="Download the child request" file={`${props.ca}-child-request.xml`} fetch={() => ok(api.GET('/cas/{ca}/id/child_request.xml', { ...path, ...asText }))} />
      </Section>
      <Section title="Add a parent">
        <form class="inline" onSubmit={onSubmit(() => void add.run(() => (xml ? ok(api.POST('/cas/{ca}/parents', { ...path, body: xml as never, ...xmlBody })) : Promise.reject(new Error('choose the parent response file'))), () => (setXml(undefined), statuses.reload())))}>
          <FileField label="Parent response (RFC 8183 XML)" name="parent-response" accept=".xml,application/xml" onText={(t) => (add.clear(), setXml(t))} />
          <button type="submit" disabled={add.busy || !xml}>
            Add parent
          </button>
        </form>
        {add.busy ? <p aria-busy="true">Asking the parent…</p> : null}
        <ErrorBox error={add.error} title="Not added" />
      </Section>
      <Section title="Parents">
        <ErrorBox error={statuses.error} />
        <ErrorBox error={remove.error} title="Not removed" />
        {statuses.data ? (
          Object.keys(statuses.data).length === 0 ? (
            <p>No parents.</p>
          ) : (
            Object.entries(statuses.data).map(([name, s]) => (
              <article class="item" key={name} aria-labelledby={`parent-${name}`}>
                <h3 id={`parent-${name}`}>{name}</h3>
                <p>
                  <Exchange status={s.last_exchange} />
                </p>
                <p>Last success: {when(s.last_success)}</p>
                <p>Entitled: {resourcesText(s.all_resources)}</p>
                <ConfirmButton label={`Remove parent ${name}`} confirm="Yes, remove" onConfirm={() => void remove.run(() => ok(api.DELETE('/cas/{ca}/parents/{parent}', { params: { path: { ca: props.ca, parent: name } } })), statuses.reload)} />
              </article>
            ))
          )
        ) : statuses.loading ? <Loading /> : null}
      </Section>
    </>
  )
}

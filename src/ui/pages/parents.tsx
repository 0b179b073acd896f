/** /ui/cas/{ca}/parents: each parent's last exchange and entitlements; add one from its RFC 8183 parent response; the CA's child request. */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { Can, can } from '../access.js'
import { api, asText, ok, xmlBody } from '../api.js'
import { ConfirmButton, DownloadButton, ErrorBox, FileField, FormSection, resourcesText, Section, when } from '../components.js'
import { ListView, useList, whole } from '../list.js'
import { useAction } from '../load.js'
import { CaHeader } from './ca-tabs.js'
import { Exchange } from './ca.js'

export function ParentsPage(props: { ca: string }): JSX.Element {
  const path = { params: { path: { ca: props.ca } } }
  const statuses = useList({ load: async () => whole(Object.entries(await ok(api.GET('/cas/{ca}/parents', path)))), deps: [props.ca] })
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
      <Can need="ca-update" ca={props.ca}>
      <FormSection title="Add a parent" submit="Add parent" busy={add.busy} disabled={!xml} busyText="Asking the parent…" error={add.error} errorTitle="Not added" onSubmit={() => void add.run(() => (xml ? ok(api.POST('/cas/{ca}/parents', { ...path, body: xml as never, ...xmlBody })) : Promise.reject(new Error('choose the parent response file'))), () => (setXml(undefined), statuses.reload()))}>
        <FileField label="Parent response (RFC 8183 XML)" name="parent-response" accept=".xml,application/xml" onText={(t) => (add.clear(), setXml(t))} />
      </FormSection>
      </Can>
      <Section title="Parents">
        <ErrorBox error={remove.error} title="Not removed" />
        <ListView list={statuses} label="Parents" whole empty="No parents." rowKey={([name]) => name}
          item={([name, s]) => (
            <article class="item" aria-labelledby={`parent-${name}`}>
              <h3 id={`parent-${name}`}>{name}</h3>
              <p>
                <Exchange status={s.last_exchange} />
              </p>
              <p>Last success: {when(s.last_success)}</p>
              <p>Entitled: {resourcesText(s.all_resources)}</p>
              {can('ca-update', props.ca) && <ConfirmButton label={`Remove parent ${name}`} confirm="Yes, remove" onConfirm={() => void remove.run(() => ok(api.DELETE('/cas/{ca}/parents/{parent}', { params: { path: { ca: props.ca, parent: name } } })), statuses.reload)} />}
            </article>
          )}
        />
      </Section>
    </>
  )
}

/** /ui/cas/{ca}/repository: where the CA publishes, what is there, its publisher request, and a repository response to upload. */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { Can } from '../access.js'
import { api, asText, ok, xmlBody } from '../api.js'
import { DownloadButton, ErrorBox, FileField, FormSection, Loading, Section, when } from '../components.js'
import { useAction, useLoad } from '../load.js'
import { CaHeader } from './ca-tabs.js'
import { Exchange } from './ca.js'

export function RepositoryPage(props: { ca: string }): JSX.Element {
  const path = { params: { path: { ca: props.ca } } }
  const repo = useLoad(() => ok(api.GET('/cas/{ca}/repo', path)), [props.ca])
  const status = useLoad(() => ok(api.GET('/cas/{ca}/repo/status', path)), [props.ca])
  const [xml, setXml] = useState<string | undefined>()
  const update = useAction()
  const c = repo.data?.contact
  return (
    <>
      <CaHeader ca={props.ca} title="Repository" />
      <Section title="Repository in use">
        <ErrorBox error={repo.error} />
        {repo.data ? (
          c ? (
            <dl>
              <dt>Kind</dt>
              <dd data-testid="repo-kind">{c.type}</dd>
              <dt>rsync base (sia_base)</dt>
              <dd>{c.repo_info.sia_base}</dd>
              <dt>RRDP notification</dt>
              <dd>{c.repo_info.rrdp_notification_uri}</dd>
              <dt>Service URI</dt>
              <dd>{c.server_info.service_uri}</dd>
            </dl>
          ) : (
            <p data-testid="repo-kind">No repository configured yet.</p>
          )
        ) : repo.loading ? <Loading /> : null}
      </Section>
      <Section title="Status">
        <ErrorBox error={status.error} />
        {status.data ? (
          <>
            <p>
              <Exchange status={status.data.last_exchange} />; last success {when(status.data.last_success)}.
            </p>
            <details>
              <summary>{status.data.published.length} published objects</summary>
              <ul class="mono">
                {status.data.published.slice(0, 200).map((o) => (
                  <li key={o.uri}>{o.uri}</li>
                ))}
              </ul>
            </details>
          </>
        ) : null}
      </Section>
      <Section title="Publisher request">
        <p>Give this RFC 8183 publisher request to the repository; it answers with a repository response to upload below.</p>
        <DownloadButton label="Download the publisher request" file={`${props.ca}-publisher-request.xml`} fetch={() => ok(api.GET('/cas/{ca}/id/publisher_request.xml', { ...path, ...asText }))} />
      </Section>
      <Can need="ca-update" ca={props.ca}>
      <FormSection title="Change the repository" submit="Use this repository" busy={update.busy} disabled={!xml} busyText="Checking the repository and publishing there…" error={update.error} errorTitle="Nothing changed" onSubmit={() => void update.run(() => (xml ? ok(api.POST('/cas/{ca}/repo', { ...path, body: xml as never, ...xmlBody })) : Promise.reject(new Error('choose the repository response file'))), () => (setXml(undefined), repo.reload(), status.reload()))}>
        <FileField label="Repository response (RFC 8183 XML)" name="repository-response" accept=".xml,application/xml" onText={(t) => (update.clear(), setXml(t))} />
      </FormSection>
      </Can>
    </>
  )
}

/**
 * /ui/alerts: the alarms (issue 26 §3, beyond Krill): the active ones (kind, subject, CA, reason, since), the recently
 * cleared ones, the webhook deliveries with their status, attempts and last error, and for ca-admin a button that
 * sends a signed test event to every webhook. GET /api/v1/alerts, POST /api/v1/alerts/test.
 */
import type { JSX } from 'preact'
import type { components } from 'svc-api-schema'
import { useState } from 'preact/hooks'
import { can } from '../access.js'
import { api, ok } from '../api.js'
import { ErrorBox, Link, Loading, Section, when } from '../components.js'
import { DataTable } from '../list.js'
import { useAction, useLoad } from '../load.js'
import { url } from '../router.js'

type Alarm = components['schemas']['AlertsJson']['active'][number] | components['schemas']['AlertsJson']['recent'][number]

export function AlertsPage(): JSX.Element {
  const alerts = useLoad(() => ok(api.GET('/alerts', { params: { query: { limit: 50 } } })), [])
  const test = useAction()
  const [queued, setQueued] = useState<string[] | undefined>()
  const v = alerts.data
  const caCell = (a: Alarm) => (a.ca ? <Link href={url`/ui/cas/${a.ca}`}>{a.ca}</Link> : '-')
  return (
    <>
      <h1>Alarms</h1>
      <p>An alarm is raised when svcd sees a condition that needs an operator (a repository check failed, a manifest about to expire, publishing stalled, a child not functional, a quarantined task, a stalled service) and cleared when it is gone. Each raise and clear is sent to the configured webhooks, signed.</p>
      <ErrorBox error={alerts.error} />
      {alerts.loading && !v ? <Loading /> : null}
      {v ? (
        <>
          <Section title={`Active alarms (${v.active.length})`}>
            {v.active.length === 0 ? (
              <p class="ok" data-testid="alarms-none">No active alarms.</p>
            ) : (
              <DataTable
                class="alarms"
                items={v.active}
                rowKey={(a) => `${a.kind}:${a.subject}`}
                columns={[
                  { label: 'Kind', testid: 'alarm-kind', cell: (a) => <code>{a.kind}</code> },
                  { label: 'Subject', testid: 'alarm-subject', cell: (a) => a.subject },
                  { label: 'CA', cell: caCell },
                  { label: 'Reason', testid: 'alarm-reason', cell: (a) => a.reason },
                  { label: 'Since', cell: (a) => when(a.raised_at) },
                ]}
              />
            )}
          </Section>
          {v.recent.length ? (
            <Section title="Recently cleared">
              <DataTable
                class="alarms-cleared"
                items={v.recent}
                rowKey={(a) => `${a.kind}:${a.subject}:${a.raised_at}`}
                columns={[
                  { label: 'Kind', cell: (a) => <code>{a.kind}</code> },
                  { label: 'Subject', cell: (a) => a.subject },
                  { label: 'CA', cell: caCell },
                  { label: 'Reason', cell: (a) => a.reason },
                  { label: 'Raised', cell: (a) => when(a.raised_at) },
                  { label: 'Cleared', cell: (a) => when(a.cleared_at ?? null) },
                ]}
              />
            </Section>
          ) : null}
          <Section title="Webhook deliveries">
            {v.webhooks.length === 0 ? <p data-testid="webhooks-none">No webhooks are configured ([[alerts.webhooks]] in svcd.toml).</p> : (
              <p data-testid="webhooks">Webhooks: {v.webhooks.map((w) => `${w.name} (${w.url})`).join(', ')}</p>
            )}
            {can('ca-admin') && v.webhooks.length > 0 ? (
              <p>
                <button type="button" data-testid="alert-test" disabled={test.busy} onClick={() => void test.run(async () => setQueued((await ok(api.POST('/alerts/test', { body: {} }))).queued), alerts.reload)}>
                  Send a test event
                </button>{' '}
                {queued ? <span role="status" data-testid="alert-test-queued">Test event queued for {queued.join(', ')}.</span> : null}
              </p>
            ) : null}
            <ErrorBox error={test.error} title="No test event sent" />
            {v.deliveries.length === 0 ? <p>No deliveries yet.</p> : (
              <DataTable
                class="deliveries"
                items={v.deliveries}
                rowKey={(d) => String(d.id)}
                columns={[
                  { label: 'Queued', cell: (d) => when(d.created) },
                  { label: 'Webhook', cell: (d) => d.webhook },
                  { label: 'Event', testid: 'delivery-event', cell: (d) => d.event },
                  { label: 'Alarm', cell: (d) => d.alarm ?? '-' },
                  { label: 'Status', testid: 'delivery-status', cell: (d) => (d.status === 'pending' && d.next_at ? `pending (next ${when(d.next_at)})` : d.status) },
                  { label: 'Attempts', cell: (d) => String(d.attempts) },
                  { label: 'Last error', cell: (d) => d.last_error ?? '-' },
                ]}
              />
            )}
          </Section>
        </>
      ) : null}
    </>
  )
}

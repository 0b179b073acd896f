/**
 * The console's alarms (issue 26 §3), in headless Chromium against a real svcd with a webhook pointing at a real
 * receiver on loopback: the dashboard counts the active alarms; /ui/alerts lists them (kind, subject, CA, reason,
 * since) and the cleared ones; "Send a test event" (ca-admin) queues a signed test event that reaches the receiver, and
 * its delivery shows as delivered; the webhook's URL is shown without its query; axe-core on each page.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Db } from '../../src/store/db.js'
import { createSqlStores } from '../../src/store/sql-stores.js'
import { artifactDir, checkPage, NO_CHROMIUM, startBrowser } from '../helpers/browser.js'
import { repoDaemon } from '../helpers/cas.js'
import { tempDir } from '../helpers/daemon.js'
import { waitFor } from '../helpers/wait.js'
import { webhookReceiver } from '../helpers/webhook-receiver.js'

const SHOTS = artifactDir('alerts')
const SECRET = 'console-webhook-secret-0123456789'

t.test('the alarms in the console, in Chromium', { skip: NO_CHROMIUM }, async (t) => {
  const hook = await webhookReceiver(t, SECRET)
  const secretFile = join(tempDir(t, 'svc-whsec-'), 'webhook.secret')
  writeFileSync(secretFile, SECRET, { mode: 0o600 })
  const d = await repoDaemon(t, { extra: `[liveness]\nenabled = false\n[alerts]\nretry_seconds = 1\n\n[[alerts.webhooks]]\nname = "ops"\nurl = "${hook.url}?key=hidden-query"\nsecret_file = "${secretFile}"\n` })
  // Alarms as the alert service stores them (their producers are tested in their own parts).
  const db = Db.openSecondary(join(d.dataDir, 'svcd.db'))
  t.teardown(() => db.close())
  const store = createSqlStores(db).alerts
  const at = Date.UTC(2026, 10, 27, 12)
  store.saveAlarm({ key: 'repository-check-failed:testbed', kind: 'repository-check-failed', subject: 'testbed', ca: 'testbed', source: 'liveness', reason: 'rsync: missing rsync://localhost/repo/testbed/0/x.roa', raisedAt: at })
  store.saveAlarm({ key: 'service-stalled:scheduler', kind: 'service-stalled', subject: 'scheduler', source: 'queues', reason: 'no task ran for 300 s', raisedAt: at + 1000 })
  store.saveAlarm({ key: 'publish-stalled:publication', kind: 'publish-stalled', subject: 'publication', source: 'publication', reason: 'RRDP behind', raisedAt: at - 9000, clearedAt: at - 5000 })

  const { page } = await startBrowser(t)
  await page.goto(`https://localhost:${d.port}/ui/`)
  await page.getByLabel('Token').fill(d.token)
  await page.getByRole('button', { name: 'Log in' }).click()
  await page.getByTestId('alarm-count').waitFor()
  t.equal(await page.getByTestId('alarm-count').textContent(), '2', 'the dashboard counts the active alarms')

  await page.getByRole('link', { name: 'Alarms', exact: true }).click()
  await page.getByRole('heading', { name: 'Active alarms (2)' }).waitFor()
  t.same(await page.getByTestId('alarm-kind').allTextContents(), ['repository-check-failed', 'service-stalled'])
  t.same(await page.getByTestId('alarm-subject').allTextContents(), ['testbed', 'scheduler'])
  t.match(await page.getByTestId('alarm-reason').first().textContent(), /rsync: missing/)
  t.match(await page.locator('table.alarms-cleared').textContent(), /publish-stalled.*publication/, 'the cleared one')
  const hooks = await page.getByTestId('webhooks').textContent()
  t.match(hooks, /ops \(http:\/\/127\.0\.0\.1:\d+\/hook\)/)
  t.notMatch(hooks, /hidden-query/, "the URL's query is not shown")
  await checkPage(t, page, SHOTS, 'alerts')

  await page.getByTestId('alert-test').click()
  await page.getByTestId('alert-test-queued').filter({ hasText: 'ops' }).waitFor()
  await waitFor('the test event at the receiver', () => hook.events('test').length === 1)
  t.ok(hook.events('test')[0]!.signed, 'signed')
  await waitFor('the delivery shown as delivered', async () => {
    await page.reload()
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor()
    return (await page.getByTestId('delivery-status').allTextContents()).includes('delivered')
  })
  t.same(await page.getByTestId('delivery-event').allTextContents(), ['test'])
  t.notMatch(await page.content(), new RegExp(SECRET), 'the secret is nowhere on the page')
})

/**
 * GET /metrics of svcd on PostgreSQL (issue 14 item 7, "also for the single-instance SQLite mode" and the same store
 * interfaces on PostgreSQL): the figures agree with the API, and while the database is lost the scrape still answers,
 * with svc_store_up 0 and without the store figures, until it is back.
 *
 *   ta ── testbed ── alice (a ROA)        svcd ── PostgreSQL (own cluster, loopback port)
 */
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest, tempDir } from '../helpers/daemon.js'
import { startPostgres } from '../helpers/postgres.js'
import { parsePrometheusText, sampleValue, type Family } from '../helpers/prometheus-text.js'

const cluster = await startPostgres(t)

async function scrape(d: RepoDaemon): Promise<Map<string, Family>> {
  const r = await httpsRequest(`${d.url}metrics`, { headers: { Authorization: `Bearer ${d.token}` } })
  if (r.status !== 200) throw new Error(`GET /metrics: ${r.status} ${r.body}`)
  return parsePrometheusText(r.body)
}

t.test('metrics from PostgreSQL, and while it is lost', async (t) => {
  const kek = join(tempDir(t), 'kek')
  writeFileSync(kek, '5a'.repeat(32) + '\n')
  chmodSync(kek, 0o600)
  const d = await repoDaemon(t, { toml: `storage_uri = "${cluster.createDatabase('svc_metrics')}"\nkey_encryption_key_file = "${kek}"\n`, logLevel: 'info' })
  await d.cli(['add', '-c', 'alice'])
  await connect(d, 'testbed', d, 'alice', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await d.cli(['roas', 'update', '-c', 'alice', '--delta', d.file('alice.txt', 'A: 10.1.0.0/16 => 65000\n')])
  const f = await waitFor('the ROA in the metrics, and the serial the API shows', async () => {
    const f = await scrape(d)
    const stats = JSON.parse((await httpsRequest(`${d.url}api/v1/pubd/stats`, { headers: { Authorization: `Bearer ${d.token}` } })).body)
    return sampleValue(f, 'svc_ca_roas', { ca: 'alice' }) === 1 && sampleValue(f, 'svc_repo_rrdp_serial') === stats.serial && f
  })
  t.equal(sampleValue(f, 'svc_store_up'), 1)
  t.equal(sampleValue(f, 'svc_cas'), 3, 'ta, testbed, alice')
  t.equal(sampleValue(f, 'svc_repo_publisher'), 3)
  t.equal(sampleValue(f, 'svc_ca_parent_success', { ca: 'alice', parent: 'testbed' }), 1)

  cluster.stop()
  try {
    const lost = await scrape(d)
    t.equal(sampleValue(lost, 'svc_store_up'), 0, 'the database is lost: svc_store_up 0')
    t.equal(sampleValue(lost, 'svc_ca_roas', { ca: 'alice' }), undefined, 'no store figures')
    t.equal(sampleValue(lost, 'svc_leader_epoch'), 1, 'the figures of the process are still there (epoch 1: the first leader of this database)')
  } finally {
    cluster.start()
  }
  const back = await waitFor('the database back in the metrics', async () => {
    const f = await scrape(d)
    return sampleValue(f, 'svc_store_up') === 1 && f
  })
  t.equal(sampleValue(back, 'svc_ca_roas', { ca: 'alice' }), 1, 'back: the same figures')
})

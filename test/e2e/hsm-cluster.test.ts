/**
 * Issue 25 item 5, end to end: cluster mode with a shared PKCS#11 token. Two svcd on one PostgreSQL database, both
 * configured with the same SoftHSM2 token (same SOFTHSM2_CONF, the same `[[signers]]` block: the usual network-HSM
 * set-up) and `default_signer = "hsm"`. A CA made through instance A (its key generated in the token by A, recorded in
 * the shared `key_signers` table) gets ROAs through B, which signs with the token's key that A made (SoftHSM2's file
 * backend: B finds the object A created); then A stops, B takes over leadership and publishes a further ROA change;
 * rpki-client validates what B serves over RRDP. Nothing of the HSM keys is sealed in the database (the `signer_keys`
 * table of the software signer holds no CA key), and the key-encryption key is still required on PostgreSQL.
 *
 *   svcc ──► A ─┐                    ┌─ SoftHSM2 token (one directory, both processes)
 *   svcc ──► B ─┴─ PostgreSQL (own) ─┘
 *   rpki-client ──► TCP proxy :P ──► B
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { findObjects, pkcs11, Token } from '../../src/signers/pkcs11-token.js'
import { freePort, httpsGet, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js'
import { SHARED } from '../helpers/paths.js'
import { startPostgres } from '../helpers/postgres.js'
import { rpMissing, validate } from '../helpers/rp.js'
import { softHsm } from '../helpers/softhsm.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { waitFor } from '../helpers/wait.js'
import { cliAt, clusterView } from '../helpers/cluster.js'

const TOKEN = 'hsm-cluster-token'
/** The ROA made through A, the one made through B while A leads, the one B publishes after taking over. */
const VRPS = ['AS65000,10.1.0.0/16,16', 'AS65001,10.2.0.0/16,24', 'AS65001,10.3.0.0/20,20']

t.test('two instances on one database and one SoftHSM2 token: a CA made through A is signed for by B, also after B takes over', { skip: rpMissing() }, async (t) => {
  const hsm = softHsm(t, { label: 'svc-cluster' })
  const pg = await startPostgres(t)
  const uri = pg.createDatabase('svc_hsm')
  const sql = (q: string) => pg.psql('svc_hsm', q).trim()
  const dir = tempDir(t)
  const kek = join(dir, 'kek')
  writeFileSync(kek, randomBytes(32).toString('hex') + '\n', { mode: 0o600 })
  execFileSync(join(SHARED, 'tools', 'make-tls-cert.sh'), [join(dir, 'tls')], { stdio: 'ignore' })
  const tlsCert = join(dir, 'tls', 'cert.pem')
  const [pA, pB, lb, rsync] = await Promise.all([freePort(), freePort(), freePort(), freePort()])
  const proxy = await startTcpProxy(t, lb!, pB!)
  const config = (withKek: boolean) => [
    'default_signer = "hsm"',
    `storage_uri = "${uri}"`, ...(withKek ? [`key_encryption_key_file = "${kek}"`] : []), 'cluster_lease_seconds = 5', 'cluster_poll_ms = 200',
    'https_mode = "existing"', `tls_cert = "${tlsCert}"`, `tls_key = "${join(dir, 'tls', 'key.pem')}"`, `service_uri = "https://localhost:${lb}/"`,
    // Key generation in SoftHSM2 takes seconds on a loaded machine: not what this test is about (faults are elsewhere).
    hsm.signerToml('hsm', 'slow_ms = 60000'),
    '[repository]', 'enabled = true', `rrdp_base_uri = "https://localhost:${lb}/rrdp/"`, `rsync_base_uri = "rsync://localhost:${rsync}/repo/"`, 'rsync_daemon = "off"',
    'rrdp_delta_interval_min_seconds = 1',
    '[testbed]', 'enabled = true',
  ].join('\n')
  const start = (port: number) => startDaemon(t, { port, toml: config(true), env: hsm.env, logLevel: 'info', token: TOKEN })
  // One after the other: the first opens the token and puts the signer's handle in it, the second reads the same one.
  const a = await start(pA!)
  const b = await start(pB!)
  const cli = cliAt
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text)
    return join(dir, name)
  }
  const leaderPort = async (d: Daemon) => {
    const v = await clusterView(d)
    const url = v.instances.find((i) => i.id === v.leader)?.url ?? ''
    return /:(\d+)\/$/.exec(url)?.[1]
  }

  // The signer: one handle, recorded once, of type PKCS#11; both instances see the same.
  const signers = sql("SELECT handle || ' ' || name || ' ' || type FROM signers ORDER BY name").split('\n')
  const hsmRow = signers.find((l) => / hsm PKCS#11$/.test(l))
  t.ok(hsmRow, `the token is recorded as signer "hsm" (${signers.join('; ')})`)
  const handle = hsmRow!.split(' ')[0]!
  t.equal((await httpsGet(`${b.url}ready`)).status, 200, 'B is ready: it opened the token A opened')

  // alice, made through A under testbed (its key generated in the token by A), certified, a first ROA through A.
  t.equal(await leaderPort(b), String(pA), 'A, started first, leads')
  await cli(a, ['add', '-c', 'alice'])
  const resp = await cli(a, ['children', 'add', '-c', 'testbed', '--child', 'alice', '--request', file('req.xml', await cli(a, ['parents', 'request', '-c', 'alice'])), '-a', 'AS65000-AS65001', '-4', '10.0.0.0/8'])
  await cli(a, ['parents', 'add', '-c', 'alice', '-p', 'testbed', '-r', file('resp.xml', resp)])
  await waitFor('alice certified (seen through B)', async () => /active/.test(await cli(b, ['show', '-c', 'alice'])), 60_000)
  await cli(a, ['roas', 'update', '-c', 'alice', '--delta', file('d1.txt', 'A: 10.1.0.0/16 => 65000\n')])

  // Every CA key is in the token, recorded under the token's handle, and nothing of it is sealed in the database.
  const caKeys = sql("SELECT handle || ' ' || key_id FROM ca_keys ORDER BY handle").split('\n').filter(Boolean).map((l) => l.split(' ') as [string, string])
  t.ok(caKeys.some(([ca]) => ca === 'alice') && caKeys.some(([ca]) => ca === 'testbed'), `the CA keys: ${caKeys.map(([ca, k]) => `${ca} ${k.slice(0, 8)}…`).join(', ')}`)
  const ids = caKeys.map(([, k]) => `'${k}'`).join(',')
  t.equal(sql(`SELECT count(*) FROM key_signers WHERE handle = '${handle}' AND key_id IN (${ids})`), String(caKeys.length), 'each CA key is recorded as held by the token (key_signers, shared by both instances)')
  t.equal(sql(`SELECT count(*) FROM signer_keys WHERE key_id IN (${ids})`), '0', 'no CA key is sealed in the database (signer_keys: the software signer under the key-encryption key)')
  process.env.SOFTHSM2_CONF = hsm.conf
  const token = Token.open({ name: 'check', libPath: hsm.lib, slot: hsm.label, userPin: hsm.pin, login: true })
  try {
    const P = pkcs11()
    const inToken = caKeys.filter(([, k]) => findObjects(token.lib, token.session, [{ type: P.CKA_CLASS, value: P.CKO_PRIVATE_KEY }, { type: P.CKA_ID, value: Buffer.from(k, 'hex') }]).length === 1)
    t.equal(inToken.length, caKeys.length, 'the token holds the private key of every CA key')
    t.equal(token.handle, handle, 'the handle in the token is the recorded one')
  } finally {
    token.close()
  }

  // A ROA change through B: B signs with alice's key, which A made in the token.
  await cli(b, ['roas', 'update', '-c', 'alice', '--delta', file('d2.txt', 'A: 10.2.0.0/16-24 => 65001\n')])
  await waitFor('B lists both ROAs', async () => (await cli(b, ['roas', 'list', '-c', 'alice'])).split('\n').filter((l) => /=>/.test(l)).length === 2, 30_000)

  // A stops; B takes over the lead and publishes what alice's key signs, validated over RRDP.
  t.equal(await a.stop(), 0, 'A stops cleanly')
  await waitFor('B leads', async () => (await leaderPort(b)) === String(pB), 30_000, 100)
  const serial = async () => Number(/serial="(\d+)"/.exec((await httpsGet(`${b.url}rrdp/notification.xml`)).body)?.[1] ?? 0)
  const before = await serial()
  await cli(b, ['roas', 'update', '-c', 'alice', '--delta', file('d3.txt', 'A: 10.3.0.0/20 => 65001\n')])
  // The change is published by B as leader: a new RRDP serial (the ROA and alice's manifest and CRL, signed in the token).
  await waitFor('B publishes the change', async () => (await serial()) > before, 60_000, 100)
  const rp = () => validate({ talUrl: `https://localhost:${lb}/ta/ta.tal`, tlsCert, vrps: VRPS, transport: 'rrdp', validators: ['rpki-client'] })
  const r = await waitFor('rpki-client validates what B serves', async () => {
    const v = await rp()
    return v.code === 0 ? v : undefined
  }, 120_000, 1_000).catch(rp)
  t.equal(r.code, 0, `served by B alone, rpki-client finds exactly the VRPs, no warnings (signatures by the token's keys)\n${r.lines}`)
  t.ok(((await proxy.connections()).get(pB!) ?? 0) > 0, 'the relying party was served by B')
  for (const d of [a, b]) t.notOk(d.output().includes(hsm.pin), 'the user PIN is not in the log')

  // The key-encryption key stays required on PostgreSQL (software keys: one-off keys, the implicit OpenSSL signer).
  const noKek = await startDaemon(t, { toml: config(false), env: hsm.env, noWait: true, logLevel: 'info' })
  const code = await waitFor('the instance without a key-encryption key to exit', () => noKek.proc.exitCode ?? undefined, 30_000, 50)
  t.not(code, 0, 'without key_encryption_key_file an instance on PostgreSQL does not start')
  t.match(noKek.output(), /key_encryption_key_file/, 'and says why')
  t.equal(await b.stop(), 0, 'B stops cleanly')
})

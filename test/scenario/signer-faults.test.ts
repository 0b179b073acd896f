/**
 * Signer faults with a real svcd and a real SoftHSM2 token as default_signer (issue 25 item 4, acceptance "token
 * away"): the token taken away makes /ready 503 with sys-signer-unavailable naming the signer and shows in `svcc
 * issues`; a ROA change meanwhile is refused (503, nothing changed) or held, nothing half-signed is published (the RRDP
 * serial does not move); given back, svcd is ready again without a restart and publishes the change. A token absent at
 * the first start: svcd serves /health, is not ready, and creates the testbed once the token answers. A wrong PIN:
 * sys-signer-login, and the PIN in no log line or answer.
 */
import t, { type Test } from 'tap'
import { caObjects, connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { httpsGet, httpsRequest, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js'
import { ROOT } from '../helpers/paths.js'
import { readRrdp } from '../helpers/repo.js'
import { softHsm, type SoftHsm } from '../helpers/softhsm.js'

const FAST = 'check_seconds = 1\nretry_seconds = 1\nmax_retry_seconds = 2\n'

/** svcd's log when the test failed (the faults are timing-dependent: the log says what happened). */
function dumpOnFailure(t: Test, d: Daemon): void {
  t.teardown(() => {
    if (!t.passing()) console.error(d.output().split('\n').filter((l) => !/"level":"debug"/.test(l)).slice(-150).join('\n'))
  })
}

function hsmToml(hsm: SoftHsm, extra = ''): string {
  return `default_signer = "hsm"\n${hsm.signerToml('hsm', FAST + extra)}`
}

async function ready(d: Daemon): Promise<{ status: number; body: { ready: boolean; problems?: { label: string; msg: string; args: Record<string, string> }[] } }> {
  const r = await httpsGet(d.url + 'ready')
  return { status: r.status, body: JSON.parse(r.body) }
}

/** Nothing svcd wrote or answered holds the PIN. */
function noPin(t: Test, d: Daemon, pin: string): void {
  t.notOk(d.output().includes(pin), 'the PIN is in no log line')
  const answers = d.responses().map((r) => JSON.stringify(r))
  t.ok(answers.length > 0, `${answers.length} answers recorded`)
  t.notOk(answers.some((a) => a.includes(pin)), 'the PIN is in no answer')
}

t.test('the token away and back: not ready, an issue, nothing half-signed, healed without a restart', async (t) => {
  const hsm = softHsm(t, { label: 'faults-away' })
  const d: RepoDaemon = await repoDaemon(t, { env: hsm.env, toml: hsmToml(hsm), logLevel: 'info' })
  dumpOnFailure(t, d)
  t.same((await ready(d)).body, { ready: true }, 'ready with the token present')
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS64496', ipv4: '10.1.0.0/16' })
  await waitFor('ca1 certified', async () => (await caObjects(d, 'ca1')).active === 1)
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('a.txt', 'A: 10.1.0.0/16 => 64496\n')])
  await waitFor('the ROA is an object of ca1', async () => (await caObjects(d, 'ca1')).roas === 1)
  const roa = (await caObjects(d, 'ca1')).objects.find((o) => o.endsWith('.roa'))!
  await waitPublished(d, (uris) => uris.some((u) => u.endsWith(roa)))
  const roasBefore = await d.cli(['roas', 'list', '-c', 'ca1'])

  hsm.away()
  const down = await waitFor('/ready 503 with sys-signer-unavailable', async () => {
    const r = await ready(d)
    return r.status === 503 && r.body.problems?.some((p) => p.label === 'sys-signer-unavailable') && r
  })
  const p = down.body.problems!.find((x) => x.label === 'sys-signer-unavailable')!
  t.equal(p.args.signer, 'hsm', 'the problem names the signer')
  t.ok(p.args.since, 'and since when')
  t.equal((await httpsGet(d.url + 'health')).status, 200, 'svcd stays up (/health 200)')
  const serialAway = (await readRrdp(d.url)).notification.serial

  const issues = await d.run(['issues'])
  t.equal(issues.code, 0, 'svcc issues exits 0, as for other issues')
  t.match(issues.stdout, /Signer issue: .*\(sys-signer-unavailable\)/, 'svcc issues shows the signer')
  const issuesJson = JSON.parse(await d.cli(['issues', '-f', 'json'])) as { signers?: { label: string; args: Record<string, string> }[] }
  t.match(issuesJson.signers, [{ label: 'sys-signer-unavailable', args: { signer: 'hsm' } }], 'the bulk issues API lists it under signers')

  // A ROA change while the token is away: refused with nothing changed, or accepted and held.
  const change = await d.run(['roas', 'update', '-c', 'ca1', '--delta', d.file('b.txt', 'A: 10.1.1.0/24 => 64496\n')])
  const refused = change.code !== 0
  if (refused) {
    t.match(change.stderr, /sys-signer-unavailable/, 'the change is refused with sys-signer-unavailable')
    t.equal(await d.cli(['roas', 'list', '-c', 'ca1']), roasBefore, 'and nothing changed')
    const api = await httpsRequest(`${d.url}api/v1/cas/ca1/routes`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ added: [{ asn: 64496, prefix: '10.1.1.0/24' }], removed: [] }) })
    t.equal(api.status, 503, 'the API answers 503')
    t.equal(JSON.parse(api.body).label, 'sys-signer-unavailable')
  } else {
    t.pass('the change was accepted; it is published once the token is back')
  }
  t.equal((await readRrdp(d.url)).notification.serial, serialAway, 'while away the RRDP serial does not move: nothing half-signed is published')
  t.equal((await ready(d)).status, 503, 'still not ready')

  hsm.back()
  await waitFor('/ready 200 again without a restart', async () => (await ready(d)).status === 200)
  t.same((await ready(d)).body, { ready: true })
  t.notOk(JSON.parse(await d.cli(['issues', '-f', 'json'])).signers, 'the issue cleared')
  if (refused) await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('b.txt', 'A: 10.1.1.0/24 => 64496\n')])
  await waitFor('ca1 has the second ROA', async () => (await caObjects(d, 'ca1')).roas === 2)
  const roas = (await caObjects(d, 'ca1')).objects.filter((o) => o.endsWith('.roa'))
  await waitPublished(d, (uris) => roas.every((r) => uris.some((u) => u.endsWith(r))))
  t.ok(Number((await readRrdp(d.url)).notification.serial) > Number(serialAway), 'the change is published after the token came back')
  t.match(d.output(), /signer cannot sign/, 'the outage is logged')
  t.match(d.output(), /signer available/, 'and the return')
  noPin(t, d, hsm.pin)
})

t.test('a token absent at the first start: svcd serves, is not ready, and creates the testbed once the token answers', async (t) => {
  const hsm = softHsm(t, { label: 'faults-absent' })
  hsm.away()
  const d = await repoDaemon(t, { env: hsm.env, toml: hsmToml(hsm), logLevel: 'info' })
  dumpOnFailure(t, d)
  t.equal((await httpsGet(d.url + 'health')).status, 200, '/health answers')
  const r = await ready(d)
  t.equal(r.status, 503, '/ready 503')
  t.match(r.body.problems, [{ label: 'sys-signer-unavailable', args: { signer: 'hsm' } }])
  const add = await d.run(['add', '-c', 'early'])
  t.not(add.code, 0, 'a CA cannot be created meanwhile')
  t.match(add.stderr, /sys-signer-unavailable/)
  t.notOk((await d.cli(['list'])).includes('early'), 'and none was')
  hsm.back()
  await waitFor('/ready 200 once the token answers', async () => (await ready(d)).status === 200)
  await waitFor('the testbed is created', async () => /testbed/.test(await d.cli(['list'])) && (await caObjects(d, 'testbed')).active === 1)
  t.equal((await httpsGet(d.talUrl)).status, 200, 'the TAL is served')
  await d.cli(['add', '-c', 'later'])
  t.match(await d.cli(['list']), /later/, 'CAs can be created now')
  noPin(t, d, hsm.pin)
})

t.test('a restart with the token away: reads are served, signing commands answer 503 and change nothing', async (t) => {
  const hsm = softHsm(t, { label: 'faults-restart' })
  const first = await repoDaemon(t, { env: hsm.env, toml: hsmToml(hsm), logLevel: 'info' })
  dumpOnFailure(t, first)
  await first.cli(['add', '-c', 'ca2'])
  const ports = { port: first.port, rsync: first.rsyncPort }
  await first.stop()
  hsm.away()
  const d = await repoDaemon(t, { env: hsm.env, toml: hsmToml(hsm), logLevel: 'info', dataDir: first.dataDir, ports })
  dumpOnFailure(t, d)
  t.equal((await ready(d)).status, 503, 'not ready')
  t.match(await d.cli(['list']), /ca2/, 'reads are served')
  t.match(await d.cli(['show', '-c', 'ca2']), /Name:\s+ca2/)
  const before = await d.cli(['history', '-c', 'ca2'])
  const api = await httpsRequest(`${d.url}api/v1/cas/ca2/repo`, { method: 'PUT', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ tag: null, id_cert: '', service_uri: 'https://localhost:1/rfc8181/ca2/', repo_info: { base_uri: 'rsync://localhost/repo/ca2/', rpki_notify: null } }) })
  t.ok(api.status >= 400, `a signing command is refused (${api.status})`)
  t.equal(await d.cli(['history', '-c', 'ca2']), before, 'nothing changed')
  const add = await d.run(['add', '-c', 'ca3'])
  t.match(add.stderr, /sys-signer-unavailable/, 'creating a CA answers sys-signer-unavailable')
  hsm.back()
  await waitFor('/ready 200 again', async () => (await ready(d)).status === 200)
  await d.cli(['add', '-c', 'ca3'])
  noPin(t, d, hsm.pin)
})

t.test('a wrong PIN: sys-signer-login, and the PIN nowhere', async (t) => {
  const hsm = softHsm(t, { label: 'faults-pin' })
  const wrong = 'wrong-' + hsm.pin
  const toml = `default_signer = "hsm"\n${hsm.signerToml('hsm', FAST).replace(`user_pin = "${hsm.pin}"`, `user_pin = "${wrong}"`)}`
  const d = await startDaemon(t, { env: hsm.env, toml })
  dumpOnFailure(t, d)
  const r = await ready(d)
  t.equal(r.status, 503, 'not ready')
  t.match(r.body.problems, [{ label: 'sys-signer-login', args: { signer: 'hsm' } }], 'sys-signer-login naming the signer')
  const add = await httpsRequest(`${d.url}api/v1/cas`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ handle: 'ca1' }) })
  t.equal(add.status, 503, 'creating a CA answers 503')
  t.equal(JSON.parse(add.body).label, 'sys-signer-login')
  await waitFor('a retry was logged', () => (d.output().match(/C_Login/g) ?? []).length >= 1)
  noPin(t, d, wrong)
  noPin(t, d, hsm.pin)
})

t.test('a slow token: sys-signer-slow in /ready and svcc issues, cleared when fast again', async (t) => {
  const hsm = softHsm(t, { label: 'faults-slow' })
  // The real SoftHSM2 behind the fault module (test/helpers/p11-fault.c): C_Sign sleeps as the control file says.
  const dir = tempDir(t, 'svc-p11-fault-')
  const shim = join(dir, 'p11-fault.so')
  execFileSync('cc', ['-shared', '-fPIC', '-o', shim, join(ROOT, 'test', 'helpers', 'p11-fault.c'), '-I', join(ROOT, 'node_modules', 'pkcs11js', 'includes', 'pkcs11'), '-ldl'])
  const control = join(dir, 'fault')
  writeFileSync(control, 'delay_ms=0\n')
  const block = hsm.signerToml('hsm', 'check_seconds = 5\nretry_seconds = 1\nmax_retry_seconds = 2\nslow_ms = 300\n').replace(`lib_path = "${hsm.lib}"`, `lib_path = "${shim}"`)
  const d = await repoDaemon(t, { env: { ...hsm.env, SVC_P11_FAULT: control, SVC_P11_REAL: hsm.lib }, toml: `default_signer = "hsm"\n${block}`, logLevel: 'info' })
  dumpOnFailure(t, d)
  t.equal((await ready(d)).status, 200, 'ready while the token is fast')
  writeFileSync(control, 'delay_ms=700\n')
  await d.cli(['add', '-c', 'slowca'])
  t.match(await d.cli(['list']), /slowca/, 'a slow token still signs: the CA is created')
  const slow = await waitFor('/ready 503 with sys-signer-slow', async () => {
    const r = await ready(d)
    return r.status === 503 && r.body.problems?.find((p) => p.label === 'sys-signer-slow')
  })
  t.equal(slow.args.signer, 'hsm')
  const issues = await d.run(['issues'])
  t.equal(issues.code, 0)
  t.match(issues.stdout, /Signer issue: .*\(sys-signer-slow\)/, 'svcc issues shows the slow signer')
  writeFileSync(control, 'delay_ms=0\n')
  await waitFor('/ready 200 when the token is fast again', async () => (await ready(d)).status === 200)
  noPin(t, d, hsm.pin)
})

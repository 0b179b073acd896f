/**
 * Publication stalls (issue 26 §5): the RRDP output frozen while changes are accepted. svcd's RRDP directory is a
 * small tmpfs (root: permissions do not stop it, a full file system does); a publisher's ballast object makes every
 * snapshot large; the tmpfs is filled. Changes are still accepted (RFC 8181 success: SQLite is elsewhere) but never
 * reach RRDP: within [liveness] stall_seconds the watchdog reports publish-stalled (GET /ready 503 with sys-stalled
 * for the publication, `svcc issues`, svc_stalled{component="publication"} 1). Space freed: RRDP catches up by itself
 * and the stall clears. The alert service (AlarmSink) holds the publish-stalled alarm meanwhile (svc_alarm_active).
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { closeSync, mkdirSync, openSync, rmSync, statfsSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, httpsGet, startDaemon, svcc, tempDir, type Daemon } from '../helpers/daemon.js'
import { waitAlarm, webhookReceiver, webhookToml } from '../helpers/webhook-receiver.js'
import { waitFor } from '../helpers/wait.js'
import { TestPublisher } from '../helpers/publisher.js'
import { readRrdp, sha, waitRrdp } from '../helpers/repo.js'
import type { BulkIssuesJson } from '../../src/api/cas.js'

const bytes = (s: string) => new TextEncoder().encode(s)

function fill(dir: string): string {
  const path = join(dir, 'filler')
  const fd = openSync(path, 'w')
  try {
    for (let n = 256 * 1024; n >= 1; n = Math.floor(n / 2)) {
      const chunk = Buffer.alloc(n, 0x5a)
      try {
        for (;;) {
          const st = statfsSync(dir)
          if (st.bavail * st.bsize < n) break
          writeSync(fd, chunk)
        }
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e
      }
    }
  } finally {
    closeSync(fd)
  }
  return path
}

t.test('RRDP frozen while changes are accepted: publish-stalled within stall_seconds, /ready 503; space freed: it heals', async (t) => {
  const data = join(tempDir(t), 'data')
  const rrdpDir = join(data, 'repo', 'rrdp')
  mkdirSync(rrdpDir, { recursive: true })
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', rrdpDir], { encoding: 'utf8' })
  if (mount.status !== 0) return t.plan(0, `skipped: cannot mount a tmpfs (needs root): ${mount.stderr.trim() || mount.error?.message}`)
  let d: Daemon | undefined
  t.teardown(async () => {
    await d?.stop('SIGKILL')
    if (spawnSync('umount', [rrdpDir]).status !== 0) spawnSync('umount', ['-l', rrdpDir])
  })
  const port = await freePort()
  const SECRET = 'stall-scenario-webhook-secret!!!'
  const hook = await webhookReceiver(t, SECRET)
  const toml = `[repository]\nenabled = true\nrrdp_base_uri = "https://localhost:${port}/rrdp/"\nrsync_base_uri = "rsync://localhost:3873/repo/"\nrsync_daemon = "off"\nquota_object_bytes = 4194304\n[liveness]\nstall_seconds = 5\n${webhookToml(t, hook, SECRET, tempDir(t))}`
  d = await startDaemon(t, { port, toml, dataDir: data, logLevel: 'info' })
  const alice = new TestPublisher('alice')
  const req = join(tempDir(t), 'alice.xml')
  writeFileSync(req, alice.requestXml())
  const added = await svcc(['publishers', 'add', '--request', req], { env: d.env })
  t.equal(added.code, 0, added.stderr)
  alice.useResponse(added.stdout)
  const jail = alice.response!.siaBase
  const send = (name: string, content: string) => alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + name, content: bytes(content) }] })
  t.same(await send('ballast.cer', 'B'.repeat(2 * 1024 * 1024)), { type: 'success' })
  await waitRrdp(d.url, (v) => v.objects.has(jail + 'ballast.cer'), 60_000)
  t.equal((await httpsGet(`${d.url}ready`)).status, 200, 'ready before the fault')

  const filler = fill(rrdpDir)
  t.same(await send('a.roa', 'A'), { type: 'success' }, 'a change is still accepted')
  const accepted = Date.now()
  const ready = await waitFor('publish-stalled on /ready', async () => {
    const r = await httpsGet(`${d!.url}ready`)
    const body = JSON.parse(r.body) as { problems?: { label: string; args: Record<string, string> }[] }
    return r.status === 503 && body.problems?.some((p) => p.label === 'sys-stalled' && p.args.component === 'publication') ? body : undefined
  }, 60_000, 250)
  t.comment(`publish-stalled reported ${Date.now() - accepted} ms after the change was accepted (stall_seconds = 5)`)
  t.ok(ready.problems!.length > 0)
  t.notOk((await readRrdp(d.url)).objects.has(jail + 'a.roa'), 'RRDP does not hold the change')
  const issues = JSON.parse((await svcc(['issues', '--format', 'json'], { env: d.env })).stdout) as BulkIssuesJson
  t.ok(issues.stalled?.some((p) => p.label === 'sys-stalled' && p.args.component === 'publication'), 'svcc issues names the stall')
  t.comment(`stalled: ${(issues.stalled ?? []).map((p) => p.msg).join(' | ')}`)
  const metrics = await svcc(['metrics'], { env: d.env })
  t.match(metrics.stdout, /svc_stalled\{component="publication"\} 1/)
  await waitFor('the publish-stalled alarm', async () => /svc_alarm_active\{kind="publish-stalled",subject="alice"\} 1/.test((await svcc(['metrics'], { env: d!.env })).stdout) || undefined, 30_000, 250)
  t.ok(d.output().split('\n').some((l) => /"component":"publication"/.test(l) && /"msg":"stalled"/.test(l)), 'the stall is logged')
  const raised = await waitAlarm(hook, 0, 'alarm.raised', 'alice', /^publisher alice: a change accepted at /, 30_000)
  t.equal(raised.body.alarm?.kind, 'publish-stalled', `webhook: ${raised.body.alarm?.reason}`)

  rmSync(filler)
  await waitRrdp(d.url, (v) => v.objects.get(jail + 'a.roa') === sha('A'), 120_000)
  await waitFor('the stall clears', async () => ((await httpsGet(`${d!.url}ready`)).status === 200 ? true : undefined), 60_000, 250)
  t.match((await svcc(['metrics'], { env: d.env })).stdout, /svc_stalled\{component="publication"\} 0/)
  await waitFor('the alarm cleared', async () => !/svc_alarm_active\{kind="publish-stalled"/.test((await svcc(['metrics'], { env: d!.env })).stdout) || undefined, 90_000, 250)
  await waitAlarm(hook, 0, 'alarm.cleared', 'alice', undefined, 30_000)
  t.pass('webhook: cleared')
  t.equal((JSON.parse((await svcc(['issues', '--format', 'json'], { env: d.env })).stdout) as BulkIssuesJson).stalled, undefined)
})

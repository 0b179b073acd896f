/**
 * Suspension of children (issue 13 item 3, Krill's suspend_child_after_inactive_hours and `children suspend`):
 * with shortened timings an inactive child is suspended, its certificate gone from RRDP and rsync, and back (a new
 * one) when it next asks; an operator suspends and unsuspends; `children info` and `show` say so; the parent's
 * history records it; an unknown child is refused with its label.
 *
 *   ta ── testbed ── ca1 ── ca2
 */
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { readRrdp } from '../helpers/repo.js'

/** ca1 with child ca2, both certified; the URI of ca2's certificate (published by ca1). */
async function tree(d: RepoDaemon): Promise<string> {
  for (const ca of ['ca1', 'ca2']) await d.cli(['add', '-c', ca])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await connect(d, 'ca1', d, 'ca2', { ipv4: '10.1.0.0/16' })
  await waitFor('ca2 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca2'])))
  const info = JSON.parse(await d.cli(['show', '-c', 'ca2', '-f', 'json']))
  return (Object.values(info.resource_classes['0'].keys)[0] as Record<string, { incoming_cert: { uri: string } }>)[Object.keys(Object.values(info.resource_classes['0'].keys)[0] as object)[0]!]!.incoming_cert.uri
}

/** The hash RRDP shows for `uri` (undefined: not published), once rsync agrees. */
async function published(d: RepoDaemon, uri: string, cond: (hash: string | undefined) => boolean): Promise<string | undefined> {
  return waitFor(`${uri} published as expected`, async () => {
    await waitPublished(d, () => true)
    const h = (await readRrdp(d.url)).objects.get(uri)
    return cond(h) ? { h } : undefined
  }, 60_000).then((r) => r.h)
}

t.test('an inactive child is suspended and comes back when it next asks', async (t) => {
  const d = await repoDaemon(t, { toml: '[timing]\nsuspend_child_after_inactive_seconds = 10\n' })
  const uri = await tree(d)
  const first = await published(d, uri, (h) => h !== undefined)
  await waitFor('ca2 suspended', async () => /state: suspended/.test(await d.cli(['children', 'info', '-c', 'ca1', '--child', 'ca2'])), 60_000)
  await published(d, uri, (h) => h === undefined)
  t.pass("ca2's certificate is withdrawn from RRDP and rsync")
  t.same(JSON.parse(await d.cli(['show', '-c', 'ca1', '-f', 'json'])).suspended_children, ['ca2'])
  t.match(await d.cli(['history', '-c', 'ca1']), /Suspend inactive child 'ca2'/)

  const sync = await httpsRequest(`${d.url}api/v1/cas/ca2/sync/parents`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}` } })
  t.equal(sync.status, 200)
  const back = await published(d, uri, (h) => h !== undefined)
  t.not(back, first, 'a new certificate (the old one is revoked)')
  t.match(await d.cli(['children', 'info', '-c', 'ca1', '--child', 'ca2']), /state: active/)
  t.match(await d.cli(['history', '-c', 'ca1']), /Unsuspend child 'ca2'/)
})

t.test('an operator suspends and unsuspends a child; refusals', async (t) => {
  const d = await repoDaemon(t)
  const uri = await tree(d)
  const first = await published(d, uri, (h) => h !== undefined)
  await d.cli(['children', 'suspend', '-c', 'ca1', '--child', 'ca2'])
  t.match(await d.cli(['children', 'info', '-c', 'ca1', '--child', 'ca2']), /state: suspended/)
  t.equal(JSON.parse(await d.cli(['children', 'info', '-c', 'ca1', '--child', 'ca2', '-f', 'json'])).state, 'suspended')
  await published(d, uri, (h) => h === undefined)
  await d.cli(['children', 'suspend', '-c', 'ca1', '--child', 'ca2'])
  const unknown = await d.run(['children', 'suspend', '-c', 'ca1', '--child', 'nope'])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /ca-child-unknown/)
  t.match(await d.run(['children', 'unsuspend', '-c', 'nope', '--child', 'ca2']), { code: 1, stderr: /ca-unknown/ })
  await d.cli(['children', 'unsuspend', '-c', 'ca1', '--child', 'ca2'])
  const back = await published(d, uri, (h) => h !== undefined)
  t.not(back, first, 'a new certificate')
  const hist = (await d.cli(['history', '-c', 'ca1'])).split('\n').filter((l) => /uspend/.test(l)).map((l) => l.split('::')[1])
  t.same(hist, ["Suspend child 'ca2'", "Unsuspend child 'ca2'"], 'each, in the history (the second suspension changed nothing and is not recorded)')
})

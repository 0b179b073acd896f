/**
 * Operations over real time with shortened timings (issue 6): manifests valid for a minute and renewed every ten
 * seconds, validated with no warning across several cycles; a repository that loses a CA's files gets them back by
 * itself; a parent that goes down gives the child an issue, and recovery clears it.
 *
 *   svcd A: ta ── testbed ── ca1          svcd B: remote (parent testbed in A; publishes in B)
 */
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { readRrdp } from '../helpers/repo.js'
import { rpMissing, validate } from '../helpers/rp.js'
import { decodeManifest } from '../../src/objects/manifest.js'
import { httpsGet } from '../helpers/daemon.js'

const FAST = '[timing]\nmft_next_update_seconds = 60\nmft_reissue_seconds = 10\nparent_refresh_seconds = 2\nparent_refresh_jitter_seconds = 0\nretry_seconds = 1\n'

async function mftNumbers(url: string): Promise<Map<string, bigint>> {
  const v = await readRrdp(url)
  const snap = await httpsGet(v.notification.snapshot.uri)
  const out = new Map<string, bigint>()
  const { decodeSnapshot } = await import('../../src/protocol/rrdp.js')
  for (const p of decodeSnapshot(snap.raw).publishes) if (p.uri.endsWith('.mft')) out.set(p.uri, decodeManifest(p.content).manifestNumber)
  return out
}

t.test('manifests renew on time and validate through several cycles; lost files come back', { skip: rpMissing() }, async (t) => {
  const d = await repoDaemon(t, { extra: FAST })
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d.txt', 'A: 10.0.0.0/24 => 65000\n')])
  await waitPublished(d, (u) => u.some((x) => x.endsWith('.roa')))
  const first = await mftNumbers(d.url)
  for (let cycle = 1; cycle <= 3; cycle++) {
    const prev = await mftNumbers(d.url)
    await waitFor(`renewal cycle ${cycle}`, async () => {
      const now = await mftNumbers(d.url)
      return [...prev].every(([u, n]) => (now.get(u) ?? 0n) > n)
    }, 40_000)
    const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: ['AS65000,10.0.0.0/24,24'], transport: 'rrdp' })
    t.equal(r.code, 0, `cycle ${cycle}: every manifest renewed with a higher number, validates with no warning\n${r.lines}`)
  }
  for (const [u, n] of await mftNumbers(d.url)) t.ok(n >= (first.get(u) ?? 0n) + 3n, `${u.split('/').slice(-3).join('/')}: three renewals`)

  // The repository loses ca1's files (the publisher is removed and registered again, empty).
  const request = d.file('pr.xml', await d.cli(['repo', 'request', '-c', 'ca1']))
  await d.cli(['publishers', 'remove', '-p', 'ca1'])
  await waitPublished(d, (u) => !u.some((x) => x.includes('/ca1/')))
  await d.cli(['publishers', 'add', '--request', request])
  await waitPublished(d, (u) => u.some((x) => x.includes('/ca1/') && x.endsWith('.roa')), 40_000)
  t.pass('ca1 re-published everything by itself at its next renewal')
  const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: ['AS65000,10.0.0.0/24,24'], transport: 'rsync' })
  t.equal(r.code, 0, `validates again over rsync\n${r.lines}`)
  await waitFor('the repository issue to clear', async () => JSON.parse(await d.cli(['issues', '-f', 'json'])).cas.ca1 === undefined, 30_000)
})

t.test('a parent that goes down is an issue; recovery clears it', async (t) => {
  const a = await repoDaemon(t, { extra: FAST })
  const b = await repoDaemon(t, { testbed: false, extra: FAST })
  await b.cli(['add', '-c', 'remote'])
  await connect(a, 'testbed', b, 'remote', { ipv4: '192.0.2.0/24' })
  await waitFor('remote certified', async () => /active/.test(await b.cli(['show', '-c', 'remote'])))
  t.same(JSON.parse(await b.cli(['issues', '-f', 'json'])), { cas: {} })
  await a.stop()
  const issue = await waitFor('a parent issue', async () => {
    const i = JSON.parse(await b.cli(['issues', '-c', 'remote', '-f', 'json']))
    return i.parent_issues.length ? i.parent_issues[0] : undefined
  })
  t.equal(issue.parent, 'testbed')
  t.match(issue.issue.msg, /cannot reach|ECONNREFUSED|refused/)
  t.match(await b.cli(['issues']), /Parent 'testbed' issue/)
  const again = await repoDaemon(t, { extra: FAST, dataDir: a.dataDir, token: a.token, ports: { port: a.port, rsync: a.rsyncPort } })
  void again
  await waitFor('the issue to clear', async () => JSON.parse(await b.cli(['issues', '-c', 'remote', '-f', 'json'])).parent_issues.length === 0, 30_000)
  t.pass('recovered')
})

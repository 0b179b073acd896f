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

/** The shortened timings, and the deadlines derived from them (generous: only a hang crosses them). */
const MFT_REISSUE_S = 10
const PARENT_REFRESH_S = 2
const FAST = `[timing]\nmft_next_update_seconds = 60\nmft_reissue_seconds = ${MFT_REISSUE_S}\nparent_refresh_seconds = ${PARENT_REFRESH_S}\nparent_refresh_jitter_seconds = 0\nretry_seconds = 1\n`
/** The RRDP pacer's spacing cap (RRDP_MAX_SPACING_MS in src/app/pubd/publication-service.ts). */
const RRDP_CAP_S = 10
/** A manifest is due MFT_REISSUE_S after its thisUpdate and in RRDP within RRDP_CAP_S of its re-signing; four times that. */
const RENEWAL_MS = 4 * (MFT_REISSUE_S + RRDP_CAP_S) * 1000
/** The child notices a parent that is down, or back, at its next refresh (retried every retry_seconds). */
const PARENT_MS = 30 * PARENT_REFRESH_S * 1000

async function mftNumbers(url: string): Promise<Map<string, bigint>> {
  const v = await readRrdp(url)
  const snap = await httpsGet(v.notification.snapshot.uri)
  const out = new Map<string, bigint>()
  const { decodeSnapshot } = await import('../../src/protocol/rrdp.js')
  for (const p of decodeSnapshot(snap.raw).publishes) if (p.uri.endsWith('.mft')) out.set(p.uri, decodeManifest(p.content).manifestNumber)
  return out
}

/**
 * svcd A serves both tests (their CAs do not meet): ca1 under testbed for the renewals, then remote in svcd B under
 * testbed for the parent outage, which stops A at the end.
 */
const a = await repoDaemon(t, { extra: FAST })

/** Await `p` and print how long it took (a figure for the log, not judged). */
async function timed<T>(t: { comment(m: string): void }, what: string, p: Promise<T>): Promise<T> {
  const start = performance.now()
  const v = await p
  t.comment(`${what}: ${((performance.now() - start) / 1000).toFixed(1)} s`)
  return v
}

t.test('manifests renew on time and validate through several cycles; lost files come back', { skip: rpMissing() }, async (t) => {
  const d = a
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await timed(t, 'ca1 certified', waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])), PARENT_MS))
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d.txt', 'A: 10.0.0.0/24 => 65000\n')])
  await timed(t, 'the ROA in RRDP and rsync', waitPublished(d, (u) => u.some((x) => x.endsWith('.roa'))))
  const first = await mftNumbers(d.url)
  // Two cycles validated by rpki-client (the strictest on manifests); the third renewal, below, by all three.
  for (let cycle = 1; cycle <= 2; cycle++) {
    const prev = await mftNumbers(d.url)
    await timed(t, `renewal cycle ${cycle}`, waitFor(`renewal cycle ${cycle}`, async () => {
      const now = await mftNumbers(d.url)
      return [...prev].every(([u, n]) => (now.get(u) ?? 0n) > n)
    }, RENEWAL_MS, 1000))
    const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: ['AS65000,10.0.0.0/24,24'], transport: 'rrdp', validators: ['rpki-client'] })
    t.equal(r.code, 0, `cycle ${cycle}: every manifest renewed with a higher number, validates with no warning\n${r.lines}`)
  }

  // The repository loses ca1's files (the publisher is removed and registered again, empty).
  const request = d.file('pr.xml', await d.cli(['repo', 'request', '-c', 'ca1']))
  await d.cli(['publishers', 'remove', '-p', 'ca1'])
  await timed(t, "ca1's files gone from RRDP and rsync", waitPublished(d, (u) => !u.some((x) => x.includes('/ca1/'))))
  await d.cli(['publishers', 'add', '--request', request])
  await timed(t, "ca1's files back in RRDP and rsync", waitPublished(d, (u) => u.some((x) => x.includes('/ca1/') && x.endsWith('.roa'))))
  t.pass('ca1 re-published everything by itself at its next renewal')
  await waitFor('a third renewal of every manifest', async () => {
    const now = await mftNumbers(d.url)
    return [...first].every(([u, n]) => (now.get(u) ?? 0n) >= n + 3n)
  }, RENEWAL_MS, 1000)
  t.pass('every manifest renewed three times')
  const rrdp = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: ['AS65000,10.0.0.0/24,24'], transport: 'rrdp' })
  t.equal(rrdp.code, 0, `after three renewals, validates with no warning over RRDP\n${rrdp.lines}`)
  await waitPublished(d, (u) => u.some((x) => x.includes('/ca1/') && x.endsWith('.roa')))
  const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: ['AS65000,10.0.0.0/24,24'], transport: 'rsync' })
  t.equal(r.code, 0, `validates again over rsync\n${r.lines}`)
  await waitFor('the repository issue to clear', async () => JSON.parse(await d.cli(['issues', '-f', 'json'])).cas.ca1 === undefined, RENEWAL_MS, 1000)
})

t.test('a parent that goes down is an issue; recovery clears it', async (t) => {
  const b = await repoDaemon(t, { testbed: false, extra: FAST })
  await b.cli(['add', '-c', 'remote'])
  await connect(a, 'testbed', b, 'remote', { ipv4: '192.0.2.0/24' })
  await waitFor('remote certified', async () => /active/.test(await b.cli(['show', '-c', 'remote'])), PARENT_MS)
  t.same(JSON.parse(await b.cli(['issues', '-f', 'json'])), { cas: {} })
  await a.stop()
  const issue = await waitFor('a parent issue', async () => {
    const i = JSON.parse(await b.cli(['issues', '-c', 'remote', '-f', 'json']))
    return i.parent_issues.length ? i.parent_issues[0] : undefined
  }, PARENT_MS, 500)
  t.equal(issue.parent, 'testbed')
  t.match(issue.issue.msg, /cannot reach|ECONNREFUSED|refused/)
  t.match(await b.cli(['issues']), /Parent 'testbed' issue/)
  await repoDaemon(t, { extra: FAST, dataDir: a.dataDir, token: a.token, ports: { port: a.port, rsync: a.rsyncPort } })
  await waitFor('the issue to clear', async () => JSON.parse(await b.cli(['issues', '-c', 'remote', '-f', 'json'])).parent_issues.length === 0, PARENT_MS, 500)
  t.pass('recovered')
})

/**
 * Two years in a few minutes (issue 6): svcd runs under libfaketime with its wall clock read from a file, and the
 * test moves that clock forward in steps (8 hours, a month, into the re-issue window before a year, past a year,
 * then a long stop of more than a year in which everything expires). After each step svcd catches up on its own
 * (the scheduler notices a clock shift within a second), every published object is valid at the new time, and
 * rpki-client and FORT, run at the same shifted time over RRDP only and over rsync only, validate with no warning
 * and report exactly the configured VRPs (rpki-client through its -P evaluation time, FORT under libfaketime).
 * OctoRPKI is a Go program, which reads the clock without libc, so libfaketime cannot shift it; it validates at the
 * real time in the other e2e tests.
 *
 * Only the wall clock moves (FAKETIME_DONT_FAKE_MONOTONIC): timers and timeouts run in real time, as on a machine
 * whose clock is stepped.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsGet, tempDir } from '../helpers/daemon.js'
import { readRrdp, rsyncFetch, sha } from '../helpers/repo.js'
import { rpMissing, validate } from '../helpers/rp.js'
import { decodeCert } from '../../src/objects/cert.js'
import { decodeCrl } from '../../src/objects/crl.js'
import { decodeManifest } from '../../src/objects/manifest.js'
import { decodeRoa } from '../../src/objects/roa.js'
import { decodeSnapshot } from '../../src/protocol/rrdp.js'

const LIBFAKETIME = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/faketime/libfaketime.so.1'].find((p) => existsSync(p))

const DAY = 86_400

/** Objects and how long they are valid: the earliest notBefore/thisUpdate and notAfter/nextUpdate of a snapshot. */
interface Published {
  serial: number
  /** The oldest manifest's thisUpdate. */
  oldestManifest: Date
  earliestStart: Date
  earliestEnd: Date
  roas: number
}

async function published(d: RepoDaemon): Promise<Published> {
  const v = await readRrdp(d.url)
  const snap = decodeSnapshot((await httpsGet(v.notification.snapshot.uri)).raw)
  const starts: Date[] = []
  const ends: Date[] = []
  const manifests: Date[] = []
  let roas = 0
  for (const p of snap.publishes) {
    if (p.uri.endsWith('.mft')) {
      const m = decodeManifest(p.content)
      manifests.push(m.thisUpdate)
      starts.push(m.thisUpdate, m.ee.notBefore)
      ends.push(m.nextUpdate, m.ee.notAfter)
    } else if (p.uri.endsWith('.crl')) {
      const c = decodeCrl(p.content)
      starts.push(c.thisUpdate)
      if (c.nextUpdate) ends.push(c.nextUpdate)
    } else if (p.uri.endsWith('.cer')) {
      const c = decodeCert(p.content)
      starts.push(c.notBefore)
      ends.push(c.notAfter)
    } else if (p.uri.endsWith('.roa')) {
      const r = decodeRoa(p.content)
      starts.push(r.ee.notBefore)
      ends.push(r.ee.notAfter)
      roas++
    }
  }
  // The rsync tree must hold the same objects, or the validators see different repositories.
  const tree = rsyncFetch(d.rsyncBase)
  const rrdp = new Map(snap.publishes.map((p) => [p.uri.slice(d.rsyncBase.length), sha(p.content)]))
  if (tree.size !== rrdp.size || [...tree].some(([path, h]) => rrdp.get(path) !== h)) throw new Error('the rsync tree differs from the RRDP snapshot')
  const min = (ds: Date[]) => new Date(Math.min(...ds.map((x) => x.getTime())))
  return { serial: Number(v.notification.serial), oldestManifest: min(manifests), earliestStart: min(starts), earliestEnd: min(ends), roas }
}

t.test('two years of a running svcd at a shifted clock, validated at every step', { skip: rpMissing() || (LIBFAKETIME ? false : 'needs libfaketime (make test installs it)') }, async (t) => {
  const clockFile = join(tempDir(t), 'faketime')
  writeFileSync(clockFile, '+0\n')
  const faked = { LD_PRELOAD: LIBFAKETIME!, FAKETIME_TIMESTAMP_FILE: clockFile, FAKETIME_NO_CACHE: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1' }
  const d = await repoDaemon(t, { env: faked })
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d.txt', 'A: 10.0.0.0/16-24 => 65000\nA: 2001:db8::/48 => 65000\n')])
  const vrps = ['AS65000,10.0.0.0/16,24', 'AS65000,2001:db8::/48,48']
  await waitFor('the ROAs published', async () => (await published(d)).roas === 2)

  const steps: [string, number][] = [
    ['now', 0],
    ['8 hours and a bit later (manifests and CRLs renewed)', 9 * 3600],
    ['a month later', 30 * DAY],
    ['within four weeks of a year (ROAs and certificates re-issued before they expire)', 340 * DAY],
    ['past a year (nothing issued in the first year is still in use)', 400 * DAY],
    ['after more than a year stopped in time (everything had expired)', 800 * DAY],
  ]
  for (const [what, offset] of steps) {
    writeFileSync(clockFile, `+${offset}\n`)
    const shifted = Date.now() + offset * 1000
    // svcd has caught up when every manifest was made after the shift (thisUpdate is set 5 minutes back, for relying
    // parties whose clocks are a little behind) and the notification no longer moves.
    let last = 0
    const p = await waitFor(`svcd to catch up ${what}`, async () => {
      const now = await published(d)
      const settled = (offset === 0 || now.oldestManifest.getTime() >= shifted - 6 * 60_000) && now.serial === last
      last = now.serial
      if (!settled) throw new Error(`serial ${now.serial}, oldest manifest made ${now.oldestManifest.toISOString()}, shifted to ${new Date(shifted).toISOString()}`)
      return now
    }, 60_000).catch((e: unknown) => {
      t.comment(d.output().split('\n').filter((l) => !l.includes('"level":"debug"')).slice(-40).join('\n'))
      throw e
    })
    const at = Date.now() + offset * 1000
    t.ok(p.earliestStart.getTime() <= at && p.earliestEnd.getTime() > at + 12 * 3600_000, `${what}: every object valid now and for at least 12 more hours (${p.earliestStart.toISOString()} .. ${p.earliestEnd.toISOString()})`)
    t.equal(p.roas, 2, `${what}: both ROAs published`)
    for (const transport of ['rrdp', 'rsync'] as const) {
      // rpki-client validates at the shifted time with its own -P: under libfaketime, rpki-client 9.x's rsync child
      // (confined by Landlock) cannot reach libfaketime's semaphore in /dev/shm, exits, and every rsync fetch fails.
      const rc = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps, transport, validators: ['rpki-client'], rpkiClientArgs: `-P ${Math.floor(Date.now() / 1000) + offset}` })
      t.equal(rc.code, 0, `${what}: rpki-client at the shifted time (-P) validates with no warning and the same VRPs, ${transport} only\n${rc.lines}`)
      const fort = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps, transport, validators: ['fort'], env: { LD_PRELOAD: LIBFAKETIME!, FAKETIME: `+${offset}`, FAKETIME_DONT_FAKE_MONOTONIC: '1' } })
      t.equal(fort.code, 0, `${what}: FORT at the shifted time (libfaketime) validates with no warning and the same VRPs, ${transport} only\n${fort.lines}`)
    }
  }
  t.same(JSON.parse(await d.cli(['issues', '-f', 'json'])), { cas: {} }, 'no CA has an issue')
})

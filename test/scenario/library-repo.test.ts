/**
 * A repository built entirely by the object library, validated by independent relying parties (issue 3).
 *
 *   TA (10.0.0.0/8, 2001:db8::/32, AS65000-65535)        rsync://localhost:<rsync>/rpki/ta/ta.cer (+ https, TAL)
 *    └── CA (10.1.0.0/16 + 10.2.0.0-10.2.3.255, 2001:db8::/32, AS65001-65010)
 *         ├── ROA AS65001: 10.1.0.0/24, 10.1.1.0/24-26
 *         ├── ROA AS65002: 10.2.0.0/22, 2001:db8:1::/48-56
 *         ├── ROA AS65003: 2001:db8:2::/48
 *         └── CRL, manifest                              (the TA has its own CRL and manifest)
 *
 * The files go to an rsync tree and an RRDP notification + snapshot (protocol/rrdp.ts), served on free loopback
 * ports by ../shared/tools/serve-repo.sh, and `rp-validate --strict --expect` must pass for rpki-client, FORT and
 * OctoRPKI over RRDP only and over rsync only. The ASPA is left out: rpki-client 8.2 (Debian 12) cannot parse the
 * current ASPA profile and would report it (relying-parties.md §3.1); ASPA is covered by the unit tests instead.
 */
import { execFile } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { encodeNotification, encodeSnapshot } from '../../src/protocol/rrdp.js'
import { freePort, tempDir } from '../helpers/daemon.js'
import { SHARED } from '../helpers/paths.js'
import { sampleRepository } from '../helpers/sample-repo.js'

const run = promisify(execFile)
const TOOLS = join(SHARED, 'tools')
const VALIDATORS = ['/usr/sbin/rpki-client', '/usr/bin/fort', '/usr/bin/octorpki']
const missing = [join(TOOLS, 'rp-validate'), join(TOOLS, 'serve-repo.sh'), join(TOOLS, 'make-tls-cert.sh'), ...VALIDATORS].filter((p) => !existsSync(p))
const skip = missing.length > 0 ? `needs ${missing.join(', ')} (relying parties and ../shared/tools; see relying-parties.md)` : false

function writeTree(root: string, files: Map<string, Uint8Array>): void {
  for (const [p, bytes] of files) {
    mkdirSync(dirname(join(root, p)), { recursive: true })
    writeFileSync(join(root, p), bytes)
  }
}

/** rp-validate's summary lines (RESULT/PROBLEM/DIFF/OVERALL) for the failure message. */
function summary(out: string): string {
  const f = join(out, 'summary.txt')
  return existsSync(f) ? readFileSync(f, 'utf8') : '(no summary.txt)'
}

t.test('rpki-client, FORT and OctoRPKI accept the library-built repository with exactly the expected VRPs', { skip, timeout: 600_000 }, async (t) => {
  const dir = tempDir(t, 'svc-library-repo-')
  const [rsyncPort, httpsPort] = [await freePort(), await freePort()]
  const https = `https://localhost:${httpsPort}/`
  const now = new Date()
  const repo = sampleRepository({
    rsyncBase: `rsync://localhost:${rsyncPort}/rpki/`, notifyUri: `${https}rrdp/notification.xml`, taHttpsUri: `${https}ta/ta.cer`,
    from: new Date(now.getTime() - 10 * 60_000), until: new Date(now.getTime() + 365 * 86_400_000), nextUpdate: new Date(now.getTime() + 86_400_000),
  })
  writeTree(join(dir, 'rsync'), repo.files)
  // RRDP (RFC 8182): one snapshot of every published object under its rsync URI, and the notification pointing at it.
  const session = randomUUID()
  const publishes = [...repo.files].filter(([p]) => p.startsWith('repo/')).map(([p, content]) => ({ uri: `rsync://localhost:${rsyncPort}/rpki/${p}`, content }))
  const snapshot = Buffer.from(encodeSnapshot({ sessionId: session, serial: 1, publishes }))
  const snapshotPath = `rrdp/${session}/1/snapshot.xml`
  const notification = encodeNotification({
    sessionId: session, serial: 1, deltas: [],
    snapshot: { uri: https + snapshotPath, hash: createHash('sha256').update(snapshot).digest('hex') },
  })
  writeTree(join(dir, 'https'), new Map([['ta/ta.cer', repo.files.get('ta/ta.cer')!], [snapshotPath, snapshot], ['rrdp/notification.xml', Buffer.from(notification)]]))
  writeFileSync(join(dir, 'library-ta.tal'), repo.tal)
  writeFileSync(join(dir, 'expected.csv'), repo.vrps.join('\n') + '\n')
  await run(join(TOOLS, 'make-tls-cert.sh'), [join(dir, 'tls')])
  const state = join(dir, 'state')
  await run(join(TOOLS, 'serve-repo.sh'), ['start', '--state', state, '--rsync-dir', join(dir, 'rsync'), '--rsync-port', String(rsyncPort),
    '--https-dir', join(dir, 'https'), '--https-port', String(httpsPort), '--cert', join(dir, 'tls', 'cert.pem'), '--key', join(dir, 'tls', 'key.pem')])
  t.teardown(() => run(join(TOOLS, 'serve-repo.sh'), ['stop', '--state', state]).then(() => undefined, () => undefined))

  for (const transport of ['rrdp', 'rsync']) {
    const out = join(dir, `results-${transport}`)
    const args = ['--tal', join(dir, 'library-ta.tal'), '--ca-cert', join(dir, 'tls', 'cert.pem'), '--out', out,
      '--expect', join(dir, 'expected.csv'), '--transport', transport, '--strict', '--timeout', '120']
    const code = await run(join(TOOLS, 'rp-validate'), args, { maxBuffer: 16 * 1024 * 1024 }).then(() => 0, (e: { code?: number }) => e.code ?? -1)
    const text = summary(out)
    t.equal(code, 0, `rp-validate --transport ${transport} --strict --expect exits 0`, code === 0 ? {} : { summary: text })
    for (const v of ['rpki-client', 'fort', 'octorpki']) {
      t.match(text, new RegExp(`^RESULT ${v} .*status=ok .*vrps=${repo.vrps.length} .*problems=0 expect=match`, 'm'), `${v} over ${transport}: ${repo.vrps.length} VRPs, no problem`)
    }
    t.notMatch(text, /^(PROBLEM|DIFF) /m, `no PROBLEM or DIFF line over ${transport}`)
  }
})

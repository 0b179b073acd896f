/**
 * The acceptance of issue 27 item 5: `svcd backup` under load (ROA changes through svcc and RFC 8181 publishes of a
 * remote publisher running while it copies), then `svcd restore` into a new data directory and a start there (same
 * ports and URIs): every change acknowledged before the backup started is there, what is there is a prefix of what was
 * acknowledged (one instant: no later change without the earlier ones), RRDP runs in a new session, every manifest is
 * re-issued above the restore time, and rpki-client and FORT validate the restored repository with no warnings; with
 * their caches of the instance backed up (manifests numbered above the backup's) they take the restored content too,
 * rpki-client noting only the forward jump of each manifest number.
 * Prints the backup's time and size.
 *
 *   ta ── testbed ── alice (ROAs 10.<i>.0.0/16 => 65000, one per change)     publisher 'remote' (RFC 8181 objects)
 */
import { chmodSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { decodeManifest } from '../../src/objects/manifest.js'
import { decodeNotification, decodeSnapshot } from '../../src/protocol/rrdp.js'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { freePort, httpsGet, svcdOnce, tempDir } from '../helpers/daemon.js'
import { TestPublisher } from '../helpers/publisher.js'
import { rpMissing, validate } from '../helpers/rp.js'

interface Change {
  n: number
  /** ms since the epoch when svcc or the RFC 8181 reply acknowledged it. */
  acked: number
}

const roaLine = (n: number) => `10.${n}.0.0/16 => 65000`
const roaVrp = (n: number) => `AS65000,10.${n}.0.0/16,16`
const objectName = (n: number) => `object-${n}.cer`

async function published(d: RepoDaemon): Promise<{ session: string; serial: number; manifests: bigint[] }> {
  const n = decodeNotification((await httpsGet(`${d.url}rrdp/notification.xml`)).body)
  const snap = decodeSnapshot((await httpsGet(n.snapshot.uri)).raw)
  return { session: n.sessionId, serial: Number(n.serial), manifests: snap.publishes.filter((p) => p.uri.endsWith('.mft')).map((p) => decodeManifest(p.content).manifestNumber) }
}

/** The numbers 0..k-1 exactly (what a consistent copy of a sequence of changes holds). */
function isPrefix(ns: number[]): boolean {
  return ns.every((n, i) => n === i)
}

t.test('backup under load, restore into a new data dir: every acknowledged change, a new session, validated', { skip: rpMissing() }, async (t) => {
  const ports = { port: await freePort(), rsync: await freePort() }
  const kek = join(tempDir(t), 'kek')
  writeFileSync(kek, '6b'.repeat(32))
  chmodSync(kek, 0o600)
  const toml = `key_encryption_key_file = "${kek}"\n`
  const d = await repoDaemon(t, { ports, toml, logLevel: 'info' })
  await d.cli(['add', '-c', 'alice'])
  await connect(d, 'testbed', d, 'alice', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await waitFor('alice certified', async () => /active/.test(await d.cli(['show', '-c', 'alice'])))
  const remote = new TestPublisher('remote')
  remote.useResponse(await d.cli(['publishers', 'add', '--request', d.file('remote.xml', remote.requestXml())]))
  const jail = remote.response!.siaBase

  // The load: one ROA added per svcc call, one object per RFC 8181 delta, each recorded when acknowledged.
  const roas: Change[] = []
  const objects: Change[] = []
  let stop = false
  const roaLoop = (async () => {
    for (let n = 0; !stop && n < 250; n++) {
      await d.cli(['roas', 'update', '-c', 'alice', '--delta', d.file(`roa-${n}.txt`, `A: ${roaLine(n)}\n`)])
      roas.push({ n, acked: Date.now() })
    }
  })()
  const publishLoop = (async () => {
    for (let n = 0; !stop && n < 1000; n++) {
      const reply = await remote.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + objectName(n), content: new TextEncoder().encode(`object ${n} `.repeat(50)) }] })
      if (reply.type !== 'success') throw new Error(`publish ${n}: ${JSON.stringify(reply)}`)
      objects.push({ n, acked: Date.now() })
    }
  })()
  await waitFor('some changes acknowledged', () => roas.length >= 3 && objects.length >= 5, 120_000)

  const file = join(tempDir(t), 'svcd.backup')
  const started = Date.now()
  const ackedBefore = { roas: roas.length, objects: objects.length }
  const backup = await svcdOnce(['backup', '-c', d.configFile, '--to', file], { timeoutMs: 300_000 })
  const took = Date.now() - started
  t.equal(backup.code, 0, backup.stderr)
  const during = { roas: roas.length - ackedBefore.roas, objects: objects.length - ackedBefore.objects }
  // A few more changes after the backup, then the load stops.
  await waitFor('changes after the backup', () => roas.length >= ackedBefore.roas + during.roas + 2, 120_000)
  stop = true
  await Promise.all([roaLoop, publishLoop])
  const size = statSync(file).size
  t.comment(`backup: ${took} ms (svcd backup run, including start-up), ${size} bytes; ${during.roas} ROA changes and ${during.objects} publishes acknowledged while it ran`)
  t.comment(backup.stdout.trim())
  t.ok(during.roas + during.objects > 0, 'the load went on while the backup ran')
  // What relying parties saw last of the instance backed up: rpki-client and FORT keep it in their caches.
  await waitPublished(d, (uris) => uris.filter((u) => u.includes('/alice/') && u.endsWith('.roa')).length === roas.length)
  const cacheDir = tempDir(t)
  const seen = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: roas.map((c) => roaVrp(c.n)), transport: 'rrdp', validators: ['rpki-client', 'fort'], cacheDir })
  t.equal(seen.code, 0, `the instance validates before it stops, ${roas.length} VRPs\n${seen.lines}`)
  const before = await published(d)
  t.equal(await d.stop(), 0)

  // Restore into a new data directory, and start there with the same ports and URIs.
  const target = join(tempDir(t), 'restored/')
  const restoreConfig = join(tempDir(t), 'restore.toml')
  writeFileSync(restoreConfig, `data_dir = "${target}"\n${toml}`)
  const restoreStarted = Date.now()
  const restore = await svcdOnce(['restore', '-c', restoreConfig, '--from', file], { timeoutMs: 300_000 })
  t.equal(restore.code, 0, restore.stderr)
  t.comment(restore.stdout.trim())
  const r = await repoDaemon(t, { ports, dataDir: target, toml, logLevel: 'info' })

  const restoredRoas = (JSON.parse(await r.cli(['roas', 'list', '-c', 'alice', '-f', 'json'])) as { prefix: string }[]).map((x) => Number(x.prefix.split('.')[1])).sort((a, b) => a - b)
  t.ok(restoredRoas.length >= ackedBefore.roas, `every ROA change acknowledged before the backup is there (${ackedBefore.roas} acknowledged before, ${restoredRoas.length} restored)`)
  t.ok(isPrefix(restoredRoas), `the ROAs restored are the first ${restoredRoas.length} changes: one instant`)
  const list = await remote.send({ type: 'list' })
  if (list.type !== 'list_reply') throw new Error(`list: ${JSON.stringify(list)}`)
  const restoredObjects = list.elements.map((e) => Number(/object-(\d+)\.cer$/.exec(e.uri)?.[1])).sort((a, b) => a - b)
  t.ok(restoredObjects.length >= ackedBefore.objects, `every publish acknowledged before the backup is there (${ackedBefore.objects} acknowledged before, ${restoredObjects.length} restored)`)
  t.ok(isPrefix(restoredObjects), `the objects restored are the first ${restoredObjects.length} publishes: one instant`)

  // A new session; every manifest re-issued with a number above the restore time (above any issued before).
  const after = await waitFor('every manifest re-issued', async () => {
    const p = await published(r)
    return p.manifests.length === before.manifests.length && p.manifests.every((n) => n > BigInt(restoreStarted)) ? p : undefined
  }, 180_000)
  t.not(after.session, before.session, `RRDP runs in a new session (${before.session} serial ${before.serial} → ${after.session} serial ${after.serial})`)
  await waitPublished(r, (uris) => uris.filter((u) => u.includes('/alice/') && u.endsWith('.roa')).length === restoredRoas.length)

  const vrps = restoredRoas.map(roaVrp)
  for (const transport of ['rrdp', 'rsync'] as const) {
    const v = await validate({ talUrl: r.talUrl, tlsCert: r.tlsCert, vrps, transport, validators: ['rpki-client', 'fort'] })
    t.equal(v.code, 0, `rpki-client and FORT validate the restored repository over ${transport} with no warnings, the ${vrps.length} VRPs exactly\n${v.lines}`)
  }
  // With the caches of before the backup, which hold newer manifests numbered higher than the backup's: the re-issued
  // manifests are numbered higher still, so the restored content is taken. (Without the raise rpki-client refuses
  // them, "unexpected manifest number (want >= #09, got #06)", and goes on with its cached VRPs.) rpki-client notes
  // the jump once per CA key, "seqnum gap detected #09 -> #01A21CE8091D": the only warning, a jump forward.
  const cached = await validate({ talUrl: r.talUrl, tlsCert: r.tlsCert, vrps, transport: 'rrdp', validators: ['rpki-client', 'fort'], cacheDir })
  t.match(cached.lines, new RegExp(`RESULT rpki-client .*status=ok .*vrps=${vrps.length} .*expect=match`), `rpki-client with its cache of the instance backed up: the ${vrps.length} restored VRPs exactly\n${cached.lines}`)
  t.match(cached.lines, new RegExp(`RESULT fort .*status=ok .*vrps=${vrps.length} problems=0 expect=match`), `FORT with its cache: the restored VRPs exactly, no warning\n${cached.lines}`)
  const problems = cached.lines.split('\n').filter((l) => l.startsWith('PROBLEM'))
  const gaps = problems.map((l) => /^PROBLEM rpki-client WRN \S+\.mft: seqnum gap detected \\?#([0-9A-F]+) -> \\?#([0-9A-F]+)$/.exec(l))
  t.ok(gaps.every((m) => m && BigInt(`0x${m[2]}`) > BigInt(`0x${m[1]}`) && BigInt(`0x${m[2]}`) > BigInt(restoreStarted)), `rpki-client's only warnings: a manifest number jumping forward past the restore time (${problems.length})\n${problems.join('\n')}`)
  t.equal(await r.stop(), 0)
})

/**
 * Makes fixtures/upgrade/data-<commit>.tar.gz: a data dir written by a released svcd, for test/scenario/upgrade.test.ts.
 * Run it from a checkout of that release (built: dist/ present), with the script copied into its test/helpers/:
 *
 *   node --import=./node_modules/@tapjs/typescript/dist/esm/import.mjs test/helpers/make-upgrade-fixture.ts <out-dir>
 *
 * It starts svcd on fixed loopback ports (the ports are baked into the data: the repository URIs in the CA state, the
 * published certificates and the RRDP files), builds the tree below, waits until RRDP and rsync agree, stops svcd,
 * and packs the data dir (without svcd.lock) with `<out-dir>/data-<commit>.expected.json`, the facts the test checks.
 *
 *   ta ── testbed ── ca1 (10.1.0.0/16, AS65001) ── ca1-child (10.1.1.0/24)
 *                └─ ca2 (10.2.0.0/16)
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Test } from 'tap'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from './cas.js'
import { httpsRequest } from './daemon.js'
import { readRrdp } from './repo.js'

export const FIXTURE_PORT = 47561
export const FIXTURE_RSYNC_PORT = 47562
export const FIXTURE_TOKEN = 'upgrade-fixture-token'

/** The CAs under the testbed, their parent and resources, and the ROAs each one configures. */
const TREE: { ca: string; parent: string; ipv4: string; asn?: string; roas: string[] }[] = [
  { ca: 'ca1', parent: 'testbed', ipv4: '10.1.0.0/16', asn: 'AS65001', roas: ['10.1.0.0/16 => 65001', '10.1.2.0/24-24 => 65001', '10.1.3.0/24-25 => 65011'] },
  { ca: 'ca2', parent: 'testbed', ipv4: '10.2.0.0/16', roas: ['10.2.0.0/16-20 => 65002', '10.2.128.0/17 => 65002'] },
  { ca: 'ca1-child', parent: 'ca1', ipv4: '10.1.1.0/24', roas: ['10.1.1.0/24 => 65101'] },
]

async function api(d: RepoDaemon, path: string): Promise<unknown> {
  const r = await httpsRequest(`${d.url}api/v1/${path}`, { headers: { Authorization: `Bearer ${d.token}` } })
  if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${r.body}`)
  return JSON.parse(r.body)
}

async function main(outDir: string): Promise<void> {
  const teardowns: (() => unknown)[] = []
  const t = { teardown: (fn: () => unknown) => void teardowns.push(fn) } as unknown as Test
  const commit = process.env.SVC_FIXTURE_COMMIT ?? execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { encoding: 'utf8' }).trim()
  const work = mkdtempSync(join(tmpdir(), 'svc-upgrade-fixture-'))
  const dataDir = join(work, 'data')
  try {
    const d = await repoDaemon(t, { dataDir, ports: { port: FIXTURE_PORT, rsync: FIXTURE_RSYNC_PORT }, token: FIXTURE_TOKEN, logLevel: 'info' })
    for (const c of TREE) {
      await d.cli(['add', '-c', c.ca])
      await connect(d, c.parent, d, c.ca, { ipv4: c.ipv4, ...(c.asn ? { asn: c.asn } : {}) })
      await waitFor(`${c.ca} certified`, async () => /active/.test(await d.cli(['show', '-c', c.ca])))
      await d.cli(['roas', 'update', '-c', c.ca, '--delta', d.file(`${c.ca}.txt`, c.roas.map((r) => `A: ${r}\n`).join(''))])
    }
    const routes: Record<string, unknown> = {}
    for (const c of TREE) {
      routes[c.ca] = await waitFor(`${c.ca}'s ROAs signed`, async () => {
        const rs = (await api(d, `cas/${c.ca}/routes`)) as { roa_objects: unknown[] }[]
        return rs.length === c.roas.length && rs.every((r) => r.roa_objects.length > 0) ? rs : undefined
      })
    }
    const roaUris = new Set(Object.values(routes).flatMap((rs) => (rs as { roa_objects: { uri: string }[] }[]).flatMap((r) => r.roa_objects.map((o) => o.uri))))
    const uris = await waitPublished(d, (u) => [...roaUris].every((x) => u.includes(x)))
    const rrdp = await readRrdp(d.url)
    const expected = {
      commit,
      ports: { https: FIXTURE_PORT, rsync: FIXTURE_RSYNC_PORT },
      cas: await api(d, 'cas'),
      routes: Object.fromEntries(TREE.map((c) => [c.ca, (routes[c.ca] as { asn: number; prefix: string; max_length: number; roa_objects: { uri: string; hash: string }[] }[]).map((r) => ({ asn: r.asn, prefix: r.prefix, max_length: r.max_length, roa_objects: r.roa_objects.map((o) => ({ uri: o.uri, hash: o.hash })) }))])),
      rrdp: { session: rrdp.notification.sessionId, serial: Number(rrdp.notification.serial) },
      snapshot: uris,
    }
    if ((await d.stop()) !== 0) throw new Error(`svcd did not stop cleanly:\n${d.output()}`)
    for (const f of readdirSync(dataDir)) if (f === 'svcd.lock' || f.endsWith('.pid')) rmSync(join(dataDir, f))
    mkdirSync(outDir, { recursive: true })
    writeFileSync(join(outDir, `data-${commit}.expected.json`), JSON.stringify(expected, null, 2) + '\n')
    execFileSync('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '-czf', join(outDir, `data-${commit}.tar.gz`), '-C', dataDir, '.'])
    console.log(`wrote ${join(outDir, `data-${commit}.tar.gz`)}; files: ${execFileSync('tar', ['-tzf', join(outDir, `data-${commit}.tar.gz`)], { encoding: 'utf8' }).split('\n').filter((l) => !l.endsWith('/')).length}`)
    console.log(JSON.stringify(expected.rrdp), Object.keys(expected.routes).join(','))
  } finally {
    for (const fn of teardowns.reverse()) await fn()
    if (existsSync(work)) rmSync(work, { recursive: true, force: true })
  }
}

await main(resolve(process.argv[2] ?? 'fixtures/upgrade'))

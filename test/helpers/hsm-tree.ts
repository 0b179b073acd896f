/**
 * The end-to-end run of issue 25 with every CA key in SoftHSM2 (test/e2e/hsm-repository-*.test.ts, one transport per
 * file so they run in parallel):
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8: ROAs, a BGPsec router certificate for AS65000)
 *                     └─ ca2 (AS65005-65006, 10.5.0.0/16: ROAs, an ASPA for AS65005; then a 10-ROA change)
 *
 * svcd runs with the embedded repository and the testbed, `default_signer = "hsm"` (the test's own token) and
 * `one_off_signer` either left to the software signer or the token. rpki-client and FORT validate with no warnings
 * and exactly the expected VRPs, ASPAs and router keys; svcd restarts on the same data dir and token, one more ROA
 * change is published, and the validators (with their caches of before, so a manifest number going back would be a
 * warning) validate again. Then the data dir and the database are searched for private key material.
 */
import { performance } from 'node:perf_hooks'
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto'
import { cpSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { FileKeyStore } from '../../src/store/key-store.js'
import type { Test } from 'tap'
import { decodeManifest } from '../../src/objects/manifest.js'
import { decodeNotification, decodeSnapshot } from '../../src/protocol/rrdp.js'
import { caObjects, connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from './cas.js'
import { freePort, httpsGet, tempDir } from './daemon.js'
import { filesUnder, queryDatabase, scanDatabase, scanTree } from './key-material.js'
import { readRrdp } from './repo.js'
import { validate } from './rp.js'
import { pem, routerCsr, routerKey } from './router.js'
import type { SoftHsm } from './softhsm.js'

export const CAS = ['testbed', 'ca1', 'ca2'] as const

/** The VRPs of the tree before the 10-ROA change. */
export const BASE_VRPS = ['AS65000,10.0.0.0/24,24', 'AS65001,10.1.0.0/16,20', 'AS65005,10.5.0.0/24,24', 'AS65006,10.5.1.0/24,24']
export const ASPAS = ['AS65005,AS65001 AS65002']
/** The 10-ROA change on ca2, and its VRPs. */
export const TEN = Array.from({ length: 10 }, (_, i) => `A: 10.5.${100 + i}.0/24 => 65006`).join('\n') + '\n'
export const TEN_VRPS = Array.from({ length: 10 }, (_, i) => `AS65006,10.5.${100 + i}.0/24,24`)

const roaCount = (uris: string[], ca: string) => uris.filter((u) => u.includes(`/${ca}/`) && u.endsWith('.roa')).length

/** ms since `t0`, one decimal. */
export const since = (t0: number) => Math.round((performance.now() - t0) * 10) / 10

export interface Tree {
  d: RepoDaemon
  /** ms from spawning svcd to ca2 certified (ta and testbed are made at start). */
  createMs: number
  routerKeyLine: string
}

/** Start svcd (`opts`: the signer configuration), build the tree with its ROAs, ASPA and router certificate. */
export async function buildTree(t: Test, opts: NonNullable<Parameters<typeof repoDaemon>[1]>, content = true): Promise<Tree> {
  const t0 = performance.now()
  const d = await repoDaemon(t, { logLevel: 'info', ...opts })
  const phases = [`svcd healthy ${since(t0)}`]
  await waitFor('testbed certified', async () => (await caObjects(d, 'testbed')).active === 1)
  phases.push(`testbed ${since(t0)}`)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => (await caObjects(d, 'ca1')).active === 1)
  phases.push(`ca1 ${since(t0)}`)
  await d.cli(['add', '-c', 'ca2'])
  await connect(d, 'ca1', d, 'ca2', { asn: 'AS65005-65006', ipv4: '10.5.0.0/16' })
  await waitFor('ca2 certified', async () => (await caObjects(d, 'ca2')).active === 1)
  const createMs = since(t0)
  t.comment(`creation (ms from spawning svcd): ${phases.join(', ')}, ca2 ${createMs}`)
  if (!content) return { d, createMs, routerKeyLine: '' }
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('ca1.txt', 'A: 10.0.0.0/24 => 65000\nA: 10.1.0.0/16-20 => 65001\n')])
  await d.cli(['roas', 'update', '-c', 'ca2', '--delta', d.file('ca2.txt', 'A: 10.5.0.0/24 => 65005\nA: 10.5.1.0/24 => 65006\n')])
  await d.cli(['aspas', 'add', '-c', 'ca2', '--aspa', 'AS65005 => AS65001, AS65002'])
  const rk = routerKey()
  await d.cli(['bgpsec', 'add', '-c', 'ca1', '--asn', 'AS65000', '--csr', d.file('r.csr', pem(routerCsr(rk)))])
  await waitPublished(d, (u) => roaCount(u, 'ca1') === 2 && roaCount(u, 'ca2') === 2 && u.some((x) => x.endsWith('/AS65005.asa')) && u.some((x) => /\/ROUTER-0000FDE8-/.test(x)))
  return { d, createMs, routerKeyLine: `AS65000,${rk.keyId}` }
}

/** rpki-client and FORT over one transport: no warnings, exactly `vrps`, the ASPA and the router key. */
export async function check(t: Test, tree: Tree, step: string, transport: 'rrdp' | 'rsync', vrps: string[], cacheDir: string): Promise<void> {
  const r = await validate({ talUrl: tree.d.talUrl, tlsCert: tree.d.tlsCert, vrps, aspas: ASPAS, transport, validators: ['rpki-client', 'fort'], routerKeys: true, cacheDir })
  t.equal(r.code, 0, `${step}: rpki-client and FORT, ${transport} only, no warnings, exact VRPs and ASPAs\n${r.lines}`)
  t.same(r.routerKeys?.['rpki-client'], [tree.routerKeyLine], `${step}: rpki-client reports the router key`)
}

/** The 10-ROA change on ca2: ms until RRDP serves its `want` ROAs; then waits for the rsync tree too (`rsyncToo`). */
export async function tenRoas(d: RepoDaemon, want = 12, rsyncToo = true): Promise<number> {
  const t0 = performance.now()
  await d.cli(['roas', 'update', '-c', 'ca2', '--delta', d.file(`ten-${want}.txt`, TEN)])
  await waitFor('the ROAs in RRDP', async () => roaCount([...(await readRrdp(d.url)).objects.keys()], 'ca2') === want)
  const ms = since(t0)
  if (rsyncToo) await waitPublished(d, (u) => roaCount(u, 'ca2') === want)
  return ms
}

/** Manifest URI → manifest number, from the RRDP snapshot. */
export async function manifests(d: RepoDaemon): Promise<Map<string, bigint>> {
  const n = decodeNotification((await httpsGet(`${d.url}rrdp/notification.xml`)).body)
  const snap = decodeSnapshot((await httpsGet(n.snapshot.uri)).raw)
  return new Map(snap.publishes.filter((p) => p.uri.endsWith('.mft')).map((p) => [p.uri, decodeManifest(p.content).manifestNumber]))
}

/** The KeyId (RFC 6487 §4.8.2) of a base64 SubjectPublicKeyInfo of an RSA key. */
function rsaKeyId(spkiB64: string): string {
  const rsa = createPublicKey({ key: Buffer.from(spkiB64, 'base64'), format: 'der', type: 'spki' }).export({ type: 'pkcs1', format: 'der' })
  return createHash('sha1').update(rsa).digest('hex').toUpperCase()
}

/** Every key the API shows: the TA key, each CA's resource-class keys and identity key; name → key ids. */
export async function apiKeys(d: RepoDaemon): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  out.set('ta', [JSON.parse(await d.cli(['ta', 'keyroll', 'show', '-f', 'json'])).current.key_id])
  for (const ca of CAS) {
    const info = JSON.parse(await d.cli(['show', '-c', ca, '-f', 'json']))
    const ids: string[] = []
    const collect = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(collect)
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (k === 'key_id' && typeof x === 'string' ? ids.push(x) : collect(x))
    }
    collect(info.resource_classes)
    out.set(`${ca} resource class`, ids)
    out.set(`${ca} identity`, [rsaKeyId(info.id_cert.public_key)])
  }
  return out
}

/**
 * After svcd stopped: no private key material in any file of its data dir (svcd.db and its -wal, keys/, repo/, ...)
 * nor in any value of its database; no key file in keys/; every key the API showed is recorded in `key_signers` under
 * the token's handle (and none under another). Then a software key planted in a copy of the data dir and of the
 * database, as svcd's own FileKeyStore writes it, is found: the search cannot pass vacuously.
 */
export function checkNoKeyMaterial(t: Test, dataDir: string, keys: Map<string, string[]>): void {
  const db = join(dataDir, 'svcd.db')
  t.ok(existsSync(db), 'the data dir holds svcd.db')
  const tree = scanTree(dataDir)
  // The HTTPS server's own TLS key is the only private key svcd keeps in its data dir: it is no CA key.
  const tls = join('ssl', 'key.pem')
  const hits = tree.hits.filter((h) => h.where !== tls)
  t.same(hits, [], `no private key material in the ${tree.files} files (${tree.bytes} bytes) of the data dir but the TLS key`)
  if (tree.hits.some((h) => h.where === tls)) {
    const cert = new X509Certificate(readFileSync(join(dataDir, 'ssl', 'cert.pem')))
    t.ok(cert.checkPrivateKey(createPrivateKey(readFileSync(join(dataDir, tls)))), 'the one key found is the TLS certificate\'s')
  }
  const rows = scanDatabase(db)
  t.same(rows.hits, [], `no private key material in the ${rows.values} values of the ${rows.tables} tables of the database`)
  const keyDir = join(dataDir, 'keys')
  t.same(existsSync(keyDir) ? filesUnder(keyDir) : [], [], 'no key file in keys/')

  const signers = queryDatabase<{ handle: string; name: string; type: string }>(db, 'SELECT handle, name, type FROM signers')
  const hsm = signers.find((s) => s.name === 'hsm')
  t.equal(hsm?.type, 'PKCS#11', 'the token is recorded as a PKCS#11 signer')
  const recorded = new Map(queryDatabase<{ key_id: string; handle: string }>(db, 'SELECT key_id, handle FROM key_signers').map((r) => [r.key_id, r.handle]))
  for (const [what, ids] of keys) {
    t.ok(ids.length > 0, `${what}: the API shows its keys`)
    for (const id of ids) t.equal(recorded.get(id), hsm?.handle, `${what} key ${id} is held by the token`)
  }
  t.same([...recorded.values()].filter((h) => h !== hsm?.handle), [], `every one of the ${recorded.size} recorded keys is the token's`)

  // The control: the same search finds a software key, as svcd's software signer writes it, in a copy.
  const copy = join(tempDir(t, 'svc-keymat-'), 'data')
  cpSync(dataDir, copy, { recursive: true })
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const der = new Uint8Array(privateKey.export({ type: 'pkcs8', format: 'der' }))
  new FileKeyStore(join(copy, 'keys')).put('0'.repeat(40), der)
  t.ok(scanTree(copy).hits.some((h) => h.where === join('keys', '0'.repeat(40)) && h.kind === 'PKCS#8 base64'), 'a software key planted in keys/ of a copy is found')
  const w = new Database(join(copy, 'svcd.db'))
  w.exec('CREATE TABLE planted (k BLOB)')
  w.prepare('INSERT INTO planted (k) VALUES (?)').run(Buffer.from(privateKey.export({ type: 'pkcs1', format: 'der' })))
  w.close()
  t.ok(scanDatabase(join(copy, 'svcd.db')).hits.some((h) => h.where === 'planted.k' && h.kind === 'PKCS#1 DER'), 'a key planted in a copy of the database is found')
}

/**
 * The whole run over one transport: build, validate, the 10-ROA change, restart, one more ROA change, validate again
 * (manifest numbers continue), stop, search for key material. With `compareSoftware` the same tree is then built on
 * the software signer alone for the times (printed as `#` comments).
 */
export async function hsmRepositoryRun(t: Test, hsm: SoftHsm, o: { transport: 'rrdp' | 'rsync'; oneOffInToken: boolean; compareSoftware: boolean }): Promise<void> {
  const toml = `default_signer = "hsm"\n${o.oneOffInToken ? 'one_off_signer = "hsm"\n' : ''}${hsm.signerToml('hsm')}`
  const ports = { port: await freePort(), rsync: await freePort() }
  const cacheDir = tempDir(t, 'svc-rp-cache-')
  const tree = await buildTree(t, { toml, env: hsm.env, ports })
  const { d } = tree
  t.notMatch(d.output(), hsm.pin, 'the user PIN is not in the log')
  await check(t, tree, 'the tree', o.transport, BASE_VRPS, cacheDir)
  const tenMs = await tenRoas(d)
  await check(t, tree, 'after a 10-ROA change', o.transport, [...BASE_VRPS, ...TEN_VRPS], cacheDir)
  const before = await manifests(d)
  const keys = await apiKeys(d)
  t.equal(await d.stop(), 0, 'svcd stops cleanly')

  const again: Tree = { ...tree, d: await repoDaemon(t, { logLevel: 'info', toml, env: hsm.env, ports, dataDir: d.dataDir }) }
  t.same(await apiKeys(again.d), keys, 'after the restart the same keys')
  await again.d.cli(['roas', 'update', '-c', 'ca1', '--delta', again.d.file('one.txt', 'A: 10.2.0.0/16 => 65002\n')])
  await waitPublished(again.d, (u) => roaCount(u, 'ca1') === 3)
  const after = await manifests(again.d)
  t.same([...after.keys()].sort(), [...before.keys()].sort(), 'the same manifests after the restart')
  t.same([...after].filter(([u, n]) => n < before.get(u)!).map(([u]) => u), [], 'no manifest number goes back after the restart')
  const ca1 = [...after.keys()].filter((u) => u.includes('/ca1/'))
  t.ok(ca1.length === 1 && after.get(ca1[0]!)! > before.get(ca1[0]!)!, `ca1's manifest number continues (${before.get(ca1[0]!)} → ${after.get(ca1[0]!)})`)
  await check(t, again, 'after the restart and one more ROA', o.transport, [...BASE_VRPS, ...TEN_VRPS, 'AS65002,10.2.0.0/16,16'], cacheDir)
  t.same(await apiKeys(again.d), keys, 'no key was replaced')
  t.notMatch(again.d.output(), hsm.pin, 'the user PIN is not in the log after the restart')
  t.equal(await again.d.stop(), 0, 'svcd stops cleanly again')
  checkNoKeyMaterial(t, d.dataDir, keys)
  t.comment(`keys in SoftHSM2 (one-off keys ${o.oneOffInToken ? 'in the token' : 'in software'}): ta+testbed+ca1+ca2 created in ${tree.createMs} ms, a 10-ROA change in RRDP after ${tenMs} ms`)

  if (!o.compareSoftware) return
  const soft = await buildTree(t, {}, false)
  const softTen = await tenRoas(soft.d, 10, false)
  t.comment(`keys in the software signer: ta+testbed+ca1+ca2 created in ${soft.createMs} ms, a 10-ROA change in RRDP after ${softTen} ms`)
  t.equal(await soft.d.stop(), 0, 'the software-signer svcd stops cleanly')
  // The control on a real data dir: the software signer's CA keys are found by the same search.
  const found = scanTree(soft.d.dataDir).hits.filter((h) => h.where.startsWith('keys/'))
  t.ok(found.length >= 5, `the search finds the software signer's keys in its data dir (${found.length} in keys/)`)
}

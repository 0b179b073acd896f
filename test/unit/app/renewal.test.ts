/**
 * Renewals over time with an injected clock (issue 6): the real services, scheduler, CA objects and publication
 * server in-process, wired by compose.ts, with the clock moved in steps of hours up to more than a year. After every step each manifest,
 * CRL, ROA and certificate in the repository is valid at that time, and manifest numbers only go up.
 *
 *   ta ── testbed ── ca1 (ROAs)
 */
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaults, verifyConfig } from '../../../src/config.js'
import { KeyPool, generateRsaKeyPair, type KeyPair } from '../../../src/crypto/key-pool.js'
import type { OneOffKey, Signer } from '../../../src/crypto/signer.js'
import { MemoryKeyStore, SoftSigner } from '../../../src/crypto/soft-signer.js'
import { silentLogger } from '../../../src/log.js'
import { compose } from '../../../src/compose.js'
import { fromBase64 } from '../../../src/util/base64.js'
import { decodeCert } from '../../../src/objects/cert.js'
import { decodeCrl } from '../../../src/objects/crl.js'
import { decodeManifest } from '../../../src/objects/manifest.js'
import { decodeRoa } from '../../../src/objects/roa.js'

/** Persistent keys are real and new; one-off keys cycle through a few pre-made ones (a year of renewals is fast). */
class CyclingSigner implements Signer {
  private i = 0
  constructor(private readonly inner: SoftSigner, private readonly oneOffs: KeyPair[]) {}
  createKey() { return this.inner.createKey() }
  signingKey(id: string) { return this.inner.signingKey(id) }
  hasKey(id: string) { return this.inner.hasKey(id) }
  destroyKey(id: string) { this.inner.destroyKey(id) }
  async oneOffKey(): Promise<OneOffKey> {
    const pair = this.oneOffs[this.i++ % this.oneOffs.length]
    const store = new MemoryKeyStore()
    const pool = new KeyPool({ size: 0, concurrency: 1, generate: async () => pair })
    const k = await new SoftSigner(store, pool).oneOffKey()
    return k
  }
}

/** ta ── testbed ── ca1 with two ROAs, in-process, at an injected clock; `step` moves it and runs what is due. */
async function tree(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-renewal-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const clock = { ms: Date.parse('2026-01-01T00:00:00Z') }
  const now = () => new Date(clock.ms)
  const config = defaults()
  Object.assign(config, { data_dir: dir + '/', port: 3999 })
  Object.assign(config.repository, { enabled: true, rrdp_base_uri: 'https://localhost:3999/rrdp/', rsync_base_uri: 'rsync://localhost:3998/repo/', rsync_daemon: 'off' })
  config.testbed.enabled = true
  verifyConfig(config, 'test')
  const pool = new KeyPool({ size: 4 })
  pool.start()
  const signer = new CyclingSigner(new SoftSigner(new MemoryKeyStore(), pool), await Promise.all(Array.from({ length: 6 }, () => generateRsaKeyPair())))
  const log = silentLogger()
  const svc = await compose({ config, dataDir: dir, log, now, signer })
  const { cas, parents, children, repo, publication: pubd } = svc.services // [repository] is enabled: pubd is there
  t.teardown(async () => {
    await svc.shutdown()
    await pool.stop()
  })
  await svc.start()
  await svc.scheduler.stop() // driven by hand below, with the injected clock
  const m = {
    caFlushed: (ca: string) => cas.caFlushed(ca),
    bulkIssues: () => cas.bulkIssues(),
    publishNow: (ca: string) => repo.caSyncRepo(ca),
  }
  const objects = (handle: string) => pubd!.publishers.pubdPublisherShow(handle).current_files.map((f) => ({ uri: f.uri, content: fromBase64(f.base64), base64: f.base64 }))
  await m.caFlushed('testbed')
  await cas.caAdd('ca1')
  const childReq = cas.caChildRequest('ca1')
  const resp = await children.caChildAdd('testbed', { handle: 'ca1', resources: { asn: 'AS65000', ipv4: '10.0.0.0/8', ipv6: '' }, id_cert: childReq.id_cert })
  await parents.caParentAdd('ca1', { json: { handle: 'testbed', response: resp } })
  await m.caFlushed('ca1')
  await cas.caRoasUpdate('ca1', { added: [{ asn: 65000, prefix: '10.0.0.0/24' }, { asn: 65000, prefix: '10.1.0.0/16', max_length: 20 }], removed: [] })
  await m.caFlushed('ca1')

  const lastNumber = new Map<string, bigint>()
  const check = (label: string) => {
    const at = now()
    const problems: string[] = []
    let roas = 0
    for (const handle of ['ta', 'testbed', 'ca1']) {
      for (const o of objects(handle)) {
        const name = o.uri.split('/').slice(-3).join('/')
        if (o.uri.endsWith('.mft')) {
          const mft = decodeManifest(o.content)
          if (!(mft.thisUpdate <= at && at < mft.nextUpdate)) problems.push(`${name}: manifest not current (${mft.thisUpdate.toISOString()}..${mft.nextUpdate.toISOString()})`)
          const prev = lastNumber.get(o.uri)
          if (prev !== undefined && mft.manifestNumber < prev) problems.push(`${name}: manifest number went back`)
          lastNumber.set(o.uri, mft.manifestNumber)
        } else if (o.uri.endsWith('.crl')) {
          const crl = decodeCrl(o.content)
          if (!(crl.nextUpdate && crl.nextUpdate > at)) problems.push(`${name}: CRL stale`)
        } else if (o.uri.endsWith('.roa')) {
          roas++
          const ee = decodeRoa(o.content).ee
          if (ee.notAfter <= at) problems.push(`${name}: ROA expired`)
        } else if (o.uri.endsWith('.cer')) {
          const c = decodeCert(o.content)
          if (!(c.notBefore <= at && at < c.notAfter)) problems.push(`${name}: certificate not valid`)
        }
      }
    }
    t.same(problems, [], `${label}: every object valid`)
    t.equal(roas, 2, `${label}: both ROAs published`)
  }
  const step = async (hours: number) => {
    clock.ms += hours * 3600_000
    await svc.scheduler.runDue()
    for (const ca of ['ta', 'testbed', 'ca1']) await m.caFlushed(ca)
  }

  return { m, objects, clock, check, step, lastNumber }
}

t.test('a year of renewals, every object valid after every step', async (t) => {
  const { m, objects, check, step, lastNumber } = await tree(t)
  check('start')
  const mftNumber = () => [...lastNumber.entries()].find(([u]) => u.includes('/ca1/'))![1]
  const first = mftNumber()
  for (let i = 0; i < 3; i++) await step(8 + 1 / 60)
  check('after 24 hours in 8 hour steps')
  t.ok(mftNumber() >= first + 3n, 'a new manifest every 8 hours')
  for (let i = 0; i < 15; i++) await step(48)
  check('after 30 days')
  const roaBefore = objects('ca1').filter((o) => o.uri.endsWith('.roa')).map((o) => o.base64)
  // 50 weekly steps: past the 52-week validity of the ROAs and of the certificates under the trust anchor.
  for (let i = 0; i < 50; i++) {
    await step(7 * 24)
    if (i % 10 === 9) check(`after ${31 + (i + 1) * 7} days`)
  }
  check('after more than a year')
  const roaAfter = objects('ca1').filter((o) => o.uri.endsWith('.roa')).map((o) => o.base64)
  t.notSame(roaAfter, roaBefore, 'ROAs were re-issued before they expired')
  t.same(m.bulkIssues(), { cas: {} }, 'no CA has an issue')
})

t.test('after a stop of more than a year every certificate has expired; svcd catches up by itself', async (t) => {
  const { m, clock, check, step } = await tree(t)
  clock.ms += 800 * 86_400_000
  // ca1 is first: its certificate expired, so nothing is signed; the issue says why, and it asks its parent, whose
  // own certificate expired too (RFC 6492 error 2001).
  await m.publishNow('ca1')
  const issues = m.bulkIssues().cas.ca1
  t.equal(issues?.objects_issue?.label, 'ca-cert-expired', 'an expired certificate is the CA\'s issue')
  t.match(issues?.objects_issue?.msg, /expired at .*renewed when parent 'testbed' issues a new one/)
  await m.caFlushed('ca1')
  t.equal(m.bulkIssues().cas.ca1?.objects_issue?.label, 'ca-cert-expired', 'testbed has nothing better to give until ta certifies it again')
  // testbed gets a new certificate from ta; ca1, its child in this svcd, is told and gets one from testbed at once.
  await step(0)
  check('after catching up')
  t.same(m.bulkIssues(), { cas: {} }, 'the issues cleared')
})

/**
 * The standing hostile suite, RFC 6492 door, issue 22 defect 11: a registered child asks its parent to certify keys the
 * RPKI algorithm suite does not allow (RSA-1024, RSA-4096, exponent 3: RFC 7935 §3 wants RSA-2048 with 65537) and SIA
 * URIs that relying parties refuse (10 KB long, the wrong scheme, dot segments, a manifest outside
 * its repository). Each gets a signed error_response 1203 (RFC 6492 §3.6, badly formed certificate request) naming
 * the rule, no certificate is issued or published, nothing of the parent changes, and a good request still works.
 *
 *   ta ── testbed ── kid (test child: 10.0.0.0/16, AS65000)
 */
import t from 'tap'
import { buildCsr, type CsrSia } from '../../src/objects/csr.js'
import { repoDaemon, waitFor } from '../helpers/cas.js'
import { TestChild } from '../helpers/child.js'
import { testKey } from '../helpers/keys.js'
import { readRrdp } from '../helpers/repo.js'

t.test('RFC 6492 issue with a key or SIA outside the profile: error 1203, nothing issued', async (t) => {
  const d = await repoDaemon(t)
  await waitFor('testbed to be certified', async () => JSON.parse(await d.cli(['show', '-c', 'testbed', '-f', 'json'])).resource_classes['0']?.keys.active)
  const kid = new TestChild('kid')
  kid.useResponse(await d.cli(['children', 'add', '-c', 'testbed', '--child', 'kid', '--request', d.file('kid.xml', kid.requestXml()), '-4', '10.0.0.0/16', '-a', 'AS65000']))
  const list = await kid.send({ type: 'list' })
  if (list.type !== 'list_response') throw new Error(`list answered ${list.type}`)
  const cls = list.classes[0]!.className
  const jail = `${d.rsyncBase}testbed/`
  const published = async () => [...(await readRrdp(d.url)).objects.keys()].filter((u) => u.startsWith(jail) && u.endsWith('.cer')).length
  const base = (await waitFor('testbed published', async () => ({ n: await published() }))).n
  const before = await d.cli(['show', '-c', 'testbed', '-f', 'json'])
  const kidBefore = await d.cli(['children', 'info', '-c', 'testbed', '--child', 'kid', '-f', 'json'])
  const logBefore = d.output().length

  const repo = 'rsync://localhost/repo/kid/0/'
  const sia: CsrSia = { caRepository: repo, rpkiManifest: `${repo}kid.mft`, rpkiNotify: 'https://localhost/rrdp/notification.xml' }
  const long = 'a'.repeat(10 * 1024)
  const key = testKey()
  const cases: [string, Uint8Array, RegExp][] = [
    ['an RSA-1024 key', buildCsr(testKey(1024), sia), /RFC 7935 §3: RSA key of 1024 bits/],
    ['an RSA-4096 key', buildCsr(testKey(4096), sia), /RFC 7935 §3: RSA key of 4096 bits/],
    ['an RSA-2048 key with exponent 3', buildCsr(testKey(2048, 3), sia), /RFC 7935 §3: RSA key of 2048 bits, exponent 3/],
    ['a 10 KB caRepository', buildCsr(key, { ...sia, caRepository: `rsync://localhost/${long}/`, rpkiManifest: `rsync://localhost/${long}/kid.mft` }), /RFC 6487 §4\.8\.8\.1: the caRepository URI is \d+ characters long, more than 2048/],
    ['a 10 KB rpkiNotify', buildCsr(key, { ...sia, rpkiNotify: `https://localhost/${long}` }), /RFC 8182 §3\.2: the rpkiNotify URI is \d+ characters long/],
    ['an https caRepository', buildCsr(key, { ...sia, caRepository: 'https://localhost/repo/kid/0/' }), /RFC 6487 §4\.8\.8\.1: the caRepository URI .* is not an rsync URI/],
    ['an rsync rpkiNotify', buildCsr(key, { ...sia, rpkiNotify: 'rsync://localhost/notification.xml' }), /RFC 8182 §3\.2: the rpkiNotify URI .* is not an https URI/],
    ['a dot segment', buildCsr(key, { ...sia, rpkiManifest: `${repo}../../ca1/0/x.mft` }), /RFC 3986 §3\.3: the rpkiManifest URI .* has a dot segment/],
    ['a manifest outside its repository', buildCsr(key, { ...sia, rpkiManifest: 'rsync://localhost/repo/other/x.mft' }), /RFC 6487 §4\.8\.8\.1: the rpkiManifest URI is not inside the caRepository/],
  ]
  for (const [what, csr, reason] of cases) {
    const reply = await kid.send({ type: 'issue', className: cls, csr })
    t.equal(reply.type === 'error_response' ? reply.status : reply.type, 1203, `${what}: error 1203`)
    t.match(reply.type === 'error_response' ? reply.description : '', reason, `${what}: the description names the rule`)
  }

  const log = d.output().slice(logBefore)
  t.notMatch(log, /"status":500|sys-internal|unexpected error/, 'no 500 in the log')
  t.equal(await d.cli(['show', '-c', 'testbed', '-f', 'json']), before, 'testbed unchanged')
  t.equal(await d.cli(['children', 'info', '-c', 'testbed', '--child', 'kid', '-f', 'json']), kidBefore, 'kid unchanged: no certificate issued')
  t.equal(await published(), base, 'nothing more published')

  const ok = await kid.send({ type: 'issue', className: cls, csr: buildCsr(key, sia) })
  t.equal(ok.type, 'issue_response', 'a request in the profile is certified')
  await waitFor('the child certificate published', async () => (await published()) === base + 1)
})

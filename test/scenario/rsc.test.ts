/**
 * Signed checklists through svcc and the API (issue 13 item 5, RFC 9323): `svcc rsc sign` hashes local files and
 * sends only names and digests; svcd signs under the CA and answers the RSC, which is not published; `svcc inspect
 * X.sig --dir` checks the files (exit 0), a changed or missing file is reported (exit 1). Every refusal is a labelled
 * error with exit code 1 and nothing changed (no file written, published files and history as before); `--api`,
 * `--format json`, the history entry without digests, `svcc help`.
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8, 2001:db8::/32)        ca2 (no parent: no certificate)
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { httpsRequest, tempDir } from '../helpers/daemon.js'

t.test('rsc sign, inspect --dir, refusals, --api, history', async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await d.cli(['add', '-c', 'ca2'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  const work = tempDir(t)
  const dir = join(work, 'release')
  mkdirSync(dir)
  writeFileSync(join(dir, 'a.txt'), 'hello\n')
  writeFileSync(join(dir, 'b_2.tar.gz'), Buffer.from([0, 1, 2, 3, 255]))
  const sig = join(work, 'release.sig')

  // Sign with everything ca1 holds: text report, the file written, inspect --dir passes.
  const signed = await d.run(['rsc', 'sign', '-c', 'ca1', '--file', join(dir, 'a.txt'), '--file', join(dir, 'b_2.tar.gz'), '--out', sig])
  t.equal(signed.code, 0, signed.stderr)
  t.match(signed.stdout, /^Signed a checklist of 2 files with AS65000-AS65010, 10\.0\.0\.0\/8, 2001:db8::\/32, valid until \S+: .*release\.sig\n$/)
  const ok = await d.run(['inspect', sig, '--dir', dir])
  t.equal(ok.code, 0, ok.stdout)
  t.match(ok.stdout, /Type:\s+signed checklist \(RFC 9323\)/)
  t.match(ok.stdout, new RegExp(`\\n  ${sha('hello\n')}  a\\.txt  match\\n`))
  t.match(ok.stdout, /Verified:\s+CMS signature and digest ok, checklist file digests ok/)
  t.match(ok.stdout, /Problems:\s+none/)
  t.notMatch(ok.stdout, /signedObject/, 'the EE certificate has no SIA')
  const okJson = JSON.parse(await d.cli(['inspect', sig, '--dir', dir, '-f', 'json']))
  t.match(okJson, { type: 'rsc', conforms: true, resources: { asn: 'AS65000-AS65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' }, files: [{ name: 'a.txt', state: 'match' }, { name: 'b_2.tar.gz', state: 'match' }] })
  t.same(okJson.ee_certificate.sia, [], 'no SIA')

  // A changed file and a missing one: exit 1 naming them.
  writeFileSync(join(dir, 'b_2.tar.gz'), Buffer.from([0, 1, 2, 3]))
  const changed = await d.run(['inspect', sig, '--dir', dir])
  t.equal(changed.code, 1)
  t.match(changed.stdout, /checklist file digests FAILED/)
  t.match(changed.stdout, /error RFC 9323 §5: b_2\.tar\.gz: the SHA-256 of the file differs from the checklist/)
  rmSync(join(dir, 'a.txt'))
  const missing = await d.run(['inspect', sig, '--dir', dir, '-f', 'json'])
  t.equal(missing.code, 1)
  t.same(JSON.parse(missing.stdout).files.map((f: { state: string }) => f.state), ['missing', 'mismatch'])
  t.equal((await d.run(['inspect', sig, '--dir', join(work, 'nope')])).code, 2, '--dir that is no folder: usage error')
  writeFileSync(join(dir, 'a.txt'), 'hello\n')

  // Resources given: exactly those in the checklist and its EE certificate; JSON answer of the API.
  const json = await d.run(['rsc', 'sign', '-c', 'ca1', '--file', join(dir, 'a.txt'), '-a', 'AS65001', '-4', '10.1.0.0/24', '--validity', '7', '--out', join(work, 'small.sig'), '-f', 'json'])
  t.equal(json.code, 0, json.stderr)
  const answer = JSON.parse(json.stdout)
  t.same(answer.resources, { asn: 'AS65001', ipv4: '10.1.0.0/24', ipv6: '' })
  t.ok(Date.parse(answer.not_after) - Date.now() < 7 * 86_400_000 + 60_000 && Date.parse(answer.not_after) - Date.now() > 6 * 86_400_000, 'valid for 7 days')
  t.same(readFileSync(join(work, 'small.sig')), Buffer.from(answer.rsc, 'base64'), 'the file holds the DER of the answer')
  const small = JSON.parse(await d.cli(['inspect', join(work, 'small.sig'), '--dir', dir, '-f', 'json']))
  t.same(small.resources, { asn: 'AS65001', ipv4: '10.1.0.0/24', ipv6: '' })
  t.same(small.ee_certificate.resources, { asn: 'AS65001', ipv4: '10.1.0.0/24', ipv6: '' }, 'the EE holds exactly the resources asked for')
  t.equal(small.conforms, true)

  // Refusals: exit code 1 with the label; no file written; published files and history unchanged.
  const filesBefore = await waitPublished(d, () => true)
  const historyBefore = await d.cli(['history', '-c', 'ca1'])
  writeFileSync(join(work, 'bad name.txt'), 'x')
  const out = join(work, 'refused.sig')
  const refusals: [string[], string][] = [
    [['-c', 'ca1', '--file', join(dir, 'a.txt'), '-a', 'AS64000'], 'ca-rsc-not-entitled'],
    [['-c', 'ca1', '--file', join(dir, 'a.txt'), '-6', '2001:db9::/32'], 'ca-rsc-not-entitled'],
    [['-c', 'ca1', '--file', join(work, 'bad name.txt')], 'ca-rsc-file-invalid'],
    [['-c', 'ca1', '--file', join(dir, 'a.txt'), '--file', join(dir, 'a.txt')], 'ca-rsc-file-invalid'],
    [['-c', 'ca1', '--file', join(dir, 'a.txt'), '-4', '10.0.0.1/8'], 'ca-rsc-resources-invalid'],
    [['-c', 'ca1', '--file', join(dir, 'a.txt'), '--validity', '0'], 'api-invalid-body'],
    [['-c', 'ca2', '--file', join(dir, 'a.txt')], 'ca-rsc-no-certificate'],
    [['-c', 'nope', '--file', join(dir, 'a.txt')], 'ca-unknown'],
  ]
  for (const [args, label] of refusals) {
    const r = await d.run(['rsc', 'sign', ...args, '--out', out])
    t.equal(r.code, 1, `${args.join(' ')}: exit code 1`)
    t.match(r.stderr, label, `${args.join(' ')}: ${label}`)
  }
  const api = (path: string, body: unknown) => httpsRequest(`${d.url}api/v1/cas/${path}`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  const apiRefusals: [unknown, string][] = [
    [{ files: [] }, 'ca-rsc-checklist-empty'],
    [{ files: [{ name: 'a.txt', sha256: 'ab' }] }, 'ca-rsc-file-invalid'],
    [{ files: [{ name: '..', sha256: sha('x') }] }, 'ca-rsc-file-invalid'],
    [{ files: [{ name: 'a.txt' }] }, 'api-invalid-body'],
    [{ files: [{ name: 'a.txt', sha256: sha('x') }], resources: { asn: 65000 } }, 'api-invalid-body'],
    [{ files: [{ name: 'a.txt', sha256: sha('x') }], resources: { asn: '' } }, 'ca-rsc-resources-invalid'],
  ]
  for (const [body, label] of apiRefusals) {
    const r = await api('ca1/rsc', body)
    t.equal(r.status, 400, JSON.stringify(body))
    t.equal(JSON.parse(r.body).label, label, `${JSON.stringify(body)}: ${label}`)
  }
  const usage = await d.run(['rsc', 'sign', '-c', 'ca1', '--file', join(work, 'absent.txt'), '--out', out])
  t.equal(usage.code, 2, 'a file that cannot be read is a usage error')
  t.notOk(existsSync(out), 'nothing written')
  t.same(await waitPublished(d, () => true), filesBefore, 'published files unchanged')
  t.equal(await d.cli(['history', '-c', 'ca1']), historyBefore, 'history unchanged')
  t.notOk(filesBefore.some((u) => u.endsWith('.sig')), 'an RSC is never published')

  // --api prints the call (names and digests only) without sending it or writing anything.
  const printed = await d.cli(['rsc', 'sign', '-c', 'ca1', '--file', join(dir, 'a.txt'), '-a', 'AS65000', '--out', out, '--api'])
  t.match(printed, /^POST https:\/\/\S+\/api\/v1\/cas\/ca1\/rsc\n/)
  t.same(JSON.parse(printed.slice(printed.indexOf('{'))), { files: [{ name: 'a.txt', sha256: sha('hello\n') }], resources: { asn: 'AS65000', ipv4: '', ipv6: '' } })
  t.notOk(existsSync(out), 'not sent, nothing written')

  // The history: what was signed (names, resources), never the digests.
  // JSON: the text form separates its fields with '::', which IPv6 resources contain too.
  const history = JSON.parse(await d.cli(['history', '-c', 'ca1', '-f', 'json'])) as { commands: { version: number; summary: { msg: string; label: string } }[] }
  const rsc = history.commands.filter((c) => c.summary.label === 'cmd-ca-rsc-sign')
  t.same(rsc.map((c) => c.summary.msg), [
    "Sign a checklist of 2 files (a.txt, b_2.tar.gz) with resources 'asn: AS65000-AS65010, ipv4: 10.0.0.0/8, ipv6: 2001:db8::/32'",
    "Sign a checklist of 1 file (a.txt) with resources 'asn: AS65001, ipv4: 10.1.0.0/24'",
  ])
  const action = await d.cli(['action', '-c', 'ca1', '--key', String(rsc[0]!.version), '-f', 'json'])
  t.match(action, /signed a checklist of a\.txt, b_2\.tar\.gz with asn: AS65000-AS65010/)
  t.notMatch(action, new RegExp(sha('hello\n')), 'no digest in the history')
  t.match(await d.cli(['help', 'rsc', 'sign']), /--file <files\.\.\.>[\s\S]*-a, --asn <resources>[\s\S]*--out <file>/)
})

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

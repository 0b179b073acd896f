/**
 * `svcc inspect X.sig [--dir <folder>]` in-process (RFC 9323): the checklist shown with its resources and files, the
 * files in the folder checked by name (exit 0 when all match, 1 for a changed or missing one), and --dir refused
 * (exit 2) for anything but a signed checklist or a path that is no folder.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { systemClock } from '../../../src/clock.js'
import { runCli } from '../../../src/cli/program.js'
import { buildRsc } from '../../../src/objects/rsc.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { fixture } from '../../helpers/paths.js'
import { GOLDEN_BASE, GOLDEN_FROM, GOLDEN_UNTIL } from '../../helpers/golden-objects.js'

async function run(args: string[]) {
  let out = ''
  let err = ''
  const code = await runCli(args, { out: (s) => (out += s), err: (s) => (err += s), env: {}, readStdin: () => '', clock: systemClock })
  return { code, out, err }
}

const sha = (b: string | Buffer) => new Uint8Array(createHash('sha256').update(b).digest())

t.test('inspect a signed checklist, with and without --dir', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svcc-rsc-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const files = join(dir, 'files')
  mkdirSync(files)
  writeFileSync(join(files, 'a.txt'), 'alpha\n')
  writeFileSync(join(files, 'b.txt'), 'beta\n')
  const ca = testKey('rpki-ca')
  const issuer = { key: ca, name: ca.keyId, crlUri: `${GOLDEN_BASE}repo/ca/${ca.keyId}.crl`, certUri: `${GOLDEN_BASE}repo/ta/${ca.keyId}.cer` }
  const der = buildRsc({ resources: ResourceSet.parse({ asn: 'AS65001', ipv4: '10.1.0.0/24' }), files: [{ name: 'a.txt', hash: sha('alpha\n') }, { name: 'b.txt', hash: sha('beta\n') }] }, testKey('rpki-ee-5'), issuer, { serial: 5n, notBefore: GOLDEN_FROM, notAfter: GOLDEN_UNTIL, signingTime: GOLDEN_FROM })
  const sig = join(dir, 'files.sig')
  writeFileSync(sig, der)

  const plain = await run(['inspect', sig])
  t.equal(plain.code, 0, plain.out)
  t.match(plain.out, /Type:\s+signed checklist \(RFC 9323\)\nResources:\n  asn:  AS65001\n  ipv4: 10\.1\.0\.0\/24\n  ipv6: \n/)
  t.match(plain.out, /Files \(2\):\n  [0-9a-f]{64}  a\.txt\n  [0-9a-f]{64}  b\.txt\n/)
  t.match(plain.out, /Content type:\s+id-ct-signedChecklist/)
  t.match(plain.out, /Verified:\s+CMS signature and digest ok\n/, 'no file check without --dir')

  const ok = await run(['inspect', sig, '--dir', files, '-f', 'json'])
  t.equal(ok.code, 0)
  t.match(JSON.parse(ok.out), { type: 'rsc', conforms: true, files: [{ name: 'a.txt', state: 'match' }, { name: 'b.txt', state: 'match' }], checks: [{ check: 'cms-signature', ok: true }, { check: 'rsc-files', ok: true }] })

  writeFileSync(join(files, 'b.txt'), 'beta!\n')
  const changed = await run(['inspect', sig, '--dir', files])
  t.equal(changed.code, 1)
  t.match(changed.out, /  [0-9a-f]{64}  b\.txt  mismatch\n/)
  t.match(changed.out, /error RFC 9323 §5: b\.txt: the SHA-256 of the file differs from the checklist/)

  const usage = await run(['inspect', fixture('objects', 'sample/repo/ca/AS65001.roa'), '--dir', files])
  t.equal(usage.code, 2, '--dir for a ROA')
  t.match(usage.err, /is not a signed checklist/)
  t.equal((await run(['inspect', sig, '--dir', join(files, 'a.txt')])).code, 2, '--dir naming a file')
})

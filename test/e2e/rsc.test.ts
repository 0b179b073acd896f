/**
 * Signed checklists end to end (issue 13 acceptance, RFC 9323): an RSC made by `svcc rsc sign` is accepted by
 * rpki-client 9.7 in file mode (`rpki-client -f X.sig`) with the cache of a normal run over the trust anchor and
 * the TAL, without a warning, over the cache of an rsync-only and of an RRDP-only run; a checklist with resources the
 * CA holds only in part is never signed; a damaged copy is refused by rpki-client.
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8, 2001:db8::/32; a ROA, so that a normal run has a VRP)
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { httpsGet, tempDir } from '../helpers/daemon.js'
import { rpMissing, validate } from '../helpers/rp.js'

/** rpki-client -f over a cache, as the user rpki-client drops to (every path readable by it). */
function fileMode(file: string, cache: string, tal: string): { code: number | null; out: string; err: string } {
  const r = spawnSync('/usr/sbin/rpki-client', ['-f', file, '-d', cache, '-t', tal], { encoding: 'utf8', timeout: 60_000 })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

t.test('rpki-client -f accepts an RSC of svcc rsc sign, with the cache of an rsync and of an RRDP run', { skip: rpMissing() }, async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d.txt', 'A: 10.0.0.0/24 => 65000\n')])
  await waitPublished(d, (u) => u.some((x) => x.includes('/ca1/') && x.endsWith('.roa')))

  // rpki-client runs as _rpki-client when started as root: the work folder must be readable and traversable.
  const work = tempDir(t)
  chmodSync(work, 0o755)
  const files = join(work, 'files')
  mkdirSync(files, { mode: 0o755 })
  writeFileSync(join(files, 'config.txt'), 'router bgp 65000\n', { mode: 0o644 })
  writeFileSync(join(files, 'loa.pdf'), Buffer.alloc(4096, 7), { mode: 0o644 })
  const tal = join(work, 'svc-ta.tal')
  writeFileSync(tal, (await httpsGet(d.talUrl)).body, { mode: 0o644 })
  const sign = async (name: string, extra: string[]) => {
    const out = join(work, name)
    await d.cli(['rsc', 'sign', '-c', 'ca1', '--file', join(files, 'config.txt'), '--file', join(files, 'loa.pdf'), ...extra, '--out', out])
    chmodSync(out, 0o644)
    return out
  }
  const all = await sign('all.sig', [])
  const some = await sign('some.sig', ['-a', 'AS65000', '-4', '10.1.0.0/24', '-6', '2001:db8:1::/48', '--validity', '30'])
  t.equal((await d.run(['inspect', all, '--dir', files])).code, 0, 'svcc inspect agrees')

  for (const transport of ['rsync', 'rrdp'] as const) {
    const cacheDir = join(work, `cache-${transport}`)
    mkdirSync(cacheDir, { mode: 0o755 })
    const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: ['AS65000,10.0.0.0/24,24'], transport, validators: ['rpki-client'], cacheDir })
    t.equal(r.code, 0, `a normal ${transport} run fills the cache, no warnings\n${r.lines}`)
    const cache = join(cacheDir, 'rpki-client')
    for (const sig of [all, some]) {
      const f = fileMode(sig, cache, tal)
      t.equal(f.code, 0, `${transport}: rpki-client -f ${sig} exits 0\n${f.err}`)
      t.match(f.out, /Validation:\s+OK/, `${transport}: ${sig} validates\n${f.out}`)
      t.match(f.out, /Filenames and hashes:\s+1: config\.txt \(hash: [A-Za-z0-9+/=]+\)\n\s+2: loa\.pdf/, 'the files are listed')
      t.equal(f.err.split('\n').filter((l) => l.startsWith('rpki-client:')).join('\n'), '', `${transport}: no warning for ${sig}`)
    }
    const someOut = fileMode(some, cache, tal).out
    t.match(someOut, /Signed with resources:\s+AS: 65000\n\s+IP: 10\.1\.0\.0\/24\n\s+IP: 2001:db8:1::\/48\n/, 'the resources of the checklist')
  }

  // A damaged copy: the signature no longer verifies.
  const der = readFileSync(all)
  der[der.length - 10] ^= 0xff
  const bad = join(work, 'bad.sig')
  writeFileSync(bad, der, { mode: 0o644 })
  const f = fileMode(bad, join(work, 'cache-rsync', 'rpki-client'), tal)
  t.notMatch(f.out, /Validation:\s+OK/, `a damaged RSC is not validated\n${f.out}${f.err}`)
  t.match(f.err, /bad\.sig: CMS verification error/, 'rpki-client says why')
})

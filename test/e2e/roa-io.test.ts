/**
 * Issue 27 acceptance: export, delete, import — the CA's VRPs and ASPAs seen by rpki-client are identical before and
 * after. ca1 has 20 ROAs (some with a max length, a comment with a comma, quotes and a line break, one over IPv6) and
 * 2 ASPAs; rpki-client must see exactly their VRPs and ASPAs; both are exported (svcc, -o), all are removed with
 * direct updates and rpki-client sees none once that is published; the files are imported (svcc, replace, --apply)
 * and rpki-client sees exactly the first set again. Once with CSV, once with JSON.
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8, 2001:db8::/32)
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { httpsRequest, tempDir } from '../helpers/daemon.js'
import { rpMissing, validate } from '../helpers/rp.js'

const ROAS = [
  ...Array.from({ length: 18 }, (_, i) => ({ asn: 65000 + (i % 4), prefix: `10.${i}.0.0/24`, ...(i % 5 === 0 ? { max_length: 26 } : {}), ...(i % 3 === 0 ? { comment: `site ${i}, rack "${i % 7}"` } : {}) })),
  { asn: 65005, prefix: '10.100.0.0/16', max_length: 20, comment: 'two\nlines' },
  { asn: 65006, prefix: '2001:db8:1::/48', comment: '=not a formula' },
]
const ASPAS = [{ customer: 65000, providers: [65007, 65008] }, { customer: 65001, providers: [65009] }]
const VRPS = ROAS.map((r) => `AS${r.asn},${r.prefix},${r.max_length ?? Number(r.prefix.split('/')[1])}`)
const ASPA_LINES = ASPAS.map((a) => `AS${a.customer},${a.providers.map((p) => `AS${p}`).join(' ')}`)

t.test('export, delete, import: rpki-client sees the same VRPs and ASPAs', { skip: rpMissing() }, async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  const api = async (path: string, body: unknown) => {
    const r = await httpsRequest(`${d.url}api/v1/cas/ca1/${path}`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
    t.equal(r.status, 200, `${path}: ${r.body}`)
  }
  const count = (uris: string[], ext: string) => uris.filter((u) => u.endsWith(ext)).length
  const published = (roas: number, aspas: number) => waitPublished(d, (u) => count(u, '.roa') === roas && count(u, '.asa') === aspas)
  const sees = async (step: string, vrps: string[], aspas: string[]) => {
    const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps, aspas, transport: 'rrdp', validators: ['rpki-client'] })
    t.equal(r.code, 0, `${step}: rpki-client sees exactly ${vrps.length} VRPs and ${aspas.length} ASPAs\n${r.lines}`)
  }

  await api('routes', { added: ROAS, removed: [] })
  await api('aspas', { add_or_replace: ASPAS, remove: [] })
  await published(ROAS.length, ASPAS.length)
  await sees('before', VRPS, ASPA_LINES)

  const dir = tempDir(t)
  for (const format of ['csv', 'json'] as const) {
    const roaFile = join(dir, `roas.${format}`)
    const aspaFile = join(dir, `aspas.${format}`)
    await d.cli(['roas', 'export', '-c', 'ca1', '--format', format, '-o', roaFile])
    await d.cli(['aspas', 'export', '-c', 'ca1', '--format', format, '-o', aspaFile])
    t.equal(readFileSync(roaFile, 'utf8').split(format === 'csv' ? /\r\n(?=AS)/ : /\},\{/).length, ROAS.length + (format === 'csv' ? 1 : 0), `${format}: every ROA exported`)

    await api('routes', { added: [], removed: ROAS.map(({ asn, prefix, max_length }) => ({ asn, prefix, ...(max_length ? { max_length } : {}) })) })
    await api('aspas', { add_or_replace: [], remove: ASPAS.map((a) => a.customer) })
    await published(0, 0)
    await sees(`${format}: after removing everything`, [], [])

    for (const [kind, file] of [['roas', roaFile], ['aspas', aspaFile]] as const) {
      const r = await d.run([kind, 'import', '-c', 'ca1', '--file', file, '--replace', '--apply'])
      t.equal(r.code, 0, `${format}: ${kind} imported and applied\n${r.stdout}${r.stderr}`)
      t.match(r.stdout, /applied: history version \d+/)
    }
    await published(ROAS.length, ASPAS.length)
    await sees(`${format}: after the import`, VRPS, ASPA_LINES)
    const listed = JSON.parse(await d.cli(['roas', 'export', '-c', 'ca1', '--format', 'json']))
    t.same(listed.filter((r: { comment: string | null }) => r.comment !== null).length, ROAS.filter((r) => r.comment).length, `${format}: the comments came back too`)
  }
})

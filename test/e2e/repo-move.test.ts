/**
 * Moving a CA from svcd A's publication server to svcd B's (issue 6, spec §3 rule 1), validated before, right
 * after the move was asked for, and once it completed; the old repository ends empty for that CA.
 *
 *   svcd A: ta ── testbed ── ca1 (publishes in A, then in B)        svcd B: publication server only
 */
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { tempDir } from '../helpers/daemon.js'
import { readRrdp } from '../helpers/repo.js'
import { rpMissing, validate } from '../helpers/rp.js'

t.test('ca1 moves from A to B without a gap', { skip: rpMissing() }, async (t) => {
  const a = await repoDaemon(t)
  const b = await repoDaemon(t, { testbed: false })
  await a.cli(['add', '-c', 'ca1'])
  await connect(a, 'testbed', a, 'ca1', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => JSON.parse(await a.cli(['show', '-c', 'ca1', '-f', 'json'])).resources.ipv4 === '10.0.0.0/8')
  await a.cli(['roas', 'update', '-c', 'ca1', '--delta', a.file('d.txt', 'A: 10.0.0.0/24 => 65000\nA: 10.1.0.0/16-20 => 65000\n')])
  await waitPublished(a, (u) => u.filter((x) => x.includes('/ca1/') && x.endsWith('.roa')).length === 2)
  const bundle = join(tempDir(t), 'tls.pem')
  writeFileSync(bundle, readFileSync(a.tlsCert, 'utf8') + readFileSync(b.tlsCert, 'utf8'))
  const vrps = ['AS65000,10.0.0.0/24,24', 'AS65000,10.1.0.0/16,20']
  const check = async (step: string) => {
    for (const transport of ['rrdp', 'rsync'] as const) {
      const r = await validate({ talUrl: a.talUrl, tlsCert: bundle, vrps, transport })
      t.equal(r.code, 0, `${step}, ${transport} only\n${r.lines}`)
    }
  }
  await check('before the move')

  const resp = b.file('resp.xml', await b.cli(['publishers', 'add', '--request', a.file('pr.xml', await a.cli(['repo', 'request', '-c', 'ca1']))]))
  await a.cli(['repo', 'update', '-c', 'ca1', '-r', resp])
  await check('right after the move was asked for')
  await waitFor('ca1 certified for the new jail and the old repository cleaned', async () => {
    const aHas = [...(await readRrdp(a.url)).objects.keys()].some((u) => u.includes('/ca1/'))
    const show = JSON.parse(await a.cli(['show', '-c', 'ca1', '-f', 'json']))
    return !aHas && show.repo_info.sia_base === `${b.rsyncBase}ca1/`
  })
  await waitPublished(b, (u) => u.filter((x) => x.includes('/ca1/') && x.endsWith('.roa')).length === 2)
  await check('after the move completed')
  t.notOk([...(await readRrdp(a.url)).objects.keys()].some((u) => u.includes('/ca1/')), 'the old repository holds nothing of ca1')
  t.match(await a.cli(['repo', 'show', '-c', 'ca1']), new RegExp(`service uri: ${b.url}rfc8181/ca1/`))
  t.match(await a.cli(['history', '-c', 'ca1']), /Update repository to server/)
  t.match(await a.cli(['history', '-c', 'ca1']), /Clean up the previous repository/)
})

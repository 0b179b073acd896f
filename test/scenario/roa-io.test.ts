/**
 * ROA/ASPA export and import as plans, and rollback from the history (issue 27, design.md §12), through the API and
 * svcc: CSV and JSON exports (a file to save: Content-Disposition; comments with commas, quotes, line breaks and
 * formula characters), an import that replaces or adds made into a plan, a bad file refused by line with nothing
 * made, a rollback plan that restores an earlier version once applied, and svcc's exit codes.
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8, 2001:db8::/32)
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { connect, repoDaemon, waitFor } from '../helpers/cas.js'
import { httpsRequest, tempDir } from '../helpers/daemon.js'

const ROAS = [
  { asn: 65000, prefix: '10.0.0.0/16', max_length: 24, comment: 'core, east' },
  { asn: 65000, prefix: '10.1.0.0/24', comment: 'says "hi"\nand more' },
  { asn: 65001, prefix: '10.2.0.0/24', comment: '=cmd|calc' },
  { asn: 65002, prefix: '2001:db8::/48' },
  { asn: 0, prefix: '10.9.0.0/16', max_length: 32 },
]
const ASPAS = [{ customer: 65000, providers: [65005, 65006] }, { customer: 65001, providers: [0] }]

t.test('export, import as plans, rollback, svcc', async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  const call = async (path: string, method = 'GET', body?: unknown) => {
    const r = await httpsRequest(`${d.url}api/v1/cas/ca1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
    return { status: r.status, headers: r.headers, body: r.body, json: /json/.test(String(r.headers['content-type'])) && r.body ? JSON.parse(r.body) : undefined }
  }
  const config = async () => ({ roas: (await call('routes/export?format=json')).json, aspas: (await call('aspas/export?format=json')).json })
  const lastVersion = async () => Math.max(...JSON.parse(await d.cli(['history', '-c', 'ca1', '--rows', '250', '-f', 'json'])).commands.map((c: { version: number }) => c.version))

  t.equal((await call('routes', 'POST', { added: ROAS, removed: [] })).status, 200)
  t.equal((await call('aspas', 'POST', { add_or_replace: ASPAS, remove: [] })).status, 200)
  const start = await config()
  const startVersion = await lastVersion()

  // Exports: CSV (the default) and JSON, as files to save.
  const csv = await call('routes/export')
  t.equal(csv.status, 200)
  t.match(csv.headers['content-type'], /^text\/csv; charset=utf-8/)
  t.equal(csv.headers['content-disposition'], 'attachment; filename="ca1-roas.csv"')
  t.equal(csv.body, [
    'asn,prefix,max_length,comment',
    'AS65000,10.0.0.0/16,24,"core, east"',
    'AS65000,10.1.0.0/24,24,"says ""hi""\nand more"',
    "AS65001,10.2.0.0/24,24,'=cmd|calc",
    'AS0,10.9.0.0/16,32,',
    'AS65002,2001:db8::/48,48,',
    '',
  ].join('\r\n'))
  t.same(start.roas[0], { asn: 65000, prefix: '10.0.0.0/16', max_length: 24, comment: 'core, east' })
  t.equal(start.roas[3].comment, null)
  t.equal((await call('aspas/export')).body, 'customer,providers\r\nAS65000,AS65005 AS65006\r\nAS65001,AS0\r\n')
  t.same(start.aspas, ASPAS)
  t.equal((await call('aspas/export?format=json')).headers['content-disposition'], 'attachment; filename="ca1-aspas.json"')
  t.equal((await call('routes/export?format=xml')).json.label, 'api-invalid-query')

  // svcc: the same files, written byte for byte with -o, printed made safe for a terminal (LF line ends).
  t.equal(await d.cli(['roas', 'export', '-c', 'ca1']), csv.body.replace(/\r\n/g, '\n'))
  t.equal(await d.cli(['roas', 'export', '-c', 'ca1', '--format', 'csv']), csv.body.replace(/\r\n/g, '\n'))
  const out = join(tempDir(t), 'r.csv')
  t.equal(await d.cli(['roas', 'export', '-c', 'ca1', '-o', out]), '')
  t.equal(readFileSync(out, 'utf8'), csv.body)
  t.same(JSON.parse(await d.cli(['roas', 'export', '-c', 'ca1', '--format', 'json'])), start.roas)
  const dir = tempDir(t)
  t.equal(await d.cli(['aspas', 'export', '-c', 'ca1', '--format', 'json', '-o', join(dir, 'a.json')]), '')
  t.same(JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8')), ASPAS)
  t.equal((await d.run(['roas', 'list', '-c', 'ca1', '--format', 'csv'])).code, 2, '--format csv only for exports')

  // A bad file: every problem by line, no plan made, nothing changed.
  const plansBefore = (await call('plans')).json.total
  const bad = await call('plans/import', 'POST', { format: 'csv', kind: 'roas', mode: 'replace', content: 'asn,prefix,max_length,comment\nAS65000,10.0.0.1/24,24,\nAS65000,10.3.0.0/24,8,\n' })
  t.equal(bad.status, 400)
  t.equal(bad.json.label, 'ca-import-syntax')
  t.match(bad.json.args.problems, /^line 2: prefix: .*host bits.*\nline 3: max length 8 is shorter/)
  t.equal((await call('plans')).json.total, plansBefore)
  t.same(await config(), start)
  const badRun = await d.run(['roas', 'import', '-c', 'ca1', '--file', d.file('bad.csv', 'AS65000,not-a-prefix\n')])
  t.equal(badRun.code, 1)
  t.match(badRun.stderr, /line 1: prefix/)

  // The export imported again (replace): nothing to do.
  t.equal((await call('plans/import', 'POST', { format: 'csv', kind: 'roas', mode: 'replace', content: csv.body })).json.label, 'ca-plan-empty')
  t.equal((await call('plans/import', 'POST', { format: 'json', kind: 'aspas', mode: 'replace', content: JSON.stringify(ASPAS) })).json.label, 'ca-plan-empty')

  // add: only what is missing; replace: exactly the file (the other kind untouched).
  const add = await call('plans/import', 'POST', { format: 'csv', kind: 'roas', mode: 'add', content: `${csv.body}AS65003,10.4.0.0/24,24,new\r\n`, comment: 'one more' })
  t.equal(add.status, 200, add.body)
  t.match(add.json, { source: 'csv', status: 'open', comment: 'one more', change: { roas: { added: [{ asn: 65003, prefix: '10.4.0.0/24', max_length: 24, comment: 'new' }], removed: [] } } })
  t.equal((await call(`plans/${add.json.id}/withdraw`, 'POST')).status, 200)
  const repl = await call('plans/import', 'POST', { format: 'json', kind: 'roas', mode: 'replace', content: JSON.stringify([start.roas[0], { ...start.roas[1], comment: 'changed' }]) })
  t.match(repl.json, { source: 'json', comment: 'ROA import (JSON, replace)', impact: { vrps: { removed_count: 3, added_count: 0 } } })
  t.same(repl.json.change.roas.added, [{ asn: 65000, prefix: '10.1.0.0/24', max_length: 24, comment: 'changed' }], 'a changed comment is added again')
  t.same(repl.json.change.aspas, { add_or_replace: [], remove: [] })
  t.equal((await call(`plans/${repl.json.id}/withdraw`, 'POST')).status, 200)

  // Remove everything with svcc imports (header only; an empty JSON list), applied at once.
  const emptied = await d.run(['roas', 'import', '-c', 'ca1', '--file', d.file('none.csv', 'asn,prefix,max_length,comment\r\n'), '--apply'])
  t.equal(emptied.code, 0, emptied.stderr)
  t.match(emptied.stdout, /^plan \d+ \(open\): ROA import \(CSV, replace\)\n {2}ROAs: 0 added, 5 removed; .*\n.*\n {2}BGP: no announcements loaded.*\napplied: history version \d+/)
  t.equal((await d.run(['aspas', 'import', '-c', 'ca1', '--file', d.file('none.json', '[]'), '--apply'])).code, 0)
  t.same(await config(), { roas: [], aspas: [] })
  t.equal((await d.run(['roas', 'import', '-c', 'ca1', '--file', 'x.csv', '--add', '--replace'])).code, 2)

  // Rollback to the version right after the setup: a plan, applied, and the configuration is back (comments too).
  const rb = JSON.parse(await d.cli(['plan', 'rollback', '-c', 'ca1', '--to', String(startVersion), '--comment', 'undo', '-f', 'json']))
  t.match(rb, { source: 'rollback', rollback_to: startVersion, comment: 'undo', status: 'open' })
  t.same(await config(), { roas: [], aspas: [] }, 'the plan alone changes nothing')
  t.equal((await call(`plans/${rb.id}/apply`, 'POST')).status, 200)
  t.same(await config(), start)
  t.equal((await call('plans/rollback', 'POST', { version: startVersion })).json.label, 'ca-plan-empty', 'rolling back to the configuration there is now')
  const unknown = await call('plans/rollback', 'POST', { version: 999999 })
  t.equal(unknown.status, 404)
  t.equal(unknown.json.label, 'ca-plan-rollback-unknown')
  t.equal((await d.run(['plan', 'rollback', '-c', 'ca1', '--to', '999999'])).code, 1)
  t.equal((await d.run(['plan', 'rollback', '-c', 'ca1', '--to', 'last'])).code, 2)

  // Four-eyes: --apply makes the plan but cannot apply it alone; exit 1, saying who must approve.
  t.equal((await call('change-control', 'POST', { four_eyes: true })).status, 200)
  const four = await d.run(['roas', 'import', '-c', 'ca1', '--file', d.file('one.csv', 'AS65003,10.4.0.0/24\n'), '--add', '--apply'])
  t.equal(four.code, 1)
  t.match(four.stdout, /needs approval.*\n[^]*not applied: CA 'ca1' requires four-eyes approval; a different user with the plans-approve permission must approve plan \d+/)
  t.same(await config(), start)
})

/**
 * ROA analysis against BGP announcements (issue 15 item 5, krill-reference.md §1.1 "ROAs", §5): svcd loads RIS whois
 * dumps (generated here, IPv4 gzip-compressed, IPv6 plain) from an HTTP server on 127.0.0.1 that this test starts
 * and stops; `routes/analysis/full`, `svcc roas bgp analyze|suggest` (JSON and text, scoped with -4) give the
 * states of the CA's ROAs and of the announcements in its resources; a changed dump is picked up by the periodic
 * refresh; while a download hangs the API answers at once with the data it had (krill #1177); `roas update
 * --dryrun` shows the analysis a delta would lead to and changes nothing, and refuses a bad delta by line.
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/16, 2001:db8::/32)
 */
import t from 'tap'
import { createServer, type Server } from 'node:http'
import { gzipSync } from 'node:zlib'
import type { BgpAnalysisEntry, BgpAnalysisSuggestion } from '../../src/api/cas.js'
import { connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { HANG_MS } from '../helpers/no-hang.js'

/** The dumps the server hands out; changed by the test. `stall` holds every answer back until released. */
const dumps = {
  v4: [
    '% RIS whois dump, generated for the test',
    '65000\t10.0.0.0/22\t120',
    '65000\t10.0.2.0/23\t80',
    '65001\t10.0.4.0/24\t60',
    '65002\t10.0.5.0/24\t60',
    '65009\t10.0.6.0/24\t30',
    '65000\t10.0.8.0/24\t3', // seen by too few peers: left out
    '64511\t192.0.2.0/24\t200', // outside ca1's resources
    // Other networks' routes, as a real dump is mostly: none of them in ca1's resources.
    ...Array.from({ length: 3000 }, (_, i) => `${64512 + (i % 100)}\t172.${16 + (i >> 8)}.${i & 255}.0/24\t${10 + (i % 50)}`),
  ],
  v6: ['65000\t2001:db8::/32\t100', '65001\t2001:db8:1::/48\t50', '65005\t2001:db9::/32\t100'],
  stall: undefined as Promise<void> | undefined,
  requests: 0,
}

function serve(): Promise<Server> {
  const server = createServer((req, res) => {
    dumps.requests++
    const answer = () => {
      if (req.url === '/riswhoisdump.IPv4.gz') res.writeHead(200).end(gzipSync(dumps.v4.join('\n') + '\n'))
      else if (req.url === '/riswhoisdump.IPv6') res.writeHead(200).end(dumps.v6.join('\n') + '\n')
      else res.writeHead(404).end()
    }
    if (dumps.stall) void dumps.stall.then(answer)
    else answer()
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

const states = (report: BgpAnalysisEntry[]) => report.map((e) => `${e.state}: ${e.prefix}${e.max_length !== undefined ? `-${e.max_length}` : ''} => ${e.asn}`)

async function api(d: RepoDaemon, path: string, method = 'GET', body?: unknown) {
  return httpsRequest(`${d.url}api/v1/cas/ca1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
}

t.test('BGP analysis from RIS whois dumps on 127.0.0.1: states, suggestions, refresh, no waiting, dry run', async (t) => {
  const server = await serve()
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const dumpUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const d = await repoDaemon(t, {
    logLevel: 'info',
    toml: `bgp_riswhois_enabled = true\nbgp_riswhois_v4_uri = "${dumpUrl}/riswhoisdump.IPv4.gz"\nbgp_riswhois_v6_uri = "${dumpUrl}/riswhoisdump.IPv6"\nbgp_riswhois_refresh_seconds = 2`,
  })
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/16', ipv6: '2001:db8::/32' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  const delta = ['A: 10.0.0.0/22-23 => 65000 # too permissive', 'A: 10.0.4.0/24 => 65001', 'A: 10.0.7.0/24 => 65004', 'A: 10.0.6.0/24 => 65003', 'A: 2001:db8::/32 => 65000', '']
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('delta.txt', delta.join('\n'))])

  // The states once the dumps are loaded (the first load starts with svcd).
  const report = await waitFor('the dumps to be loaded', async () => {
    const r = JSON.parse(await d.cli(['roas', 'bgp', 'analyze', '-c', 'ca1', '-f', 'json'])) as BgpAnalysisEntry[]
    return r.some((e) => e.state === 'roa_no_announcement_info') ? undefined : r
  })
  t.same(states(report), [
    'roa_seen: 10.0.4.0/24-24 => 65001',
    'roa_seen: 2001:db8::/32-32 => 65000',
    'roa_unseen: 10.0.7.0/24-24 => 65004',
    'roa_disallowing: 10.0.6.0/24-24 => 65003',
    'roa_too_permissive: 10.0.0.0/22-23 => 65000',
    'announcement_valid: 10.0.0.0/22 => 65000',
    'announcement_valid: 10.0.2.0/23 => 65000',
    'announcement_valid: 10.0.4.0/24 => 65001',
    'announcement_valid: 2001:db8::/32 => 65000',
    'announcement_invalid_asn: 10.0.6.0/24 => 65009',
    'announcement_invalid_asn: 2001:db8:1::/48 => 65001',
    'announcement_not_found: 10.0.5.0/24 => 65002',
  ], 'every ROA and every announcement in the resources (none outside them, none seen by too few peers)')
  const tooPermissive = report.find((e) => e.state === 'roa_too_permissive')!
  t.same(tooPermissive.authorizes, [{ asn: 65000, prefix: '10.0.0.0/22' }, { asn: 65000, prefix: '10.0.2.0/23' }])
  t.equal(tooPermissive.comment, 'too permissive', "the ConfiguredRoa's fields are kept")
  t.same(report.find((e) => e.prefix === '2001:db8:1::/48')!.disallowed_by, [{ asn: 65000, prefix: '2001:db8::/32', max_length: 32 }])
  const viaApi = await api(d, 'routes/analysis/full')
  t.equal(viaApi.status, 200)
  t.same(states(JSON.parse(viaApi.body)), states(report), 'the API answers the same')

  const text = await d.cli(['roas', 'bgp', 'analyze', '-c', 'ca1'])
  t.match(text, /ROA configurations which may be too permissive[^\n]*\n\tConfiguration: 10\.0\.0\.0\/22-23 => 65000\n\t\tAuthorizes announcement\(s\):\n\t\t10\.0\.0\.0\/22 => 65000/)
  t.match(text, /Announcements from an unauthorized ASN:\n\tAnnouncement: 10\.0\.6\.0\/24 => 65009\n\t\tDisallowed by ROA configuration\(s\):\n\t\t10\.0\.6\.0\/24 => 65003/)
  t.match(text, /'not found'[^\n]*\n\tAnnouncement: 10\.0\.5\.0\/24 => 65002/)

  // Suggestions: for all resources, and for 10.0.4.0/22 only.
  const suggestion = JSON.parse(await d.cli(['roas', 'bgp', 'suggest', '-c', 'ca1', '-f', 'json'])) as BgpAnalysisSuggestion
  t.same(suggestion.too_permissive?.map((x) => x.new), [[{ asn: 65000, prefix: '10.0.0.0/22', max_length: 22 }, { asn: 65000, prefix: '10.0.2.0/23', max_length: 23 }]], 'the too permissive ROA replaced by the announced prefixes')
  t.same(suggestion.stale?.map((r) => r.prefix), ['10.0.7.0/24'])
  t.same(suggestion.not_found, [{ asn: 65002, prefix: '10.0.5.0/24' }])
  t.same(suggestion.keep?.map((r) => r.prefix), ['10.0.4.0/24', '2001:db8::/32'])
  const scoped = JSON.parse(await d.cli(['roas', 'bgp', 'suggest', '-c', 'ca1', '-4', '10.0.4.0/22', '-f', 'json'])) as BgpAnalysisSuggestion
  t.same(Object.keys(scoped), ['stale', 'not_found', 'invalid_asn', 'disallowing', 'keep'], 'only what lies in 10.0.4.0/22')
  t.same(scoped.keep?.map((r) => r.prefix), ['10.0.4.0/24'])
  t.match(await d.cli(['roas', 'bgp', 'suggest', '-c', 'ca1']), /Replace the following too permissive entries:\n  Remove: 10\.0\.0\.0\/22-23 => 65000\n  Add: 10\.0\.0\.0\/22 => 65000\n  Add: 10\.0\.2\.0\/23 => 65000/)
  const badScope = await api(d, 'routes/analysis/suggest', 'POST', { ipv4: '10.0.0.300/8' })
  t.equal(badScope.status, 400)
  t.equal(JSON.parse(badScope.body).label, 'api-invalid-body')

  // A changed dump is picked up by the periodic refresh (every 2 s here).
  dumps.v4.push('65004\t10.0.7.0/24\t40')
  const refreshed = await waitFor('the refreshed dump', async () => {
    const r = JSON.parse((await api(d, 'routes/analysis/full')).body) as BgpAnalysisEntry[]
    return r.find((e) => e.prefix === '10.0.7.0/24' && e.state === 'roa_seen') ? r : undefined
  })
  t.ok(refreshed.some((e) => e.state === 'announcement_valid' && e.prefix === '10.0.7.0/24'), 'the new announcement is valid')

  // A download that hangs holds nothing up: the API answers at once, with the data it had.
  let release = () => {}
  dumps.stall = new Promise((r) => (release = r))
  const before = dumps.requests
  await waitFor('a refresh to be under way', async () => dumps.requests > before)
  const started = Date.now()
  const during = await api(d, 'routes/analysis/full')
  const ms = Date.now() - started
  release()
  dumps.stall = undefined
  t.equal(during.status, 200)
  // The download hangs until released (its own timeout is 10 minutes): an answer that waited for it would cross HANG_MS.
  t.ok(ms < HANG_MS, `answered in ${ms} ms while a download hung (no wait for it)`)
  t.same(states(JSON.parse(during.body)), states(refreshed), 'with the data loaded before')

  // Dry run: the analysis of what a delta would leave, and nothing changes.
  const listed = await d.cli(['roas', 'list', '-c', 'ca1'])
  const dry = JSON.parse(await d.cli(['roas', 'update', '-c', 'ca1', '--dryrun', '--add', '10.0.5.0/24 => 65002', '--remove', '10.0.6.0/24 => 65003', '-f', 'json'])) as BgpAnalysisEntry[]
  t.ok(dry.some((e) => e.state === 'roa_seen' && e.prefix === '10.0.5.0/24'), 'the added ROA would be seen')
  t.ok(dry.some((e) => e.state === 'announcement_valid' && e.prefix === '10.0.5.0/24'), 'its announcement would be valid')
  t.notOk(dry.some((e) => e.prefix === '10.0.6.0/24' && e.state.startsWith('roa_')), 'the removed ROA is gone')
  t.ok(dry.some((e) => e.state === 'announcement_not_found' && e.prefix === '10.0.6.0/24'), 'without its ROA, 10.0.6.0/24 from AS65009 is not found rather than invalid')
  t.same(dry.find((e) => e.prefix === '10.0.5.0/24')?.roa_objects, [], 'no objects in a dry run')
  t.match(await d.cli(['roas', 'update', '-c', 'ca1', '--dryrun', '--add', '10.0.5.0/24 => 65002']), /ROA configurations covering seen announcements:\n(\t.*\n)*\tConfiguration: 10\.0\.5\.0\/24 => 65002/)
  const badDelta = d.file('bad.txt', 'A: 10.0.9.0/24 => 65000\nA: 192.0.2.0/24 => 64511\nR: 10.0.99.0/24 => 65000\n')
  const refused = await d.run(['roas', 'update', '-c', 'ca1', '--dryrun', '--delta', badDelta])
  t.equal(refused.code, 1, 'a delta the update would refuse is refused')
  t.match(refused.stderr, /ca-roa-delta-error/)
  t.match(refused.stderr, /line 2: A: 192\.0\.2\.0\/24 => 64511/)
  t.match(refused.stderr, /line 3: R: 10\.0\.99\.0\/24 => 65000/)
  const dryApi = await api(d, 'routes/analysis/dryrun', 'POST', { added: [{ asn: 65000, prefix: '10.0.0.0/24', max_length: 33 }], removed: [] })
  t.equal(dryApi.status, 400)
  t.match(JSON.parse(dryApi.body), { label: 'ca-roa-delta-error', delta_error: { invalid_length: [{ asn: 65000, prefix: '10.0.0.0/24', max_length: 33 }] } })
  t.equal(await d.cli(['roas', 'list', '-c', 'ca1']), listed, 'nothing changed')
  t.match(await d.cli(['roas', 'update', '-c', 'ca1', '--dryrun', '--add', '10.0.5.0/24 => 65002', '--api']), /^POST https:\/\/\S+\/api\/v1\/cas\/ca1\/routes\/analysis\/dryrun\n/)

  // --add and --remove apply like a delta file.
  await d.cli(['roas', 'update', '-c', 'ca1', '--add', '10.0.5.0/24 => 65002 # added alone', '--remove', '10.0.6.0/24 => 65003'])
  t.match(await d.cli(['roas', 'list', '-c', 'ca1']), /10\.0\.5\.0\/24 => 65002/)
  t.notMatch(await d.cli(['roas', 'list', '-c', 'ca1']), /10\.0\.6\.0\/24/)
  const usage = await d.run(['roas', 'update', '-c', 'ca1'])
  t.equal(usage.code, 2, 'roas update without a change is a usage error')
  t.match(d.output(), /RIS whois dumps loaded/, 'svcd logs each load')
})

/**
 * rpki-client at -vv (issue 12 item 1): every line it prints about svc's repository, over RRDP only and over rsync
 * only, is either a fixed progress or statistics line or listed below with the reason it is not a problem.
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8, 2001:db8::/32)  ROAs added, one removed again (a CRL entry, a
 *                                                                     new manifest number)
 */
import t from 'tap'
import { caObjects, connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { rpMissing, validate } from '../helpers/rp.js'

/** Lines rpki-client prints at -vv that are not problems, each with why. */
export const ALLOWED: readonly { line: RegExp; why: string }[] = [
  { line: /^rpki-client: (ta\/\S+|\.rsync\/\S+|https:\/\/\S+): pulling from (network|\S+)$/, why: 'progress: a fetch starts (-v)' },
  { line: /^rpki-client: (ta\/\S+|\.rsync\/\S+|https:\/\/\S+): loaded from network$/, why: 'progress: a fetch succeeded (-v)' },
  { line: /^rpki-client: https:\/\/\S+\/rrdp\/notification\.xml: downloading snapshot \([0-9a-f-]{36}#\d+\)$/, why: 'progress: a fresh cache takes the RRDP snapshot (-v)' },
  { line: /^rpki-client: all files parsed: generating output$/, why: 'progress: validation is done (-v)' },
  {
    line: /^rpki-client: (deleted )?superfluous \.(rrdp\/[0-9A-F]{64}|rsync)\/localhost:\d+\/repo\/ta\/ta\.cer$/,
    why: 'the TA certificate is published in the repository so that the TAL\'s rsync URI resolves (RFC 8630 §2.2); no manifest lists a TA certificate, so rpki-client, which fetched it through the TAL, calls the repository copy superfluous (-vv cleanup note). Publishing it outside RRDP would silence this; that is the publication server\'s business (src/pubd), left for its owner',
  },
]

/** The statistics rpki-client prints at the end: counts, with every failure count zero. */
const STATISTICS: readonly RegExp[] = [
  /^Processing time \d+ seconds \(\d+ seconds user, \d+ seconds system\)$/, /^Skiplist entries: 0$/, /^CCR (manifest state|ROA payloads|ASPA payloads) hash: \S+$/,
  /^Route Origin Authorizations: \d+ \(0 failed parse, 0 invalid\)$/, /^AS Provider Attestations: \d+ \(0 failed parse, 0 invalid\)$/,
  /^BGPsec Router Certificates: \d+$/, /^Certificates: \d+ \(0 invalid, 0 non-functional\)$/, /^Trust Anchor Locators: 1 \(0 invalid\)$/,
  /^Manifests: \d+ \(0 failed parse, 0 seqnum gaps\)$/, /^Certificate revocation lists: \d+$/, /^Trust Anchor Keys: 1$/, /^Repositories: \d+$/,
  /^New files moved into validated cache: \d+$/, /^Cleanup: removed \d+ files, \d+ directories$/, /^Repository cleanup: kept \d+ and removed \d+ superfluous files$/,
  /^VRP Entries: \d+ \(\d+ unique\)$/, /^VAP Entries: 0 \(0 unique, 0 overflowed\)$/, /^VSP Entries: 0 \(0 unique\)$/,
]

/** The lines of rpki-client's output (rp-validate's log without its own ### header lines) that nothing above explains. */
function unexplained(log: string): string[] {
  return log.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('### ')).filter((l) => !ALLOWED.some((a) => a.line.test(l)) && !STATISTICS.some((s) => s.test(l)))
}

t.test('rpki-client -vv has nothing to say about svc beyond progress, statistics and the allow-list', { skip: rpMissing() }, async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  await waitFor('ca1 to be certified', async () => (await caObjects(d, 'ca1')).active === 1)
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d.txt', 'A: 10.0.0.0/24 => 65000\nA: 2001:db8::/48-56 => 65001\nA: 10.1.0.0/16-20 => 65002\n')])
  await waitPublished(d, (uris) => uris.filter((u) => u.includes('/ca1/') && u.endsWith('.roa')).length === 3)
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('r.txt', 'R: 10.1.0.0/16-20 => 65002\n')])
  await waitPublished(d, (uris) => uris.filter((u) => u.includes('/ca1/') && u.endsWith('.roa')).length === 2)
  const vrps = ['AS65000,10.0.0.0/24,24', 'AS65001,2001:db8::/48,56']
  for (const transport of ['rrdp', 'rsync'] as const) {
    const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps, transport, validators: ['rpki-client'], verbose: true })
    t.match(r.summary, /^RESULT rpki-client version=\S+ status=ok .*expect=match/m, `rpki-client -vv validates, ${transport} only\n${r.lines}`)
    t.match(r.logs['rpki-client'], /### cmd: .* -v .* -v /, 'ran at -vv')
    t.same(unexplained(r.logs['rpki-client'] ?? ''), [], `every line is explained, ${transport} only`)
  }
})

/**
 * app/ca/structure-import.ts, the instance's own refusals (the document's are test/unit/api/structure.test.ts'; the
 * import itself is test/scenario/structure-import.test.ts): not empty, no repository, URIs other than svcd's, a TA key,
 * four-eyes everywhere, a publisher already there. Each is refused before anything is called: the collaborators
 * here fail the test if the service reaches them.
 */
import t from 'tap'
import { StructureImportService, type StructureImportDeps } from '../../../src/app/ca/structure-import.js'
import { AppError } from '../../../src/errors.js'
import { silentLogger } from '../../../src/log.js'

const RSYNC = 'rsync://localhost:8730/repo/'
const SERVICE = 'https://localhost:3000/'
const never = (what: string) => () => {
  throw new Error(`the refused import reached ${what}`)
}

function service(o: { handles?: string[]; publishers?: string[]; repository?: boolean; fourEyes?: boolean } = {}): StructureImportService {
  const d = {
    commands: { handles: () => o.handles ?? [], exists: () => false, state: never('commands.state') },
    cas: { create: never('cas.create'), caRoasUpdate: never('roas'), caAspasUpdate: never('aspas'), caFlushed: never('flush') },
    children: { caChildAdd: never('child add'), caChildContact: never('child contact') },
    parents: { caParentAdd: never('parent add'), caSyncParents: never('sync'), idle: never('idle') },
    followUps: { idle: never('follow-ups') },
    publisher: { flushed: never('publisher') },
    publication: o.repository === false ? undefined : { findPublisher: (h: string) => ((o.publishers ?? []).includes(h) ? ({ handle: h } as never) : undefined) },
    repository: o.repository === false ? undefined : { rrdpBaseUri: `${SERVICE}rrdp/`, rsyncBaseUri: RSYNC },
    serviceUri: SERVICE,
    fourEyesEverywhere: o.fourEyes ?? false,
    signer: {} as StructureImportDeps['signer'],
    now: () => new Date('2026-11-27T12:00:00Z'),
    random: (n: number) => new Uint8Array(n),
    log: silentLogger(),
  } as unknown as StructureImportDeps
  return new StructureImportService(d)
}

const ca = { handle: 'ca1', parent: { handle: 'ta', resources: { asn: 'AS65000', ipv4: '10.0.0.0/8' } }, roas: [{ asn: 65000, prefix: '10.0.0.0/16' }], aspas: [{ customer: 65000, providers: [65001] }] }
const ta = { ta_aia: `${RSYNC}ta/ta.cer`, ta_uri: `${SERVICE}ta/ta.cer` }

async function refusal(s: StructureImportService, body: unknown): Promise<AppError> {
  try {
    await s.bulkImport(body)
  } catch (e) {
    if (e instanceof AppError) return e
    throw e
  }
  throw new Error('not refused')
}

t.test('not empty: ca-import-not-empty names the CAs', async (t) => {
  const e = await refusal(service({ handles: ['ta', 'testbed'] }), { ta, cas: [ca] })
  t.equal(e.label, 'ca-import-not-empty')
  t.same(e.args, { count: '2', cas: 'ta, testbed' })
})

t.test("svcd's own URIs, no TA key, a repository, no four-eyes, no publisher in the way: all in one ca-import-invalid", async (t) => {
  const e = await refusal(service({ publishers: ['ca1', 'ta'], fourEyes: true }), {
    ta: { ta_aia: 'rsync://example.krill.cloud/ta/ta.cer', ta_uri: 'https://example.krill.cloud/ta/ta.cer', ta_key_pem: '-----BEGIN PRIVATE KEY-----\nsecret', ta_mft_nr_override: 42 },
    publication_server: { rrdp_base_uri: 'https://example.krill.cloud/repo/', rsync_jail: 'rsync://example.krill.cloud/repo/' },
    cas: [ca],
  })
  t.equal(e.label, 'ca-import-invalid')
  t.equal(e.status, 400)
  const p = e.args.problems!
  for (const re of [
    /publication_server\.rrdp_base_uri: 'https:\/\/example\.krill\.cloud\/repo\/' is not svcd's \[repository\] rrdp_base_uri 'https:\/\/localhost:3000\/rrdp\/'/,
    /publication_server\.rsync_jail: 'rsync:\/\/example\.krill\.cloud\/repo\/' is not svcd's \[repository\] rsync_base_uri 'rsync:\/\/localhost:8730\/repo\/'/,
    /ta\.ta_aia: 'rsync:\/\/example\.krill\.cloud\/ta\/ta\.cer' is not where svcd publishes its TA certificate \('rsync:\/\/localhost:8730\/repo\/ta\/ta\.cer'\)/,
    /ta\.ta_uri: .* is not where svcd serves its TA certificate \('https:\/\/localhost:3000\/ta\/ta\.cer'\)/,
    /ta\.ta_key_pem: svcd does not import an existing trust-anchor key/,
    /ta\.ta_mft_nr_override: only meaningful with an imported TA key/,
    /cas 'ca1': the embedded repository already has a publisher 'ca1'/,
    /cas 'ca1': change_control_four_eyes is on: ROAs and ASPAs need approved plans/,
    /already has a publisher 'ta'/,
  ]) t.match(p, re)
  t.equal(e.args.count, '9')
  t.notMatch(JSON.stringify(e.body()), /secret/, 'the key is never in the answer')
})

t.test('without the embedded repository nothing can be imported; the document problems come along', async (t) => {
  const e = await refusal(service({ repository: false }), { cas: [ca, { handle: 'x', parent: { handle: 'nobody', resources: { asn: 'AS1' } } }] })
  t.equal(e.label, 'ca-import-invalid')
  t.match(e.args.problems, /embedded repository is off/)
  t.match(e.args.problems, /cas\[1\] 'x': parent 'nobody'/)
})

t.test('four-eyes without ROAs or ASPAs, and the structure of svcd itself: nothing refused before the build', async (t) => {
  const s = service({ fourEyes: true })
  // The first call of the build (creating the TA) is reached: everything before it passed.
  const e = await refusal(s, { ta, publication_server: { rrdp_base_uri: `${SERVICE}rrdp/`, rsync_jail: RSYNC }, cas: [{ ...ca, roas: [], aspas: [] }] })
  t.equal(e.label, 'ca-import-failed')
  t.same(e.args, { ca: 'ta', step: 'create the trust anchor', reason: 'an internal error (see the log)', created: 'nothing' }, 'a failure half-way names what was created; internals stay in the log')
})

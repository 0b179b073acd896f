/**
 * What follows a CA change goes through the one table (app/ca/follow-ups.ts), applied by CaFollowUps after every
 * command, whoever runs it: here the real CaCommands over an in-memory SQLite store, the real RFC 6492 server
 * (ChildServer, with CMS) and client (ParentClient, in-process to the server), and a publisher, parent service and
 * scheduler that only record what they are asked to do. A ROA change, a child certificate issued over RFC 6492 and
 * a parent's new entitlements are each published because their events say so; nothing else asks.
 *
 *   ta ── ca1 (ROAs)
 *      └─ ca2 (asks over RFC 6492 with CMS)
 */
import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { CaCommands } from '../../../src/app/ca/ca-commands.js'
import { CaFollowUps, type CaFollowUpsDeps } from '../../../src/app/ca/ca-follow-ups.js'
import { ChildServer } from '../../../src/app/ca/child-server.js'
import { MessageSigners } from '../../../src/app/ca/message-signers.js'
import { ParentClient } from '../../../src/app/ca/parent-client.js'
import { initialState } from '../../../src/ca/cert-auth.js'
import type { CaEvent } from '../../../src/ca/events.js'
import { keySia } from '../../../src/ca/locations.js'
import type { CaState, RepoInfo } from '../../../src/ca/state.js'
import { KeyPool } from '../../../src/crypto/key-pool.js'
import { MemoryKeyStore, SoftSigner } from '../../../src/crypto/soft-signer.js'
import type { Logger } from '../../../src/log.js'
import { silentLogger } from '../../../src/log.js'
import { buildCsr } from '../../../src/objects/csr.js'
import { createIdCert } from '../../../src/protocol/id-cert.js'
import { decodeProvisioning, encodeProvisioning } from '../../../src/protocol/provisioning.js'
import { MessageSigner, unwrapMessage } from '../../../src/protocol/signed-message.js'
import { Db } from '../../../src/store/db.js'
import { createSqlStores } from '../../../src/store/sql-stores.js'
import { createTrustAnchor } from '../../../src/ta/testbed.js'
import { fromBase64, toBase64 } from '../../../src/util/base64.js'

const SVC = 'https://svc.example/'
const WEEK = 7 * 86400

/** Publisher, parent service and scheduler that record what the follow-ups ask of them. */
function recorders(seen: string[], o: { flushed?: () => Promise<void> } = {}): Omit<CaFollowUpsDeps, 'commands' | 'log'> {
  return {
    publisher: { publish: (ca) => void seen.push(`publish ${ca}`), flushed: o.flushed ?? (async () => undefined), nextRepublish: () => 0 },
    parents: {
      syncLater: (ca, p) => void seen.push(`sync-parent ${ca}/${p}`),
      syncAllLater: (ca) => void seen.push(`sync-parents ${ca}`),
      syncLocalChildren: (ca, child) => void seen.push(child === undefined ? `sync-children ${ca}` : `sync-child ${ca}/${child}`),
      scheduleRefresh: (ca, p) => void seen.push(`refresh-parent ${ca}/${p}`),
      forget: (ca, p) => void seen.push(`forget-parent ${ca}/${p}`),
    },
    tasks: { schedule: (kind, ca) => void seen.push(`schedule ${kind} ${ca}`) },
  }
}

/** The real CA commands and RFC 6492 both ways over an in-memory database; `seen` lists what followed. */
async function setup(t: Test) {
  const db = Db.open(':memory:')
  const stores = createSqlStores(db)
  const pool = new KeyPool({ size: 0 })
  t.teardown(async () => {
    await pool.stop()
    db.close()
  })
  const signer = new SoftSigner(new MemoryKeyStore(), pool)
  const clock = { ms: Date.parse('2026-06-01T00:00:00Z') }
  const now = () => new Date(clock.ms)
  const random = (n: number) => new Uint8Array(randomBytes(n))
  const log = silentLogger()
  const commands = new CaCommands({ store: stores.cas, signer, now, random, timing: { childCertValidSeconds: 52 * WEEK, childCertReissueBeforeSeconds: 4 * WEEK } })
  const seen: string[] = []
  new CaFollowUps({ commands, log, ...recorders(seen) })
  const signers = new MessageSigners((idKey, idCert) => new MessageSigner({ idKey: signer.signingKey(idKey), idCert: fromBase64(idCert), newEeKey: () => signer.oneOffKey() }))
  const server = new ChildServer({ commands, signers, now, log, replay: stores.childReplay })
  const client = new ParentClient({
    commands, signers, signer, status: stores.status, now, log, postLimit: 1 << 20, reissueBeforeSeconds: 4 * WEEK,
    post: async () => {
      throw new Error('no network in this test')
    },
    local: (uri, message, senderIdCert) => {
      const ca = uri.slice(`${SVC}rfc6492/`.length)
      return server.local(ca, message, senderIdCert).then((reply) => ({ message: reply, idCert: commands.state(ca).idCert }))
    },
  })

  /** A CA as CaService.create makes one (in the embedded repository; `ta`: the trust anchor). */
  async function createCa(handle: string, ta = false): Promise<void> {
    const idKey = await signer.createKey()
    let state = initialState(handle, idKey, toBase64(createIdCert(signer.signingKey(idKey), now())))
    state.repo = { embedded: true, publisherHandle: handle, serviceUri: `${SVC}rfc8181/${handle}`, siaBase: `rsync://svc.example/repo/${handle}/`, rrdpNotificationUri: `${SVC}rrdp/notification.xml`, serverIdCert: '' }
    if (ta) state = { ...state, ...(await createTrustAnchor(state, signer, SVC, now(), random)) }
    const summary = { label: 'cmd-ca-init', msg: `Initialise CA '${handle}'`, args: { ca: handle } }
    await commands.locked(handle, () => commands.create({ handle, time: now().toISOString(), actor: 'admin-token', kind: 'ca-init', summary, details: { type: 'ca-init', handle }, effect: { result: 'success', events: [] } }, state))
  }

  /** Make `child` a child of `ta` with `ipv4`, and `ta` its parent. */
  async function connect(child: string, ipv4: string): Promise<void> {
    await commands.run('ta', { type: 'child-add', handle: child, idCert: commands.state(child).idCert, resources: { asn: 'AS65000', ipv4, ipv6: '' } })
    await commands.run(child, { type: 'parent-add', parent: { name: 'ta', parentHandle: 'ta', childHandle: child, serviceUri: `${SVC}rfc6492/ta`, idCert: commands.state('ta').idCert } })
  }

  /** The events of a CA's last history entry. */
  const lastEvents = (ca: string): string[] => {
    const last = stores.cas.command(ca, stores.cas.history(ca, { rows: 1, offset: 0, full: true }).total)
    return last?.effect.result === 'success' ? (last.effect.events as CaEvent[]).map((e) => e.type) : []
  }
  return { commands, server, client, signer, signers, now, clock, seen, createCa, connect, lastEvents }
}

/** What a CA's current certificate from its parent holds. */
function certified(s: CaState): string[] {
  return Object.values(s.classes).flatMap((rc) => (rc.current?.cert ? [rc.current.cert.resources.ipv4] : []))
}

t.test('a new CA is published and gets its renewal task; a child added, or a parent, publishes nothing', async (t) => {
  const x = await setup(t)
  await x.createCa('ta', true)
  await x.createCa('ca1')
  t.same(x.seen, ['publish ta', 'schedule republish ta', 'publish ca1', 'schedule republish ca1'])
  x.seen.length = 0
  await x.connect('ca1', '10.0.0.0/16')
  t.same(x.seen, ['sync-parent ca1/ta', 'refresh-parent ca1/ta'], 'the new parent is asked at once and then on its refresh; nothing to publish yet')
})

t.test("a parent's new entitlements are published through the table, and the child in this svcd is told", async (t) => {
  const x = await setup(t)
  await x.createCa('ta', true)
  await x.createCa('ca1')
  await x.connect('ca1', '10.0.0.0/16')
  x.seen.length = 0

  // The sync the parent-added event asked for: entitlements, a certificate request, the certificate.
  await x.client.sync('ca1', 'ta')
  t.same(certified(x.commands.state('ca1')), ['10.0.0.0/16'])
  t.same(x.seen, ['publish ta', 'publish ca1', 'sync-children ca1'], "the parent publishes the child's certificate; the child its objects, and tells its own children")

  // The parent entitles the child to more: the child in this svcd is told at once ...
  x.seen.length = 0
  await x.commands.run('ta', { type: 'child-update', handle: 'ca1', resources: { asn: 'AS65000', ipv4: '10.0.0.0/8', ipv6: '' } })
  t.same(x.seen, ['sync-child ta/ca1'])
  // ... and that sync (the parent service runs it in the background) gets and publishes the new certificate.
  x.seen.length = 0
  await x.client.sync('ca1', 'ta')
  t.same(certified(x.commands.state('ca1')), ['10.0.0.0/8'])
  t.same(x.lastEvents('ca1'), ['certificate-received'])
  t.same(x.seen, ['publish ta', 'publish ca1', 'sync-children ca1'])

  // A sync that changes nothing changes no state and publishes nothing.
  x.seen.length = 0
  await x.client.sync('ca1', 'ta')
  t.same(x.seen, [])
})

t.test('a ROA change is published through the table; an update that changes nothing is not', async (t) => {
  const x = await setup(t)
  await x.createCa('ta', true)
  await x.createCa('ca1')
  await x.connect('ca1', '10.0.0.0/16')
  await x.client.sync('ca1', 'ta')
  x.seen.length = 0

  const r = await x.commands.run('ca1', { type: 'roas-update', added: [{ asn: 65000, prefix: '10.0.0.0/24', max_length: 24 }], removed: [] })
  t.same(r.events.map((e) => e.type), ['roas-updated'])
  await r.followUps
  t.same(x.seen, ['publish ca1'])
  x.seen.length = 0
  const again = await x.commands.run('ca1', { type: 'roas-update', added: [], removed: [] })
  t.same(again.events, [], 'an empty delta: no event')
  t.same(x.seen, [], 'and nothing follows')
})

t.test('a child certificate issued over RFC 6492 (CMS to the server) is published through the table', async (t) => {
  const x = await setup(t)
  await x.createCa('ta', true)
  await x.createCa('ca2')
  await x.connect('ca2', '10.2.0.0/16')
  x.seen.length = 0

  const ca2 = x.commands.state('ca2')
  const keyId = await x.signer.createKey()
  const csr = buildCsr(x.signer.signingKey(keyId), keySia(ca2, '0', keyId))
  const xml = encodeProvisioning({ sender: 'ca2', recipient: 'ta', payload: { type: 'issue', className: '0', csr } })
  const answer = await x.server.rfc6492('ta', await x.signers.of(ca2).sign(xml, x.now()))
  const reply = decodeProvisioning(unwrapMessage(answer, { idCert: fromBase64(x.commands.state('ta').idCert), now: x.now() }).xml)
  t.equal(reply.payload.type, 'issue_response')
  t.same(x.lastEvents('ta'), ['child-certificate-issued'])
  t.same(x.seen, ['publish ta'], 'the server only answers; the event publishes the certificate')
})

t.test('parent syncs that come with a publication start once it is done; the caller can wait for it', async (t) => {
  const seen: string[] = []
  let publicationDone!: () => void
  const publication = new Promise<void>((resolve) => (publicationDone = resolve))
  const errors: string[] = []
  const log = { ...silentLogger(), error: (msg: string, f?: Record<string, unknown>) => void errors.push(`${msg}: ${String(f?.follow_up)} ${String(f?.err)}`) } as Logger
  const deps = recorders(seen, { flushed: () => publication.then(() => void seen.push('published')) })
  const followUps = new CaFollowUps({ commands: { follow: () => undefined }, log, ...deps })
  const state: CaState = { ...initialState('ca1', 'K', ''), parents: {} }
  const repo: RepoInfo = { embedded: false, publisherHandle: 'ca1', serviceUri: 'https://repo.example/rfc8181/ca1', siaBase: 'rsync://repo.example/ca1/', rrdpNotificationUri: '', serverIdCert: '' }

  let done = false
  const followed = followUps.changed('ca1', [{ type: 'repo-updated', repo }], state).then(() => (done = true))
  let idle = false
  const waited = followUps.idle().then(() => (idle = true))
  await new Promise((resolve) => setImmediate(resolve))
  t.same(seen, ['publish ca1'], 'published first; the parents are not asked yet')
  t.notOk(done || idle, 'the caller and idle() wait for the publication')
  publicationDone()
  await followed
  await waited
  t.same(seen, ['publish ca1', 'published', 'sync-parents ca1'], 'then the parents re-certify the new SIA (spec §3 rule 1)')

  // A follow-up that fails is logged; the others still happen, and the caller is not failed by it.
  seen.length = 0
  deps.parents.syncLocalChildren = () => {
    throw new Error('store unavailable')
  }
  await followUps.changed('ca1', [{ type: 'certificate-received', className: '0', keyId: 'K', cert: { der: '', uri: '', resources: { asn: '', ipv4: '', ipv6: '' }, notBefore: '', notAfter: '' } }], state)
  t.same(seen, ['publish ca1', 'published'])
  t.same(errors, ['a follow-up of a CA change failed: sync-children store unavailable'])
})

t.test('the commands have one listener; a refused command has no follow-ups', async (t) => {
  const x = await setup(t)
  t.throws(() => x.commands.follow({ changed: async () => undefined, created: async () => undefined }), /already have their follow-ups/)
  await x.createCa('ca1')
  x.seen.length = 0
  const refused = await x.commands.run('ca1', { type: 'roas-update', added: [{ asn: 65000, prefix: '10.0.0.0/24', max_length: 24 }], removed: [] }).catch((e: unknown) => e)
  t.match(refused, { label: 'ca-roa-delta-error' }, 'ca1 holds no resources')
  t.same(x.seen, [], 'nothing follows an error (it is in the history, the CA is unchanged)')
})

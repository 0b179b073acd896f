/**
 * Who work is done for (app/shared/acting.ts): concurrent requests as different actors never mix; a timer, pacer run
 * or scheduled task armed during a request runs as svcd (`svc`), not as the request's user (AsyncLocalStorage would
 * carry the user into it); a CA command names its actor (id, provider, token) in the history and in the audit trail,
 * written in the same transaction, while the follow-ups of that command run as svcd. Real parts: the real CaCommands
 * over the real SQLite stores, the real AuditService, Pacer and Scheduler on the system clock.
 */
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { AuditService } from '../../../src/app/access/audit-service.js'
import { CaCommands } from '../../../src/app/ca/ca-commands.js'
import { commandAudit } from '../../../src/app/ca/command-audit.js'
import { actingAs, currentActor, detached, SYSTEM_ACTOR, type ActingAs } from '../../../src/app/shared/acting.js'
import { Pacer } from '../../../src/app/shared/pacer.js'
import { Scheduler } from '../../../src/app/shared/scheduler.js'
import { initialState } from '../../../src/ca/cert-auth.js'
import { systemClock } from '../../../src/clock.js'
import { KeyPool } from '../../../src/crypto/key-pool.js'
import { MemoryKeyStore, SoftSigner } from '../../../src/crypto/soft-signer.js'
import { silentLogger } from '../../../src/log.js'
import { createIdCert } from '../../../src/protocol/id-cert.js'
import { Db } from '../../../src/store/db.js'
import { createSqlStores } from '../../../src/store/sql-stores.js'
import { toBase64 } from '../../../src/util/base64.js'

const JOE: ActingAs = { id: 'joe@example.com', provider: 'config-file', source: '192.0.2.7' }
const ANN: ActingAs = { id: 'ann', provider: 'api-token', token: 'deploy', source: '192.0.2.8' }

t.test('two concurrent requests as different actors never mix', async (t) => {
  const seen: Record<string, string[]> = { joe: [], ann: [] }
  const request = (who: ActingAs, key: string) =>
    actingAs(who, async () => {
      for (let i = 0; i < 20; i++) {
        seen[key]!.push(currentActor().id)
        await nextTurn() // let the other request run in between
        await Promise.resolve()
      }
    })
  await Promise.all([request(JOE, 'joe'), request(ANN, 'ann')])
  t.same(new Set(seen.joe), new Set([JOE.id]), "joe's request only ever saw joe")
  t.same(new Set(seen.ann), new Set([ANN.id]), "ann's request only ever saw ann")
  t.equal(seen.joe!.length + seen.ann!.length, 40, 'both ran all their steps')
  t.same(currentActor(), SYSTEM_ACTOR, 'outside any request: svcd')
})

t.test('a timer armed in a request carries its user unless detached', async (t) => {
  // The hazard itself: a plain timer armed during a request runs as that request's user.
  const plain = await actingAs(JOE, () => new Promise<string>((resolve) => systemClock.setTimeout(() => resolve(currentActor().id), 0)))
  t.equal(plain, JOE.id, 'AsyncLocalStorage follows a plain timer (why long-lived work is detached)')
  const fixed = await actingAs(JOE, () => new Promise<string>((resolve) => systemClock.setTimeout(() => detached(() => resolve(currentActor().id)), 0)))
  t.equal(fixed, SYSTEM_ACTOR.id, 'detached: svcd')
  t.equal(actingAs(JOE, () => detached(() => currentActor()).provider), 'svc', 'detached inside a request is svcd at once')
})

t.test('a pacer kicked during a request runs as svc', async (t) => {
  const ran: string[] = []
  const pacer = new Pacer(async () => void ran.push(currentActor().id), 0, (e) => t.fail(String(e)), systemClock)
  t.teardown(() => pacer.stop())
  actingAs(JOE, () => pacer.kick())
  await pacer.idle()
  await actingAs(ANN, () => pacer.flush()) // a request that waits for the run: the run is still svcd's
  actingAs(ANN, () => pacer.kick())
  await actingAs(ANN, () => pacer.flush())
  t.same(ran, [SYSTEM_ACTOR.id, SYSTEM_ACTOR.id], 'every run as svc, whoever kicked or waited')
})

t.test('a task scheduled during a request runs as svc', async (t) => {
  const db = Db.open(':memory:')
  const stores = createSqlStores(db)
  let resolveRan: (id: string) => void = () => undefined
  const ran = new Promise<string>((resolve) => (resolveRan = resolve))
  const scheduler = new Scheduler({ tasks: stores.tasks, clock: systemClock, log: silentLogger(), retry: { firstMs: 1000, maxMs: 1000 }, run: async () => (resolveRan(currentActor().id), undefined) })
  t.teardown(async () => {
    await scheduler.stop()
    db.close()
  })
  // The scheduler's timers do not keep the process alive (background): this one does, until the task ran.
  const keepAlive = systemClock.setTimeout(() => t.fail('the task never ran'), 60_000)
  scheduler.start()
  actingAs(JOE, () => scheduler.schedule('republish', 'ca1', '', systemClock.now()))
  t.equal(await ran, SYSTEM_ACTOR.id, 'the scheduled task ran as svc')
  systemClock.clear(keepAlive)
})

t.test("a CA command names its actor in history and audit (one transaction); its follow-ups are svcd's", async (t) => {
  const db = Db.open(':memory:')
  const stores = createSqlStores(db)
  const pool = new KeyPool({ size: 0 })
  t.teardown(async () => {
    await pool.stop()
    db.close()
  })
  const signer = new SoftSigner(new MemoryKeyStore(), pool)
  const now = () => new Date(Date.parse('2026-06-01T00:00:00Z'))
  const commands = new CaCommands({ store: stores.cas, signer, now, random: (n) => new Uint8Array(randomBytes(n)), transaction: stores.transaction, timing: { childCertValidSeconds: 86400, childCertReissueBeforeSeconds: 3600 } })
  const audit = new AuditService({ store: stores.audit, clock: systemClock })
  let failAudit = false
  const record = commandAudit(audit)
  commands.audited((cmd, seq) => {
    if (failAudit) throw new Error('audit store down')
    record(cmd, seq)
  })
  const followedAs: string[] = []
  commands.follow({ changed: async () => void followedAs.push(currentActor().id), created: async () => void followedAs.push(currentActor().id) })

  const idKey = await signer.createKey()
  const state = initialState('ca1', idKey, toBase64(createIdCert(signer.signingKey(idKey), now())))
  const summary = { label: 'cmd-ca-init', msg: "Initialise CA 'ca1'", args: { ca: 'ca1' } }
  const admin: ActingAs = { id: 'admin-token', provider: 'admin-token', source: '127.0.0.1' }
  await actingAs(admin, () => commands.locked('ca1', () => commands.create({ handle: 'ca1', time: now().toISOString(), actor: 'admin-token', provider: 'admin-token', kind: 'ca-init', summary, details: { type: 'ca-init', handle: 'ca1' }, effect: { result: 'success', events: [] } }, state)))

  const parent = { name: 'p', parentHandle: 'p', childHandle: 'ca1', serviceUri: 'https://svc.example/rfc6492/p', idCert: state.idCert }
  const r = await actingAs(JOE, () => commands.run('ca1', { type: 'parent-add', parent }))
  await r.followUps
  await t.rejects(actingAs(ANN, () => commands.run('ca1', { type: 'roas-update', added: [{ asn: 65000, prefix: '10.0.0.0/24', max_length: 24 }], removed: [] })), 'a ROA outside the resources is refused')
  await commands.run('ca1', { type: 'parent-remove', name: 'p' }, 'svc')

  const history = stores.cas.history('ca1', { rows: 10, offset: 0, full: false }).records
  t.same(history.map((h) => [h.kind, h.actor, h.provider, h.token]), [
    ['ca-init', 'admin-token', 'admin-token', undefined],
    ['parent-add', JOE.id, 'config-file', undefined],
    ['roas-update', ANN.id, 'api-token', 'deploy'],
    ['parent-remove', 'svc', 'svc', undefined],
  ], 'history: id, provider and token of each actor')
  t.same(followedAs, ['svc', 'svc', 'svc'], "the follow-ups of a new CA and of joe's command ran as svc")

  const rows = audit.list({ offset: 0, limit: 10, order: 'asc' }).records
  t.same(rows.map((a) => [a.kind, a.ca, a.actor, a.provider, a.token, a.success, a.source]), [
    ['ca-init', 'ca1', 'admin-token', 'admin-token', undefined, true, '127.0.0.1'],
    ['parent-add', 'ca1', JOE.id, 'config-file', undefined, true, JOE.source],
    ['roas-update', 'ca1', ANN.id, 'api-token', 'deploy', false, ANN.source],
    ['parent-remove', 'ca1', 'svc', 'svc', undefined, true, undefined],
  ], 'audit: the same actors, successes and failures, with the source of the request')
  t.same(rows[2]!.details.args, { added: '1', removed: '0' }, 'a ROA update carries its counts')
  t.match(rows[2]!.details, { label: 'roas-updated', version: 3, error: { label: String } }, 'and the error of a refusal')

  // Same transaction: an audit that fails takes the history entry with it.
  failAudit = true
  await t.rejects(actingAs(JOE, () => commands.run('ca1', { type: 'parent-add', parent })), /audit store down/)
  t.equal(stores.cas.history('ca1', { rows: 10, offset: 0, full: false }).total, 4, 'no history entry without its audit record')
  t.same(Object.keys(commands.state('ca1').parents), [], 'and no change')
  failAudit = false

  await actingAs(JOE, () => commands.locked('ca1', () => commands.remove('ca1')))
  const last = audit.list({ offset: 0, limit: 1, order: 'desc' }).records[0]!
  t.match(last, { kind: 'ca-delete', ca: 'ca1', actor: JOE.id, provider: 'config-file', success: true, source: JOE.source }, 'a CA deleted is audited with its actor')
})

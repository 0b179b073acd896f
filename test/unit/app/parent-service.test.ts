/**
 * Parents of CAs (app/ca/parent-service.ts) with fakes for exactly its collaborators: a parent is added only after a
 * real RFC 6492 list answered (nothing changes otherwise), removal asks for revocation first, background syncs
 * coalesce, a change reaches only the children in this svcd that are children of the changed CA, and refreshes are
 * due after the interval plus a jitter drawn from the injected randomness. (What follows the parent commands, a sync
 * and a refresh task, is the events' doing: follow-ups.test.ts.)
 */
import t from 'tap'
import { waitFor } from '../../helpers/wait.js'
import { fakeCommands } from '../../helpers/fake-commands.js'
import { FakeRandom } from '../../helpers/fake-clock.js'
import type { ParentServiceDeps } from '../../../src/app/ca/parent-service.js'
import { ParentService } from '../../../src/app/ca/parent-service.js'
import { parentResponseJson } from '../../../src/api/cas.js'
import { initialState } from '../../../src/ca/cert-auth.js'
import type { CaCommand } from '../../../src/ca/commands.js'
import type { CaState, ParentInfo } from '../../../src/ca/state.js'
import { systemClock } from '../../../src/clock.js'
import { KeyPool } from '../../../src/crypto/key-pool.js'
import { MemoryKeyStore, SoftSigner } from '../../../src/crypto/soft-signer.js'
import { createIdCert } from '../../../src/protocol/id-cert.js'

const NOW = new Date('2026-06-01T00:00:00Z')
const SVC = 'https://svc.example/'

async function idCert(): Promise<Uint8Array> {
  const signer = new SoftSigner(new MemoryKeyStore(), new KeyPool({ size: 0 }))
  return createIdCert(signer.signingKey(await signer.createKey()), NOW)
}

const local = (ca: string, parentCa: string, childHandle = ca): ParentInfo => ({ name: parentCa, parentHandle: parentCa, childHandle, serviceUri: `${SVC}rfc6492/${parentCa}`, idCert: '' })

function fakes(cas: Record<string, CaState>, o: { listFails?: boolean; jitter?: number[]; sync?: (ca: string, parent: string) => Promise<void>; concurrency?: number } = {}) {
  const log: string[] = []
  const deps: ParentServiceDeps = {
    commands: { ...fakeCommands(cas), run: async (h: string, cmd: CaCommand) => (log.push(`run ${h} ${cmd.type}`), { state: cas[h]!, events: [], version: 1, followUps: Promise.resolve() }) },
    client: {
      updown: async (_s, p, payload) => {
        log.push(`updown ${p.name} ${payload.type}`)
        if (o.listFails) throw new Error('connection refused')
        return { type: 'list_response', classes: [] }
      },
      sync: async (h, p) => (log.push(`sync ${h}/${p}`), o.sync?.(h, p)),
      revokeAll: async (h, p) => void log.push(`revoke ${h}/${p}`),
    },
    status: { get: () => undefined, remove: (h, kind, name) => void log.push(`status-remove ${h} ${kind} ${name}`) },
    tasks: {
      schedule: (kind, ca, arg, due) => void log.push(`schedule ${kind} ${ca}/${arg} +${due - NOW.getTime()}`),
      unschedule: (kind, ca, arg) => void log.push(`unschedule ${kind} ${ca}/${arg}`),
    },
    now: () => NOW,
    random: new FakeRandom(o.jitter ?? [0.5]),
    refresh: { everySeconds: 3600, jitterSeconds: 600 },
    clock: systemClock, // the sync pacer's timers (the service reads `now` for its decisions)
    serviceUri: SVC,
    ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
  }
  return { parents: new ParentService(deps), log }
}

t.test('a parent is added only after its RFC 6492 list answered; a failed list changes nothing', async (t) => {
  const response = parentResponseJson({ parentHandle: 'rir', childHandle: 'ca1', serviceUri: 'https://rir.example/rfc6492/rir', idCert: await idCert() })
  const down = fakes({ ca1: initialState('ca1', 'K', '') }, { listFails: true })
  t.match(await down.parents.caParentAdd('ca1', { json: { handle: 'rir', response } }).catch((e: unknown) => e), { label: 'ca-parent-issue', args: { ca: 'ca1', parent: 'rir' } })
  t.same(down.log, ['updown rir list'], 'no command, no task')

  const up = fakes({ ca1: initialState('ca1', 'K', '') })
  await up.parents.caParentAdd('ca1', { json: { handle: 'rir', response } })
  await up.parents.idle()
  t.same(up.log, ['updown rir list', 'run ca1 parent-add'], 'the sync and the refresh task follow from the parent-added event')
  await up.parents.stop()
})

t.test('a named add (POST …/parents/{name}) adds a parent that does not exist yet and updates one that does (Krill)', async (t) => {
  const response = parentResponseJson({ parentHandle: 'rir', childHandle: 'ca1', serviceUri: 'https://rir.example/rfc6492/rir', idCert: await idCert() })
  const fresh = fakes({ ca1: initialState('ca1', 'K', '') })
  await fresh.parents.caParentAdd('ca1', { json: { handle: 'rir', response } }, { name: 'rir' })
  t.same(fresh.log.slice(0, 2), ['updown rir list', 'run ca1 parent-add'], 'a new name is added')
  await fresh.parents.stop()

  const known = fakes({ ca1: { ...initialState('ca1', 'K', ''), parents: { rir: local('ca1', 'rir') } } })
  await known.parents.caParentAdd('ca1', { json: { handle: 'rir', response } }, { name: 'rir' })
  t.same(known.log.slice(0, 2), ['updown rir list', 'run ca1 parent-update'], 'a known name is updated')
  await known.parents.stop()

  const unnamed = fakes({ ca1: { ...initialState('ca1', 'K', ''), parents: { rir: local('ca1', 'rir') } } })
  await unnamed.parents.caParentAdd('ca1', { json: { handle: 'rir', response } })
  t.same(unnamed.log.slice(0, 2), ['updown rir list', 'run ca1 parent-add'], 'POST …/parents stays an add (the domain refuses a duplicate)')
  await unnamed.parents.stop()

  const mismatch = fakes({ ca1: initialState('ca1', 'K', '') })
  t.match(await mismatch.parents.caParentAdd('ca1', { json: { handle: 'rir', response } }, { name: 'other' }).catch((e: unknown) => e), { label: 'api-invalid-body' }, 'names on path and body must match')
  t.same(mismatch.log, [], 'and nothing is asked or changed')
})

t.test('removing a parent asks it to revoke first, then removes it (its status and task go as the event says)', async (t) => {
  const { parents, log } = fakes({ ca1: { ...initialState('ca1', 'K', ''), parents: { rir: local('ca1', 'rir') } } })
  await parents.caParentRemove('ca1', 'rir')
  t.same(log, ['revoke ca1/rir', 'run ca1 parent-remove'])
  t.match(await parents.caParentRemove('ca1', 'rir-typo').catch((e: unknown) => e), { label: 'ca-parent-unknown' })
  log.length = 0
  parents.forget('ca1', 'rir')
  t.same(log, ['status-remove ca1 parent rir', 'unschedule sync-parent ca1/rir'], "forget: the parent's status and refresh task")
})

t.test('refreshes: the interval plus a jitter from the injected randomness; at start within a minute', async (t) => {
  const { parents, log } = fakes({ ca1: initialState('ca1', 'K', '') }, { jitter: [0, 0.5, 0.999] })
  t.equal(parents.refreshDelay(false), 3600_000, 'no jitter drawn: the interval')
  t.equal(parents.refreshDelay(false), 3600_000 + 300_000, 'half the jitter')
  t.equal(parents.refreshDelay(true), 60_000, 'at start: the jitter, at most a minute (599 s drawn)')
  t.equal(parents.refreshDelay(true), 0, 'and from 0')
  parents.scheduleRefresh('ca1', 'rir')
  t.same(log, ['schedule sync-parent ca1/rir +3900000'], 'a new parent is next asked after the interval with jitter')
})

t.test('a change of a CA reaches its children in this svcd only (all of them, or the one named)', async (t) => {
  const cas = {
    testbed: { ...initialState('testbed', 'K', ''), children: { ca1: {} as never, ca2: {} as never } },
    ca1: { ...initialState('ca1', 'K', ''), parents: { testbed: local('ca1', 'testbed') } },
    ca2: { ...initialState('ca2', 'K', ''), parents: { up: { ...local('ca2', 'testbed'), name: 'up' } } }, // its own name for the parent
    other: { ...initialState('other', 'K', ''), parents: { elsewhere: local('other', 'nottestbed') } },
    stale: { ...initialState('stale', 'K', ''), parents: { testbed: local('stale', 'testbed') } }, // no longer testbed's child
  }
  const all = fakes(cas)
  all.parents.syncLocalChildren('testbed')
  await all.parents.idle()
  t.same(all.log.sort(), ['sync ca1/testbed', 'sync ca2/up'])
  await all.parents.stop()

  const one = fakes(cas)
  one.parents.syncLocalChildren('testbed', 'ca2')
  await one.parents.idle()
  t.same(one.log, ['sync ca2/up'])
  await one.parents.stop()
})

t.test('background syncs with one parent coalesce; after stop none start', async (t) => {
  const { parents, log } = fakes({ ca1: { ...initialState('ca1', 'K', ''), parents: { rir: local('ca1', 'rir') } } })
  for (let i = 0; i < 5; i++) parents.syncLater('ca1', 'rir')
  await parents.idle()
  t.ok(log.length >= 1 && log.length <= 2, `5 requests, ${log.length} syncs`)
  await parents.stop()
  parents.syncLater('ca1', 'rir')
  await parents.idle()
  t.ok(log.length <= 2, 'none after stop')
})

/** A parent that accepts and never answers until the test lets it (its request timeout, in the real client). */
function hanging() {
  const release: (() => void)[] = []
  return { wait: () => new Promise<void>((resolve) => release.push(resolve)), release: () => release.splice(0).map((r) => r()).length }
}

t.test('issue 28 §4: sync with all parents: one that never answers does not hold up the others', async (t) => {
  const names = ['p1', 'dead', 'p2', 'p3']
  const cas = { ca1: { ...initialState('ca1', 'K', ''), parents: Object.fromEntries(names.map((n) => [n, local('ca1', n)])) } }
  const dead = hanging()
  const done: string[] = []
  const { parents } = fakes(cas, { sync: async (_h, p) => (p === 'dead' ? dead.wait() : void done.push(p)) })
  const all = parents.caSyncParents('ca1')
  await waitFor('the live parents synced', () => done.length === 3)
  t.same(done.sort(), ['p1', 'p2', 'p3'], 'the parents after the dead one synced while it still hangs')
  dead.release()
  await all
  await parents.stop()
})

t.test('issue 28 §4: parent syncs run at most `concurrency` at once, whoever asks (refresh, background, scheduler)', async (t) => {
  const names = Array.from({ length: 12 }, (_, i) => `p${i}`)
  const cas = { ca1: { ...initialState('ca1', 'K', ''), parents: Object.fromEntries(names.map((n) => [n, local('ca1', n)])) } }
  let running = 0
  let most = 0
  const { parents, log } = fakes(cas, { concurrency: 3, sync: async () => {
    most = Math.max(most, ++running)
    await new Promise((resolve) => setImmediate(resolve)) // a turn of the event loop: the others get to start meanwhile
    running--
  } })
  const all = parents.caSyncParents('ca1')
  parents.syncAllLater('ca1')
  const scheduled = parents.sync('ca1', 'p0')
  await Promise.all([all, scheduled])
  await parents.idle()
  t.equal(most, 3, `never more than 3 at once (${log.length} syncs)`)
  await parents.stop()
})

t.test('issue 28 §4: one sync per parent at a time: asked again meanwhile, it runs once more after, in one slot', async (t) => {
  const cas = { ca1: { ...initialState('ca1', 'K', ''), parents: { dead: local('ca1', 'dead'), live: local('ca1', 'live') } } }
  const dead = hanging()
  const { parents, log } = fakes(cas, { concurrency: 2, sync: async (_h, p) => (p === 'dead' ? dead.wait() : undefined) })
  const first = parents.sync('ca1', 'dead')
  const again = [parents.sync('ca1', 'dead'), parents.sync('ca1', 'dead'), parents.sync('ca1', 'dead')]
  await parents.sync('ca1', 'live')
  await parents.sync('ca1', 'live')
  t.same(log, ['sync ca1/dead', 'sync ca1/live', 'sync ca1/live'], 'the hung parent took one slot; the other parent runs in the second, twice')
  dead.release()
  await first
  await waitFor('the coalesced sync of the hung parent', () => log.filter((l) => l === 'sync ca1/dead').length === 2)
  dead.release()
  await Promise.all(again)
  t.equal(log.filter((l) => l === 'sync ca1/dead').length, 2, 'three requests meanwhile: one more sync')
  await parents.stop()
})

t.test('issue 28 §4: syncs still waiting for a slot when the service stops do not start', async (t) => {
  const names = ['p0', 'p1', 'p2', 'p3']
  const cas = { ca1: { ...initialState('ca1', 'K', ''), parents: Object.fromEntries(names.map((n) => [n, local('ca1', n)])) } }
  const gate = hanging()
  const { parents, log } = fakes(cas, { concurrency: 1, sync: () => gate.wait() })
  parents.syncAllLater('ca1')
  await waitFor('the first sync started', () => log.length === 1)
  const stopped = parents.stop()
  gate.release()
  await stopped
  t.same(log, ['sync ca1/p0'], 'only the one running finished; the three waiting did not start')
})

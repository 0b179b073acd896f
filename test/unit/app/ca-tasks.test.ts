/**
 * The CA side of timed work (app/ca/ca-tasks.ts) with fakes for exactly its collaborators: what a 'republish' and a
 * 'sync-parent' task do and when they are next due, and the tasks every CA gets at start (resume).
 */
import t from 'tap'
import { fakeCommands } from '../../helpers/fake-commands.js'
import { CaTasks, type CaTasksDeps } from '../../../src/app/ca/ca-tasks.js'
import { initialState } from '../../../src/ca/cert-auth.js'
import type { CaState, ParentInfo } from '../../../src/ca/state.js'
import type { Task } from '../../../src/store/interfaces.js'

const T0 = Date.parse('2026-06-01T00:00:00Z')
const parent = (name: string): ParentInfo => ({ name, parentHandle: name, childHandle: 'ca1', serviceUri: `https://p.example/rfc6492/${name}`, idCert: '' })

function fakes(o: { cas?: Record<string, CaState>; repoFailure?: string } = {}) {
  const cas = o.cas ?? { ca1: { ...initialState('ca1', 'K', ''), parents: { p1: parent('p1') } } }
  const calls: string[] = []
  const scheduled: { kind: string; ca: string; arg: string; due: number; earlier?: boolean; ifMissing?: boolean; inTx: boolean }[] = []
  let inTx = false
  const deps: CaTasksDeps = {
    commands: fakeCommands(cas),
    publisher: {
      publishNow: async (h) => void calls.push(`publish ${h}`),
      nextRepublish: (h) => (calls.push(`next ${h}`), T0 + 3_600_000),
    },
    parents: { sync: async (h, p) => void calls.push(`sync ${h}/${p}`), refreshDelay: (atStart) => (atStart ? 30_000 : 86_400_000) },
    tasks: { schedule: (kind, ca, arg, due, opts) => void scheduled.push({ kind, ca, arg, due, earlier: opts?.earlier, ...(opts?.ifMissing ? { ifMissing: true } : {}), inTx }) },
    repoFailure: () => o.repoFailure,
    now: () => new Date(T0),
    transaction: (fn) => {
      inTx = true
      try {
        return fn()
      } finally {
        inTx = false
      }
    },
  }
  return { tasks: new CaTasks(deps), calls, scheduled }
}

const task = (kind: Task['kind'], ca: string, arg = ''): Task => ({ key: `${kind}:${ca}`, kind, ca, arg, due: T0, attempts: 0 })

t.test('republish: objects and repository brought up to date, next due when the CA says', async (t) => {
  const { tasks, calls } = fakes()
  t.equal(await tasks.run(task('republish', 'ca1')), T0 + 3_600_000)
  t.same(calls, ['publish ca1', 'next ca1'])
})

t.test('republish whose repository sync failed throws, so the scheduler retries it with back-off', async (t) => {
  const { tasks, calls } = fakes({ repoFailure: 'connection refused' })
  await t.rejects(tasks.run(task('republish', 'ca1')), /repository sync failed: connection refused/)
  t.same(calls, ['publish ca1'], 'no next due time is computed for a failure')
})

t.test('sync-parent: syncs, then next due after the refresh interval; a removed parent or CA drops the task', async (t) => {
  const { tasks, calls } = fakes()
  t.equal(await tasks.run(task('sync-parent', 'ca1', 'p1')), T0 + 86_400_000)
  t.same(calls, ['sync ca1/p1'])
  t.equal(await tasks.run(task('sync-parent', 'ca1', 'gone')), undefined, 'the parent was removed')
  t.equal(await tasks.run(task('republish', 'deleted')), undefined, 'the CA was deleted')
  t.same(calls, ['sync ca1/p1'], 'nothing else ran')
})

t.test('resume: every CA keeps its republish (created due now when missing) and gets a sync per parent within the start-up jitter, in one transaction', async (t) => {
  const cas = {
    ca1: { ...initialState('ca1', 'K', ''), parents: { p1: parent('p1'), p2: parent('p2') } },
    ca2: initialState('ca2', 'K', ''),
  }
  const { tasks, scheduled } = fakes({ cas })
  tasks.resume()
  t.same(scheduled, [
    { kind: 'republish', ca: 'ca1', arg: '', due: T0, ifMissing: true, inTx: true },
    { kind: 'sync-parent', ca: 'ca1', arg: 'p1', due: T0 + 30_000, earlier: true, inTx: true },
    { kind: 'sync-parent', ca: 'ca1', arg: 'p2', due: T0 + 30_000, earlier: true, inTx: true },
    { kind: 'republish', ca: 'ca2', arg: '', due: T0, ifMissing: true, inTx: true },
  ], 'a start with 10,000 CAs does not republish them all (issue 28): renewals due while stopped are overdue, so run at once')
})

t.test('resume: a CA whose repository sync failed, or every CA with republishAll (a signer back), republishes now', async (t) => {
  const cas = { ca1: initialState('ca1', 'K', '') }
  const failing = fakes({ cas, repoFailure: 'connection refused' })
  failing.tasks.resume()
  t.same(failing.scheduled, [{ kind: 'republish', ca: 'ca1', arg: '', due: T0, earlier: true, inTx: true }])
  const all = fakes({ cas })
  all.tasks.resume({ republishAll: true })
  t.same(all.scheduled, [{ kind: 'republish', ca: 'ca1', arg: '', due: T0, earlier: true, inTx: true }])
})

/**
 * Publication quotas (pubd/quota.ts, issue 22): from the usage before a message and the changes it makes, whether
 * a publisher, the self-service publishers together or the whole server would exceed a limit; shrinking is always
 * allowed; the RFC 8181 code of a refusal is other_error.
 */
import t from 'tap'
import { createHash } from 'node:crypto'
import { planDelta } from '../../../src/pubd/content.js'
import { limitsFor, messageLimit, quotaProblems, usageDelta, type QuotaSettings, type QuotaUsage } from '../../../src/pubd/quota.js'
import type { PublishPdu, WithdrawPdu } from '../../../src/protocol/publication.js'

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const jail = 'rsync://localhost:3873/repo/pub1/'
const blob = (n: number, fill = 1) => new Uint8Array(n).fill(fill)
const settings: QuotaSettings = {
  publisher: { objects: 10, bytes: 10_000, objectBytes: 4_000 },
  total: { objects: 100, bytes: 100_000 },
  selfService: { objects: 3, bytes: 3_000, objectBytes: 1_500 },
  selfServiceTotal: { objects: 5, bytes: 5_000 },
}

/** The plan and the quota verdict for `pdus` against objects held (URI → content) and the usage around them. */
function verdict(held: Map<string, Uint8Array>, pdus: (PublishPdu | WithdrawPdu)[], others: { total?: QuotaUsage['total']; selfService?: QuotaUsage['selfService'] } = {}, selfService = false) {
  const hashOf = new Map([...held].map(([u, c]) => [u, sha(c)]))
  const plan = planDelta(pdus, jail, { hash: (u) => hashOf.get(u), under: () => [] }, sha)
  if (!plan.ok) throw new Error('the plan failed: ' + JSON.stringify(plan.errors))
  const mine = { objects: held.size, bytes: [...held.values()].reduce((n, c) => n + c.length, 0) }
  let read = 0
  const used = (): QuotaUsage => {
    read++
    return { publisher: mine, total: others.total ?? mine, ...(selfService ? { selfService: others.selfService ?? mine } : {}) }
  }
  const delta = usageDelta(plan.changes, (u) => held.get(u)!.length)
  return { delta, errors: quotaProblems('pub1', pdus, delta, used, limitsFor(settings, selfService)), read: () => read }
}

const publish = (name: string, content: Uint8Array, previous?: Uint8Array): PublishPdu => ({ type: 'publish', uri: jail + name, content, ...(previous ? { hash: sha(previous) } : {}) })
const withdraw = (name: string, previous: Uint8Array): WithdrawPdu => ({ type: 'withdraw', uri: jail + name, hash: sha(previous) })

t.test('usageDelta: new objects add, replacements add the difference, withdrawals subtract', async (t) => {
  const held = new Map([[jail + 'a.roa', blob(100)], [jail + 'b.roa', blob(300)]])
  const v = verdict(held, [publish('c.roa', blob(50)), publish('a.roa', blob(250, 2), blob(100)), withdraw('b.roa', blob(300))])
  t.same(v.delta, { objects: 0, bytes: 50 + 150 - 300 })
  t.same(v.errors, [])
})

t.test('a publisher: objects, bytes and the largest object are each a limit; the refusal is other_error and names it', async (t) => {
  const nine = new Map(Array.from({ length: 9 }, (_, i) => [jail + `o${i}.roa`, blob(100)] as const))
  t.same(verdict(nine, [publish('x.roa', blob(100))]).errors, [], 'the 10th object fits')
  const objects = verdict(nine, [publish('x.roa', blob(100)), publish('y.roa', blob(100))]).errors
  t.equal(objects.length, 1)
  t.equal(objects[0]!.code, 'other_error')
  t.match(objects[0]!.text, /publisher 'pub1' would hold 11 objects, more than its quota of 10; nothing was changed/)
  const bytes = verdict(new Map(), [publish('a.roa', blob(3_000)), publish('b.roa', blob(3_000)), publish('c.roa', blob(3_000)), publish('d.roa', blob(3_000))]).errors
  t.match(bytes.map((e) => e.text), [/would hold 12000 bytes, more than its quota of 10000/])
  const big = publish('big.roa', blob(4_001))
  const large = verdict(new Map(), [big]).errors
  t.equal(large.length, 1)
  t.match(large[0]!.text, /has 4001 bytes, more than the quota of 4000 bytes for one object of publisher 'pub1'/)
  t.equal(large[0]!.failedPdu, big, 'the oversized PDU is named (RFC 8181 §2.5 failed_pdu)')
})

t.test('over a quota already (lowered), a message that does not grow the usage passes; one that grows it does not', async (t) => {
  const over = new Map(Array.from({ length: 12 }, (_, i) => [jail + `o${i}.roa`, blob(1_000)] as const))
  t.same(verdict(over, [withdraw('o0.roa', blob(1_000))]).errors, [], 'a withdrawal passes')
  t.same(verdict(over, [publish('o1.roa', blob(900, 2), blob(1_000))]).errors, [], 'a smaller replacement passes')
  t.equal(verdict(over, [publish('o1.roa', blob(900, 2), blob(1_000))]).read(), 0, 'and the usage is not even read')
  t.match(verdict(over, [publish('o1.roa', blob(1_100, 2), blob(1_000))]).errors.map((e) => e.text), [/would hold 12100 bytes/], 'a larger one does not')
  t.match(verdict(over, [withdraw('o0.roa', blob(1_000)), publish('n1.roa', blob(10)), publish('n2.roa', blob(10))]).errors.map((e) => e.text), [/would hold 13 objects/])
})

t.test('the whole server and the self-service publishers together are limits too', async (t) => {
  const total = verdict(new Map(), [publish('a.roa', blob(1_000))], { total: { objects: 50, bytes: 99_500 } }).errors
  t.match(total.map((e) => e.text), [/the publication server would hold 100500 bytes, more than its quota of 100000/])
  const ss = verdict(new Map(), [publish('a.roa', blob(1_000))], { selfService: { objects: 2, bytes: 4_500 } }, true).errors
  t.match(ss.map((e) => e.text), [/the self-service publishers together would hold 5500 bytes, more than its quota of 5000/])
  t.same(verdict(new Map(), [publish('a.roa', blob(1_000))], { selfService: { objects: 2, bytes: 4_500 } }, false).errors, [], 'an operator-added publisher is not counted against the self-service quota')
  const selfLarge = verdict(new Map(), [publish('a.roa', blob(1_501))], {}, true).errors
  t.match(selfLarge.map((e) => e.text), [/more than the quota of 1500 bytes for one object/], 'a self-service publisher has its own, smaller, limits')
})

t.test('the most bytes of a message worth reading follow the quota: far below 32 MiB for a self-service publisher', async (t) => {
  t.equal(messageLimit({ objects: 100, bytes: 1024 * 1024, objectBytes: 256 * 1024 }), Math.ceil((1024 * 1024 * 4) / 3) + 100 * 1024 + 64 * 1024)
  t.ok(messageLimit({ objects: 100, bytes: 1024 * 1024, objectBytes: 256 * 1024 }) < 2 * 1024 * 1024)
  t.ok(messageLimit({ objects: 10_000, bytes: 64 * 1024 * 1024, objectBytes: 1024 * 1024 }) > 32 * 1024 * 1024, 'a real CA keeps post_limit_rfc8181')
})

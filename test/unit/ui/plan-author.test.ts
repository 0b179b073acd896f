/**
 * The console's copy of svcd's author rule for change plans (src/ui/permissions.ts sameUser, which shows Withdraw to
 * the author only and warns the author that four-eyes needs another approver) against svcd's own (ca/plans.ts
 * checkPlanStep: only the author withdraws; under four-eyes the author does not approve), for users of each provider.
 */
import t from 'tap'
import { checkPlanStep, type PlanRecord } from '../../../src/ca/plans.js'
import { sameUser } from '../../../src/ui/permissions.js'

const plan = (by: string, provider: string): PlanRecord => ({
  id: 1,
  ca: 'ca1',
  status: 'open',
  comment: '',
  source: 'console',
  base: 'f',
  change: { roas: { added: [{ asn: 65000, prefix: '10.0.0.0/16' }], removed: [] }, aspas: { add_or_replace: [], remove: [] } },
  impact: { analysed_at: '2026-01-01T00:00:00.000Z', bgp: { available: false, turned_valid: 0, turned_invalid: 0, turned_not_found: 0, changes: [], truncated: false }, vrps: { added: [], removed: [], added_count: 0, removed_count: 0, before: 0, after: 0 }, aspas: { added: [], changed: [], removed: [] } },
  created: { by, provider, at: '2026-01-01T00:00:00.000Z' },
})

const allowed = (fn: () => void): boolean => {
  try {
    fn()
    return true
  } catch {
    return false
  }
}

t.test("the console's author rule is svcd's, for withdraw and for the author's own approval", async (t) => {
  const people = [
    { id: 'alice@example.com', provider: 'config-file' },
    { id: 'alice@example.com', provider: 'openid-connect' },
    { id: 'bob@example.com', provider: 'config-file' },
    { id: 'admin-token', provider: 'admin-token' },
  ]
  let checked = 0
  for (const author of people) {
    const p = plan(author.id, author.provider)
    for (const actor of people) {
      const mine = sameUser(actor, p.created)
      t.equal(mine, allowed(() => checkPlanStep(p, 'withdraw', { actor, fourEyes: true, current: 'f' })), `${actor.id} (${actor.provider}) withdraws a plan of ${author.id} (${author.provider})`)
      t.equal(!mine, allowed(() => checkPlanStep(p, 'approve', { actor, fourEyes: true, current: 'f' })), `${actor.id} (${actor.provider}) approves it under four-eyes`)
      checked++
    }
  }
  t.equal(checked, 16)
  t.notOk(sameUser(undefined, plan('x', 'config-file').created), 'nobody known: not the author')
})

/**
 * The table of what follows each kind of CA event (app/ca/follow-ups.ts): every kind the domain emits (ca/events.ts
 * CA_EVENT_TYPES) has an entry, and the check that says so fails on a table with one missing, one too many or a
 * follow-up that does not exist, as does CaFollowUps built with such a table. Then how a command's events turn into
 * follow-ups: each once, the publication first, parents and children named by the events.
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CaFollowUps } from '../../../src/app/ca/ca-follow-ups.js'
import { FOLLOW_UPS, FOLLOW_UP_KINDS, followUpsOf, tableProblems, type FollowUpTable } from '../../../src/app/ca/follow-ups.js'
import { initialState } from '../../../src/ca/cert-auth.js'
import { CA_EVENT_TYPES, type CaEvent } from '../../../src/ca/events.js'
import type { CaState, ParentInfo } from '../../../src/ca/state.js'
import { silentLogger } from '../../../src/log.js'
import { ROOT } from '../../helpers/paths.js'

const parent = (name: string): ParentInfo => ({ name, parentHandle: name, childHandle: 'ca1', serviceUri: `https://p.example/rfc6492/${name}`, idCert: '' })
const rc = (name: string, parentName: string) => ({ name, parent: parentName, parentClass: '0', entitled: { asn: '', ipv4: '10.0.0.0/8', ipv6: '' }, notAfter: '2027-01-01T00:00:00Z', current: { keyId: `K${name}` } })

function state(): CaState {
  return { ...initialState('ca1', 'K', ''), parents: { rir: parent('rir') }, classes: { '0': rc('0', 'rir'), '1': rc('1', '') } }
}

t.test('every kind of event the domain emits has an entry, and only those', async (t) => {
  t.ok(CA_EVENT_TYPES.length >= 30, `${CA_EVENT_TYPES.length} kinds of event`)
  t.same(tableProblems(FOLLOW_UPS), [])
  t.same(Object.keys(FOLLOW_UPS).sort(), [...CA_EVENT_TYPES].sort())
  // The list against the domain's own declarations, read from the source (tap runs without the type checker, so an
  // event kind added to a union in ca/ but not to the list is caught here too).
  t.same([...CA_EVENT_TYPES].sort(), declaredEventKinds(), 'the kinds the event unions of src/ca/ declare')
})

/** The `type` of every member of the exported `…Event` types and interfaces of src/ca/. */
function declaredEventKinds(): string[] {
  const dir = join(ROOT, 'src', 'ca')
  const kinds = new Set<string>()
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    const text = readFileSync(join(dir, f), 'utf8')
    for (const m of text.matchAll(/^export (?:type|interface) \w*Event (?:=|\{)([\s\S]*?)\n\n/gm)) for (const k of m[1]!.matchAll(/type: '([a-z-]+)'/g)) kinds.add(k[1]!)
  }
  return [...kinds].sort()
}

t.test('the check fails on a known-bad table: a kind without an entry, an entry for no kind, an unknown follow-up', async (t) => {
  const { 'roas-updated': _dropped, ...missing } = FOLLOW_UPS
  t.same(tableProblems(missing), ["event 'roas-updated' has no follow-up entry"])
  t.same(tableProblems({ ...FOLLOW_UPS, 'roas-changed': ['publish'] }), ["'roas-changed' is no kind of event"])
  t.same(tableProblems({ ...FOLLOW_UPS, 'child-added': ['notify'] }), ["event 'child-added': 'notify' is no follow-up"])
  t.same(tableProblems({ ...FOLLOW_UPS, 'child-added': undefined }), ["event 'child-added' has no follow-up entry"], 'an entry that is there but undefined')

  // The component refuses such a table when it is built (svcd would not start), naming what is missing.
  const build = (table: unknown) => () =>
    new CaFollowUps({
      commands: { follow: () => undefined },
      publisher: { publish: () => undefined, flushed: async () => undefined, nextRepublish: () => 0 },
      parents: { syncLater: () => undefined, syncAllLater: () => undefined, syncLocalChildren: () => undefined, scheduleRefresh: () => undefined, forget: () => undefined },
      tasks: { schedule: () => undefined },
      log: silentLogger(),
      table: table as FollowUpTable,
    })
  t.throws(build(missing), /follow-up table is incomplete: event 'roas-updated' has no follow-up entry/)
  t.doesNotThrow(build(FOLLOW_UPS))
})

t.test('a ROA, ASPA, router key or child certificate change publishes; what is only recorded does not', async (t) => {
  for (const type of ['roas-updated', 'aspa-config-added', 'aspa-config-updated', 'aspa-config-removed', 'bgpsec-definition-added', 'bgpsec-definition-removed', 'child-certificate-issued', 'child-key-revoked', 'certificate-received'] as const) {
    t.ok(FOLLOW_UPS[type].includes('publish'), `${type} publishes`)
  }
  for (const type of ['rsc-signed', 'old-repo-cleaned', 'certificate-requested', 'child-added'] as const) t.same(FOLLOW_UPS[type], [], `${type}: nothing`)
})

t.test("a command's events turn into follow-ups: each once, the publication first, with the parent or child they name", async (t) => {
  const s = state()
  const added: CaEvent = { type: 'parent-added', parent: parent('rir') }
  t.same(followUpsOf([added], s), [{ kind: 'sync-parent', parent: 'rir' }, { kind: 'refresh-parent', parent: 'rir' }])
  t.same(followUpsOf([{ type: 'resource-class-removed', name: '0' }, { type: 'parent-removed', name: 'rir' }], s), [{ kind: 'publish' }, { kind: 'sync-children' }, { kind: 'forget-parent', parent: 'rir' }], 'two events, one publication')
  t.same(followUpsOf([{ type: 'key-roll-activated', className: '0' }], s), [{ kind: 'publish' }, { kind: 'sync-parent', parent: 'rir' }], "a class's events name its parent")
  t.same(followUpsOf([{ type: 'key-roll-activated', className: '1' }], s), [{ kind: 'publish' }], "the TA's class has no parent to ask")
  t.same(followUpsOf([{ type: 'child-resources-updated', handle: 'ca2', resources: { asn: '', ipv4: '', ipv6: '' } }, { type: 'child-key-revoked', child: 'ca2', keyId: 'X' }], s), [{ kind: 'publish' }, { kind: 'sync-child', child: 'ca2' }])
  const roas: CaEvent = { type: 'roas-updated', changes: { added: [], removed: [], comments: [] } }
  t.same(followUpsOf([roas, roas, roas], s), [{ kind: 'publish' }], 'many changes, one publication')
  t.same(followUpsOf([], s), [])

  // A table is data: another one changes what follows, nothing else does.
  const quiet = Object.fromEntries(Object.keys(FOLLOW_UPS).map((k) => [k, []])) as unknown as FollowUpTable
  t.same(followUpsOf([roas, added], s, quiet), [])
  t.same([...FOLLOW_UP_KINDS].sort(), ['forget-parent', 'publish', 'refresh-parent', 'schedule-renewal', 'sync-child', 'sync-children', 'sync-parent', 'sync-parents'])
})

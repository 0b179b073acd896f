/**
 * A CA's ROA/ASPA configuration at a history version (app/ca/config-history.ts; issue 27 rollback): the stored events
 * (made by the domain's own checks, ca/roas.ts and ca/aspas.ts) replayed up to a version, page by page with a pause
 * between pages; refused commands, other events and publications change nothing; unknown versions are undefined.
 */
import t from 'tap'
import { applyConfigEvent, configAt, type CaConfig, type ConfigHistorySource } from '../../../src/app/ca/config-history.js'
import { reach } from '../../../src/app/ca/roa-io-service.js'
import { checkAspasUpdate } from '../../../src/ca/aspas.js'
import { checkRoaDelta } from '../../../src/ca/roas.js'
import type { StoredCommand } from '../../../src/eventsourcing.js'
import { parseRoaPayload } from '../../../src/resources/roa-payload.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'

const HELD = ResourceSet.parse({ asn: 'AS65000-AS65100', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
const NOW = new Date('2026-11-27T10:00:00Z')

/** A history built by running checks on a live configuration, as the CA aggregate does; `live` after each version. */
class History implements ConfigHistorySource {
  records: StoredCommand[] = []
  live: CaConfig = { routes: {}, aspas: {} }
  snapshots: CaConfig[] = [] // index = version
  pages = 0

  constructor() {
    this.push('ca-init', [])
  }

  page(offset: number, rows: number): StoredCommand[] {
    this.pages++
    // Publications are left out of the history the replay reads (full: false); they still have versions.
    return this.records.filter((r) => r.kind !== 'publish').slice(offset, offset + rows)
  }

  exists(version: number): boolean {
    return this.records.some((r) => r.seq === version)
  }

  roas(added: string[], removed: string[] = [], comments: Record<string, string> = {}): void {
    const changes = checkRoaDelta(this.live.routes, added.map((a) => ({ payload: parseRoaPayload(a), ...(comments[a] ? { comment: comments[a] } : {}) })), removed.map(parseRoaPayload), HELD, NOW)
    this.push('roas-update', [{ type: 'roas-updated', changes }])
  }

  aspas(add: { customer: number; providers: number[] }[], remove: number[] = []): void {
    this.push('aspas-update', checkAspasUpdate('ca1', this.live.aspas, HELD, add, remove))
  }

  push(kind: string, events: { type: string; [k: string]: unknown }[], error = false): void {
    const seq = this.records.length + 1
    const effect: StoredCommand['effect'] = error ? { result: 'error', label: 'ca-roa-delta-error', msg: 'refused' } : { result: 'success', events }
    this.records.push({ handle: 'ca1', seq, time: NOW.toISOString(), actor: 'admin-token', kind, summary: { label: kind, msg: kind, args: {} }, details: {}, effect })
    if (!error) for (const e of events) applyConfigEvent(this.live, structuredClone(e))
    this.snapshots[seq] = structuredClone(this.live)
  }
}

const pause = async () => undefined

t.test('replay gives the configuration right after each version', async (t) => {
  const h = new History()
  h.roas(['10.0.0.0/24 => 65000', '10.0.1.0/24-26 => 65001'], [], { '10.0.0.0/24 => 65000': 'first' }) // 2
  h.aspas([{ customer: 65000, providers: [65010, 65011] }]) // 3
  h.push('child-add', [{ type: 'child-added' }]) // 4: another kind of event
  h.roas(['10.0.0.0/24 => 65000'], [], { '10.0.0.0/24 => 65000': 'comment changed' }) // 5: a comment change
  h.push('roas-update', [{ type: 'roas-updated', changes: { added: [], removed: ['10.0.0.0/24-24 => 65000'], comments: [] } }], true) // 6: refused
  h.push('publish', []) // 7: a publication
  h.roas(['2001:db8::/48 => 65002'], ['10.0.1.0/24-26 => 65001']) // 8
  h.aspas([{ customer: 65000, providers: [65012] }, { customer: 65001, providers: [0] }]) // 9
  h.aspas([], [65001]) // 10
  for (let v = 1; v <= 10; v++) {
    const c = await configAt(h, v, pause, 3)
    t.same(c, h.snapshots[v], `version ${v}`)
  }
  t.equal((await configAt(h, 5, pause))!.routes['10.0.0.0/24-24 => 65000']!.comment, 'comment changed')
  t.same((await configAt(h, 6, pause))!.routes, h.snapshots[5]!.routes, 'a refused command changes nothing')
  t.same(await configAt(h, 7, pause), h.snapshots[6], 'a publication changes nothing')
})

t.test('unknown versions', async (t) => {
  const h = new History()
  h.roas(['10.0.0.0/24 => 65000'])
  for (const v of [0, -1, 3, 1.5, Number.NaN]) t.equal(await configAt(h, v, pause), undefined, String(v))
})

t.test('reads page by page with a pause between pages, and stops after the version', async (t) => {
  const h = new History()
  for (let i = 0; i < 25; i++) h.roas([`10.0.${i}.0/24 => 65000`])
  let pauses = 0
  const c = await configAt(h, 26, async () => void pauses++, 5)
  t.equal(Object.keys(c!.routes).length, 25)
  t.equal(h.pages, 6, 'six pages of five (26 records: the last one short)')
  t.equal(pauses, 5)
  h.pages = 0
  const early = await configAt(h, 4, pause, 5)
  t.equal(Object.keys(early!.routes).length, 3)
  t.equal(h.pages, 1, 'only the page holding the version is read')
})

t.test('the replayed configuration is a copy: replaying twice gives the same, the records stay as stored', async (t) => {
  const h = new History()
  h.roas(['10.0.0.0/24 => 65000'], [], { '10.0.0.0/24 => 65000': 'a' })
  h.roas(['10.0.0.0/24 => 65000'], [], { '10.0.0.0/24 => 65000': 'b' })
  const before = JSON.stringify(h.records)
  t.same(await configAt(h, 2, pause), await configAt(h, 2, pause))
  t.equal((await configAt(h, 2, pause))!.routes['10.0.0.0/24-24 => 65000']!.comment, 'a')
  t.equal(JSON.stringify(h.records), before)
})

t.test('reach: the change back to an earlier configuration, comments included', async (t) => {
  const h = new History()
  h.roas(['10.0.0.0/24 => 65000', '10.0.1.0/24 => 65000'], [], { '10.0.0.0/24 => 65000': 'old' }) // 2
  h.aspas([{ customer: 65000, providers: [65010] }]) // 3
  h.roas(['10.0.2.0/24 => 65000', '10.0.0.0/24 => 65000'], ['10.0.1.0/24 => 65000'], { '10.0.0.0/24 => 65000': 'new' }) // 4
  h.aspas([{ customer: 65000, providers: [65011] }, { customer: 65001, providers: [65010] }]) // 5
  const change = reach(h.live, (await configAt(h, 3, pause))!)
  t.same(change.roas.removed, [{ asn: 65000, prefix: '10.0.2.0/24', max_length: 24 }])
  t.same(change.roas.added, [{ asn: 65000, prefix: '10.0.1.0/24', max_length: 24 }, { asn: 65000, prefix: '10.0.0.0/24', max_length: 24, comment: 'old' }])
  t.same(change.aspas, { add_or_replace: [{ customer: 65000, providers: [65010] }], remove: [65001] })
  t.same(reach(h.live, h.live), { roas: { added: [], removed: [] }, aspas: { add_or_replace: [], remove: [] } }, 'the same configuration: nothing')
})

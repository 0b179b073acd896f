/**
 * The LivenessStore contract (store/liveness-interfaces.ts; design.md §11, issue 26): each CA's liveness with the
 * rules' memory, stored as it was given (a child's nonFunctionalSince, the manifests remembered), replaced per CA, and
 * the rows of CAs no longer kept removed.
 */
import type { Test } from 'tap'
import type { StoredLiveness } from '../../src/store/liveness-interfaces.js'
import { fresh, type StoresFactory } from './stores.contract.js'

const T0 = Date.UTC(2026, 10, 27, 12)
const DIR = 'rsync://localhost/repo/ca1/0/'

function row(ca: string, checkedAt: number, functional = true): StoredLiveness {
  return {
    liveness: {
      ca, checkedAt, functional, lastGoodFetch: { rrdp: checkedAt },
      points: [{ dir: DIR, keyId: 'K1', role: 'current', functional, findings: functional ? [] : [{ kind: 'missing', transport: 'rsync', uri: `${DIR}x.roa`, detail: 'ünïcode "quoted"' }], seen: { rrdp: { transport: 'rrdp', at: checkedAt, reachable: true, valid: true, manifestNumber: '1461501637330902918203684832716283019655932542975', manifestHash: 'ab' } }, manifestExpires: checkedAt + 3600_000 }],
      children: [{ child: 'kid', point: { dir: 'rsync://elsewhere/kid/', seen: {}, findings: [], functional: false }, nonFunctionalSince: T0, revokeAt: T0 + 90 * 86400_000 }],
    },
    memory: { [DIR]: { manifests: [{ hash: 'ab', first: { rrdp: checkedAt, rsync: checkedAt + 800 } }], rsyncLagMs: 800 } },
  }
}

export function livenessStoreContract(t: Test, make: StoresFactory): void {
  t.test('saved as given, replaced per CA, rows of CAs not kept removed', async (t) => {
    const s = fresh(t, make).stores.liveness
    t.same(s.all(), [], 'empty')
    s.save([row('ca1', T0), row('ca2', T0, false)], ['ca1', 'ca2'])
    t.same(s.all(), [row('ca1', T0), row('ca2', T0, false)], 'as given, by CA')
    s.save([row('ca1', T0 + 2000, false)], ['ca1', 'ca2'])
    t.same(s.all(), [row('ca1', T0 + 2000, false), row('ca2', T0, false)], 'ca1 replaced, ca2 kept')
    s.save([row('ca1', T0 + 4000)], ['ca1'])
    t.same(s.all(), [row('ca1', T0 + 4000)], 'ca2 is gone: its row too')
  })
}

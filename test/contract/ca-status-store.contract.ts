/** The CaStatusStore contract (store/interfaces.ts): the last exchange per CA, kind and name; a success clears an issue. */
import type { Test } from 'tap'
import { fresh, type StoresFactory } from './stores.contract.js'

export function caStatusStoreContract(t: Test, make: StoresFactory): void {
  t.test('record, get, all, remove; lastSuccess', async (t) => {
    const { stores } = fresh(t, make)
    const st = stores.status
    t.equal(st.get('ca1', 'parent', 'p'), undefined)
    st.record('ca1', 'parent', 'p', { time: 't1', uri: 'u', result: 'failure', label: 'ca-parent-unreachable', msg: 'down', args: { parent: 'p' } })
    t.same(st.get('ca1', 'parent', 'p'), { time: 't1', uri: 'u', result: 'failure', label: 'ca-parent-unreachable', msg: 'down', args: { parent: 'p' } }, 'a failure without an earlier success has no lastSuccess')
    st.record('ca1', 'parent', 'p', { time: 't2', uri: 'u', result: 'success' })
    t.same(st.get('ca1', 'parent', 'p'), { time: 't2', uri: 'u', result: 'success', lastSuccess: 't2' }, 'a success keeps nothing of the failure; lastSuccess is its time')
    st.record('ca1', 'parent', 'p', { time: 't3', uri: 'u', result: 'failure', label: 'x', msg: 'y' })
    t.same(st.get('ca1', 'parent', 'p'), { time: 't3', uri: 'u', result: 'failure', label: 'x', msg: 'y', lastSuccess: 't2' }, 'a later failure keeps the last success')
    st.record('ca1', 'repo', '', { time: 't4', uri: 'r', result: 'success' })
    st.record('ca1', 'child', 'c', { time: 't5', uri: 'c', result: 'success' })
    st.record('ca2', 'parent', 'p', { time: 't6', uri: 'u', result: 'success' })
    t.same(st.all('ca1').map((s) => [s.kind, s.name]), [['child', 'c'], ['parent', 'p'], ['repo', '']], 'all of a CA, by kind and name')
    t.same(st.all('ca1', 'parent').map((s) => [s.kind, s.name, s.status.time]), [['parent', 'p', 't3']], 'all of one kind')
    st.remove('ca1', 'parent', 'p')
    t.equal(st.get('ca1', 'parent', 'p'), undefined, 'removed')
    t.equal(st.get('ca2', 'parent', 'p')?.time, 't6', "another CA's status stays")
  })
}

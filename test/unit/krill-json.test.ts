/**
 * The Krill JSON check that every scenario test's daemon answers go through (test/helpers/krill-json.ts, issue 16)
 * proves itself: answers as Krill sends them pass, and each kind of deviation is caught.
 */
import t from 'tap'
import { allProblems, krillJsonProblems, type RecordedResponse } from '../helpers/krill-json.js'

const ok = (url: string, body: unknown, type = 'application/json'): RecordedResponse => ({ method: 'GET', url, status: 200, type, body: JSON.stringify(body) })

t.test("answers as Krill sends them pass", async (t) => {
  const good = [
    ok('/api/v1/cas/ca1/parents', { testbed: { last_exchange: { timestamp: 1767225600, uri: 'https://x/rfc6492/testbed', result: 'Success' }, last_success: 1767225600, all_resources: { asn: 'AS65000-AS65010, AS65020', ipv4: '10.0.0.0/8', ipv6: '' }, classes: [{ class_name: '0', resource_set: { asn: '', ipv4: '', ipv6: '' }, not_after: '2027-01-01T00:00:00.000Z' }] } }),
    ok('/api/v1/cas/ca1/repo/status', { last_exchange: null, last_success: null, published: [] }),
    ok('/api/v1/cas/ca1/history/commands/10/0', { offset: 0, total: 1, commands: [{ timestamp: 1767225600123 }] }),
    ok('/stats/info', { version: '0.1.0', started: 1767225600 }),
    ok('/api/v1/pubd/stats', { last_update: '2026-01-01T00:00:00Z', publishers: { p: { last_update: null, manifests: [{ this_update: '2026-01-01T00:00:00+01:00', next_update: '2026-01-02T00:00:00Z' }] } } }),
    { method: 'GET', url: '/api/v1/cas/x', status: 404, type: 'application/json', body: JSON.stringify({ label: 'api-invalid-body', msg: 'AS range "AS5-3" is reversed', args: { asn: 'AS5-3' } }) },
    { method: 'GET', url: '/auth/login', status: 200, type: 'text/plain', body: '/login' },
    { method: 'GET', url: '/rrdp/notification.xml', status: 200, type: 'application/xml', body: null },
    { method: 'POST', url: '/api/v1/cas', status: 200, type: 'text/plain; charset=utf-8', body: '' },
    ok('/api/v1/openapi.json', { components: { schemas: { ResourceSet: { properties: { asn: { description: 'AS65000-65010 is accepted on input' } } } } } }),
  ]
  t.same(allProblems(good), [])
})

t.test('each deviation is caught', async (t) => {
  const cases: [string, RecordedResponse, RegExp][] = [
    ['a charset', ok('/api/v1/cas', { cas: [] }, 'application/json; charset=utf-8'), /expected exactly 'application\/json'/],
    ['JSON as text', ok('/api/v1/cas', { cas: [] }, 'text/plain'), /a JSON body typed 'text\/plain'/],
    ['JSON untyped', ok('/api/v1/cas', [], ''), /typed '\(none\)'/],
    ['not JSON but typed so', { method: 'GET', url: '/x', status: 200, type: 'application/json', body: 'nope' }, /not JSON/],
    ['an ISO timestamp', ok('/api/v1/cas/ca1/parents', { p: { last_exchange: { timestamp: '2026-01-01T00:00:00Z' }, last_success: null } }), /Timestamp, unix seconds/],
    ['milliseconds for seconds', ok('/api/v1/cas/ca1/repo/status', { last_success: 1767225600123 }), /is not unix seconds/],
    ['an ISO last_success', ok('/api/v1/cas/ca1/repo/status', { last_success: '2026-01-01T00:00:00Z' }), /last_success/],
    ['seconds in the history', ok('/api/v1/cas/ca1/history/commands', { commands: [{ timestamp: 1767225600 }] }), /is not milliseconds/],
    ['a number for a Time', ok('/api/v1/cas/ca1/parents', { p: { classes: [{ not_after: 1767225600 }] } }), /RFC 3339/],
    ['a short AS range', ok('/api/v1/cas/ca1', { resources: { asn: 'AS65000-65010', ipv4: '', ipv6: '' } }), /AS65000-65010/],
    ['a short AS range in text', ok('/api/v1/cas/ca1/issues', { note: 'holds AS1-2' }), /AS range not in Krill's form/],
  ]
  for (const [name, r, expected] of cases) {
    const problems = krillJsonProblems(r)
    t.ok(problems.some((p) => expected.test(p)), `${name}: ${problems.join('; ') || 'not caught'}`)
  }
})

/**
 * RFC 8181 §2.5 error codes by table (pubd/publication-errors.ts): every row pinned, every pub-/rfc8181 label that can
 * reach an RFC 8181 error reply has a row, and anything else is other_error.
 */
import t from 'tap'
import { CATALOGUE } from '../../../src/errors.js'
import { REPORT_ERROR_CODES } from '../../../src/protocol/publication.js'
import { errorReply, REPORT_ERROR_CODE_OF, reportError, reportErrorCode } from '../../../src/pubd/publication-errors.js'

/** The whole table, as RFC 8181 §2.5 and our labels say it should be. */
const EXPECTED = {
  'pub-unknown': 'permission_failure',
  'pub-outside-jail': 'permission_failure',
  'rfc8181-validation': 'bad_cms_signature',
  'rfc8181-protocol-message': 'xml_error',
  'rfc8181-object-already-present': 'object_already_present',
  'rfc8181-no-object-present': 'no_object_present',
  'rfc8181-no-object-matching-hash': 'no_object_matching_hash',
  'rfc8181-consistency-problem': 'consistency_problem',
  'pub-quota-exceeded': 'other_error', // a well-formed, signed message inside its jail that would exceed a quota: RFC 8181 §2.5 has no code of its own
  'sys-storage-full': 'other_error',
  'sys-storage-io': 'other_error',
  'sys-storage-unavailable': 'other_error',
  'sys-internal': 'other_error',
}

/** pub-/rfc8181 labels that never reach an RFC 8181 reply, each with the reason. */
const API_ONLY: Record<string, string> = {
  'pub-duplicate': 'publisher add, JSON API only',
  'pub-uri-no-slash': 'repository settings, JSON API only',
  'pub-repo-not-initialized': 'the /rfc8181 route answers it (HTTP 400) before there is a service to reply',
  'pub-request-invalid-xml': 'RFC 8183 publisher request, JSON API only',
  'rfc8181-delta': "Krill's label for a refused delta; ours are refused per PDU, with the four labels of §3.2/§3.3/§2.5",
}

t.test('every row of the table', async (t) => {
  t.same(REPORT_ERROR_CODE_OF, EXPECTED, 'the table is exactly the expected rows')
  for (const [label, code] of Object.entries(EXPECTED)) t.equal(reportErrorCode(label), code, `${label} → ${code}`)
})

t.test('every row is a catalogue label and an RFC 8181 §2.5 code', async (t) => {
  for (const [label, code] of Object.entries(REPORT_ERROR_CODE_OF)) {
    t.ok(label in CATALOGUE, `${label} is in the catalogue`)
    t.ok(REPORT_ERROR_CODES.includes(code), `${code} is an RFC 8181 code`)
  }
  t.same([...new Set(Object.values(REPORT_ERROR_CODE_OF))].sort(), [...REPORT_ERROR_CODES].sort(), 'every RFC 8181 §2.5 code is reachable')
})

t.test('every pub-/rfc8181 label that can reach an error reply has a row', async (t) => {
  const family = Object.keys(CATALOGUE).filter((l) => l.startsWith('pub-') || l.startsWith('rfc8181-'))
  for (const label of family) t.ok(label in REPORT_ERROR_CODE_OF || label in API_ONLY, `${label}: a row, or listed as never reaching a reply`)
  for (const label of Object.keys(API_ONLY)) {
    t.ok(label in CATALOGUE, `${label} (API only) is still a catalogue label`)
    t.notOk(label in REPORT_ERROR_CODE_OF, `${label} is not both`)
  }
})

t.test('a label without a row is other_error', async (t) => {
  t.equal(reportErrorCode('ca-unknown'), 'other_error', 'a catalogue label of another family')
  t.equal(reportErrorCode('sys-signer'), 'other_error', 'one of our failures without a row')
  t.equal(reportErrorCode('no-such-label'), 'other_error', 'an unknown label')
  t.equal(reportErrorCode('toString'), 'other_error', 'an Object.prototype name is no row')
})

t.test('report_error and error reply built from a label', async (t) => {
  const pdu = { type: 'withdraw' as const, uri: 'rsync://localhost/repo/alice/x.roa', hash: 'ab'.repeat(32), tag: 't1' }
  t.same(reportError('rfc8181-no-object-present', 'RFC 8181 §3.3: gone', pdu), { code: 'no_object_present', text: 'RFC 8181 §3.3: gone', failedPdu: pdu, tag: 't1' }, 'with the failed PDU and its tag')
  const { tag: _tag, ...untagged } = pdu
  t.same(reportError('pub-outside-jail', 'outside', untagged), { code: 'permission_failure', text: 'outside', failedPdu: untagged }, 'no tag when the PDU has none')
  t.same(errorReply('rfc8181-validation', 'replay'), { type: 'error_reply', errors: [{ code: 'bad_cms_signature', text: 'replay' }] }, 'a whole message refused')
  t.same(errorReply('sys-signer', 'failed'), { type: 'error_reply', errors: [{ code: 'other_error', text: 'failed' }] }, 'our own failure')
})

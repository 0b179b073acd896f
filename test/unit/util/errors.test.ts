import t from 'tap'
import { DecodeError, InspectionError, LibraryError } from '../../../src/util/errors.js'

t.test('library errors carry the rule and prefix the message with it', async (t) => {
  const e = new InspectionError('RFC 9582 §4.3.1', 'IPv4 appears twice')
  t.equal(e.rule, 'RFC 9582 §4.3.1')
  t.equal(e.message, 'RFC 9582 §4.3.1: IPv4 appears twice')
  t.equal(e.name, 'InspectionError')
  t.ok(e instanceof LibraryError)
  t.notOk(e instanceof DecodeError)
})

/** Issue 12 item 7: the text output of an error names every detail its JSON carries; a refused ROA delta its lines. */
import t from 'tap'
import { ClientError } from '../../../src/client/api-client.js'
import { deltaErrorLines, errorDetailLines } from '../../../src/cli/error-details.js'
import { DetailedServerError, failure } from '../../../src/cli/report.js'
import type { ErrorBody } from '../../../src/errors.js'

const body: ErrorBody = {
  label: 'ca-roa-delta-error',
  msg: 'Delta rejected, see included json',
  args: {},
  delta_error: {
    unknowns: [{ asn: 65009, prefix: '10.9.0.0/24' }],
    duplicates: [{ asn: 65000, prefix: '10.0.0.0/24' }, { asn: 65001, prefix: '10.1.0.0/16', max_length: 20 }],
    invalid_length: [{ asn: 65003, prefix: '10.3.0.0/24', max_length: 33, reason: 'max length 33 of 10.3.0.0/24 is longer than 32, the size of an IPv4 address' }],
    notheld: [{ asn: 65002, prefix: '192.0.2.0/24' }],
  },
}

const file = [
  '# ROAs',
  'A: 10.0.0.0/24 => 65000',
  'A: 192.0.2.0/24 => AS65002   # not ours',
  'A: 10.3.0.0/24-33 => 65003',
  'A: 10.0.0.0/24 => 65000',
  'A: 10.1.0.0/16-20 => 65001',
  'R: 10.9.0.0/24 => 65009',
  '',
].join('\n')

t.test('each refused line of the delta file, with its number and why', async (t) => {
  t.same(deltaErrorLines(body, file), [
    'line 7: R: 10.9.0.0/24 => 65009: not configured, so it cannot be removed',
    'line 5: A: 10.0.0.0/24 => 65000: listed twice in the delta (first on line 2)',
    'line 6: A: 10.1.0.0/16-20 => 65001: already configured',
    'line 4: A: 10.3.0.0/24-33 => 65003: invalid max length: max length 33 of 10.3.0.0/24 is longer than 32, the size of an IPv4 address',
    'line 3: A: 192.0.2.0/24 => AS65002   # not ours: the CA does not hold this prefix',
  ])
})

t.test('text output: the message, then the details; JSON output: the body as it came', async (t) => {
  const err = new ClientError('server', body.msg, 400, body)
  const text = failure(err, 'text')
  t.equal(text.code, 1)
  t.equal(text.message, [
    'svcc: error: Delta rejected (ca-roa-delta-error):',
    '  10.9.0.0/24 => 65009: not configured, so it cannot be removed',
    '  10.0.0.0/24 => 65000: already configured, or listed twice in the delta',
    '  10.1.0.0/16-20 => 65001: already configured, or listed twice in the delta',
    '  10.3.0.0/24-33 => 65003: invalid max length: max length 33 of 10.3.0.0/24 is longer than 32, the size of an IPv4 address',
    '  192.0.2.0/24 => 65002: the CA does not hold this prefix',
  ].join('\n'))
  const withLines = failure(new DetailedServerError(err, deltaErrorLines(body, file)), 'text')
  t.match(withLines.message, /^svcc: error: Delta rejected \(ca-roa-delta-error\):\n  line 7: R: 10\.9\.0\.0\/24 => 65009: not configured/)
  t.same(JSON.parse(failure(new DetailedServerError(err, []), 'json').message), body, 'JSON is unchanged')
})

t.test("Krill's current message lists the refused ROAs after a blank line: svcc prints them once, with the reasons", async (t) => {
  const { AppError } = await import('../../../src/errors.js')
  const current = new AppError('ca-roa-delta-error', { ca: 'ca1' }, { extra: { delta_error: body.delta_error! } }).body()
  t.equal(current.msg.split('\n').slice(0, 4).join('\n'), 'ROA delta rejected:\n\nCannot remove the following unknown ROAs:\n  10.9.0.0/24 => 65009', "Krill's headings, each ROA indented")
  t.same(current.args, { ca: 'ca1' }, 'the CA in args, as Krill')
  const text = failure(new ClientError('server', current.msg, 400, current), 'text').message.split('\n')
  t.equal(text[0], 'svcc: error: ROA delta rejected (ca-roa-delta-error):')
  t.equal(text.length, 6, 'each refused ROA once')
})

t.test('any other detail a body carries is printed as key: value; a plain error stays one line', async (t) => {
  const other = { label: 'ca-parent-issue', msg: 'Parent problem', args: {}, problems: ['one', { two: 2 }] } as unknown as ErrorBody
  t.same(errorDetailLines(other), ['problems: one', 'problems: {"two":2}'])
  const plain = failure(new ClientError('server', "CA 'x' is unknown", 404, { label: 'ca-unknown', msg: "CA 'x' is unknown", args: { ca: 'x' } }), 'text')
  t.equal(plain.message, "svcc: error: CA 'x' is unknown (ca-unknown)")
})

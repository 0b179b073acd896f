/**
 * The config-file provider's reading of HTTP Basic credentials (RFC 7617 §2, src/http/config-file-provider.ts): the
 * user name is everything before the first colon, the password may hold colons; every malformed header is nobody.
 */
import t from 'tap'
import { basicCredentials } from '../../../src/http/config-file-provider.js'

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64')

t.test('well-formed credentials', async (t) => {
  t.same(basicCredentials(`Basic ${b64('joe@example.com:secret')}`), { username: 'joe@example.com', password: 'secret' })
  t.same(basicCredentials(`basic ${b64('joe:a:b:c')}`), { username: 'joe', password: 'a:b:c' }, 'the scheme is case-insensitive; the password may hold colons (RFC 7617 §2)')
  t.same(basicCredentials(`Basic ${b64('j\u00f6e:p\u00e4ss')}`), { username: 'j\u00f6e', password: 'p\u00e4ss' }, 'UTF-8 (RFC 7617 §2.1)')
  t.same(basicCredentials(`Basic ${b64(':')}`), { username: '', password: '' }, 'empty parts are read (and refused by the login, as an unknown user)')
})

t.test('malformed credentials are nobody', async (t) => {
  for (const [header, why] of [
    ['', 'no header'],
    [`Bearer ${b64('joe:secret')}`, 'another scheme'],
    ['Basic', 'no credentials'],
    ['Basic !!!not-base64!!!', 'not base64'],
    [`Basic ${b64('joe:secret')} extra`, 'trailing data'],
    [`Basic ${b64('no colon here')}`, 'no colon (RFC 7617 §2)'],
    [`Basic ${b64(Buffer.from([0x6a, 0x3a, 0xff, 0xfe]))}`, 'not UTF-8 (RFC 7617 §2.1)'],
  ] as const) t.equal(basicCredentials(header), undefined, why)
})

import t from 'tap'
import { fromBase64, fromBase64Url, toBase64, toBase64Url } from '../../../src/util/base64.js'
import { compareBytes, concat } from '../../../src/util/bytes.js'
import { ParseError } from '../../../src/util/errors.js'
import { caHandle, childHandle, publisherHandle } from '../../../src/util/handle.js'
import { fromHex, toHex } from '../../../src/util/hex.js'
import { httpsUri, parseUri, rsyncModule, rsyncUri } from '../../../src/util/uri.js'

t.test('hex round trip, strict input', async (t) => {
  t.equal(toHex(Uint8Array.of(0, 0xab, 0xff)), '00abff')
  t.same([...fromHex('00ABff')], [0, 0xab, 0xff])
  t.throws(() => fromHex('abc'), ParseError)
  t.throws(() => fromHex('zz'), ParseError)
})

t.test('base64 ignores XML whitespace, strips Unicode spaces only on request', async (t) => {
  t.equal(toBase64(Uint8Array.of(1, 2, 3, 4)), 'AQIDBA==')
  t.same([...fromBase64('AQ ID\n\tBA==')], [1, 2, 3, 4])
  t.throws(() => fromBase64('AQ\u200bIDBA=='), ParseError)
  t.same([...fromBase64('AQ\u200bIDBA==', { stripUnicodeSpace: true })], [1, 2, 3, 4])
  t.throws(() => fromBase64('AQIDB'), ParseError)
  t.throws(() => fromBase64('AQ*DBA=='), ParseError)
  t.equal(toBase64Url(Uint8Array.of(0xfb, 0xff)), '-_8')
  t.same([...fromBase64Url('-_8=')], [0xfb, 0xff])
  t.throws(() => fromBase64Url('a+b'), ParseError)
})

t.test('bytes', async (t) => {
  t.same([...concat([Uint8Array.of(1), Uint8Array.of(2, 3)])], [1, 2, 3])
  t.ok(compareBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3)) < 0)
  t.ok(compareBytes(Uint8Array.of(1, 2, 0), Uint8Array.of(1, 2)) > 0)
  t.equal(compareBytes(Uint8Array.of(7), Uint8Array.of(7)), 0)
})

t.test('handles', async (t) => {
  t.equal(caHandle('ca-1_X'), 'ca-1_X')
  t.throws(() => caHandle('ca/1'), /CA handle "ca\/1" is invalid/)
  t.throws(() => caHandle(''), ParseError)
  t.throws(() => caHandle('x'.repeat(256)), ParseError)
  t.throws(() => caHandle('ca\u200b'), ParseError)
  t.equal(childHandle('Alice/Bob-42'), 'Alice/Bob-42')
  t.throws(() => publisherHandle('a/b'), ParseError)
})

t.test('URIs', async (t) => {
  t.same(parseUri('rsync://localhost:3873/repo/ca/'), { scheme: 'rsync', host: 'localhost', port: 3873, path: '/repo/ca/' })
  t.same(parseUri('https://[::1]:3000/rrdp/'), { scheme: 'https', host: '[::1]', port: 3000, path: '/rrdp/' })
  t.equal(rsyncUri('rsync://h/m/', { dir: true }), 'rsync://h/m/')
  t.throws(() => rsyncUri('rsync://h/m', { dir: true }), /must end with '\/'/)
  t.throws(() => rsyncUri('https://h/m/'), /not an rsync/)
  t.throws(() => rsyncUri('rsync://h/'), /no module/)
  t.throws(() => httpsUri('http://h/'), /not an https/)
  t.equal(httpsUri('http://h/', { allowHttp: true }), 'http://h/')
  t.throws(() => parseUri('https://user@h/'), /invalid host/)
  t.throws(() => parseUri('https://h/a?b'), ParseError)
  t.throws(() => parseUri('https://h:0/'), /invalid port/)
  t.throws(() => parseUri('ftp://h/'), /unsupported scheme/)
  t.same(rsyncModule(rsyncUri('rsync://localhost:3873/repo/ca/x.cer')), { host: 'localhost', port: 3873, module: 'repo' })
})

t.test('base64 decoding is linear and safe on large input', async (t) => {
  const big = Buffer.alloc(12 * 1024 * 1024, 7)
  const text = big.toString('base64').replace(/.{76}/g, '$&\n')
  const start = Date.now()
  t.equal(fromBase64(text).length, big.length)
  t.comment(`12 MB decoded in ${Date.now() - start} ms`)
  t.throws(() => fromBase64('AAA='.repeat(1000) + 'A==='), ParseError, 'padding only at the end')
  t.throws(() => fromBase64('A=AA'), ParseError)
})

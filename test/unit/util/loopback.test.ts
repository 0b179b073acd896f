/** util/uri.ts isLoopbackHost: the hosts whose self-signed certificates svcd accepts, and which alone may take plain http webhooks. */
import t from 'tap'
import { isLoopbackHost } from '../../../src/util/uri.js'

t.test('loopback hosts as URL.hostname gives them', async (t) => {
  for (const h of ['localhost', 'LOCALHOST', 'svc.localhost', '127.0.0.1', '127.255.0.9', '[::1]']) t.ok(isLoopbackHost(h), h)
  for (const h of ['localhost.example.net', 'a.b.localhost', '128.0.0.1', '10.0.0.1', '[::2]', '::1', 'example.net', '127.0.0.1.nip.io', '']) t.notOk(isLoopbackHost(h), h || '(empty)')
  t.equal(new URL('https://[::1]:3000/').hostname, '[::1]', 'URL keeps the brackets of an IPv6 host')
})

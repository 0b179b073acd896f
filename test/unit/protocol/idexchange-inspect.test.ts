/**
 * src/protocol/idexchange-inspect.ts (issue 10): the URIs of RFC 8183 parent and repository responses. A jail that
 * is not exactly an rsync directory, and service or RRDP URIs that are not https or hide a dot segment, are refused
 * with the rule; the current Krill responses pass; APNIC's older http:// service URIs pass (RRDP must be https).
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { createIdCert } from '../../../src/protocol/id-cert.js'
import { decodeParentResponse, decodeRepositoryResponse, type RepositoryResponse } from '../../../src/protocol/idexchange.js'
import { inspectParentResponse, inspectRepositoryResponse, inspectSiaBase } from '../../../src/protocol/idexchange-inspect.js'
import { testKey } from '../../helpers/keys.js'
import { NO_SHARED, sharedFixture } from '../../helpers/paths.js'

const now = new Date()
const good: RepositoryResponse = {
  publisherHandle: 'ca1', serviceUri: 'https://localhost:3000/rfc8181/ca1/', siaBase: 'rsync://localhost/repo/ca1/',
  rrdpNotificationUri: 'https://localhost:3000/rrdp/notification.xml', idCert: createIdCert(testKey(), now),
}

t.test('sia_base: an rsync directory URI meaning exactly what it says', async (t) => {
  for (const ok of ['rsync://localhost/repo/ca1/', 'rsync://127.0.0.1:873/repo/a/b-c_d.e/', 'rsync://[::1]/repo/']) t.doesNotThrow(() => inspectSiaBase(ok), ok)
  const bad: [string, RegExp][] = [
    ['rsync://localhost/repo/ca1/../ca2/', /'\.\.' segment/],
    ['rsync://localhost/repo/./ca1/', /'\.' or '\.\.' segment/],
    ['rsync://localhost/repo//ca1/', /empty/],
    ['rsync://localhost/repo/%2e%2e/ca2/', /percent-encoding/],
    ['rsync://localhost/repo/ca1%2F..%2Fca2/', /percent-encoding/],
    ['rsync://localhost/repo/ca1', /must end with '\/'/],
    ['rsync://localhost/', /module/],
    ['https://localhost/repo/ca1/', /rsync/],
    ['rsync://user@localhost/repo/ca1/', /not a valid URI/],
    ['rsync://localhost/repo/ca1/?x=1/', /not a valid URI/],
  ]
  for (const [uri, why] of bad) t.throws(() => inspectSiaBase(uri), { name: 'InspectionError', message: why }, uri)
  t.throws(() => inspectSiaBase('rsync://localhost/repo/ca1/../x/'), { message: /^RFC 8183 §5\.2\.4: sia_base/ }, 'cites the rule')
})

t.test('service and RRDP URIs: https, no dot segment in any spelling', async (t) => {
  t.same(inspectRepositoryResponse(good, now), good)
  const bad: [Partial<RepositoryResponse>, RegExp][] = [
    [{ serviceUri: 'rsync://localhost:3000/rfc8181/ca1/' }, /RFC 8183 §5\.2\.4: service_uri .* must be an https:\/\/ or http:\/\/ URI/],
    [{ serviceUri: 'https://localhost:3000/rfc8181/%2e%2E/ca2/' }, /'\.' or '\.\.'/],
    [{ serviceUri: 'https://localhost:3000/rfc8181/../ca2/' }, /'\.' or '\.\.'/],
    [{ serviceUri: 'https://localhost:3000/rfc8181//ca1/' }, /empty path segment/],
    [{ serviceUri: 'https://localhost:3000/rfc8181/%zz/' }, /malformed percent-encoding/],
    [{ serviceUri: 'https://localhost:3000/rfc8181/a%00b/' }, /control characters/],
    [{ rrdpNotificationUri: 'http://localhost:3000/rrdp/notification.xml' }, /RFC 8182 §3\.1: rrdp_notification_uri .* https/],
    [{ siaBase: 'rsync://localhost/repo/ca1/../ca2/' }, /sia_base/],
    [{ idCert: createIdCert(testKey(), new Date(now.getTime() - 400 * 86_400_000), 1) }, /expired/],
  ]
  for (const [change, why] of bad) t.throws(() => inspectRepositoryResponse({ ...good, ...change }, now), { message: why }, JSON.stringify(Object.keys(change)))
  const parent = { parentHandle: 'p', childHandle: 'c', serviceUri: 'https://localhost/rfc6492/p', idCert: good.idCert }
  t.same(inspectParentResponse(parent, now), parent)
  t.throws(() => inspectParentResponse({ ...parent, serviceUri: 'rsync://localhost/rfc6492/p' }, now), { message: /RFC 8183 §5\.2\.2: service_uri .* https/ })
  t.same(inspectParentResponse({ ...parent, serviceUri: 'http://localhost/rfc6492/p' }, now).serviceUri, 'http://localhost/rfc6492/p', 'http service URIs are accepted (the messages are CMS-signed)')
})

t.test("other implementations' responses", { skip: NO_SHARED }, async (t) => {
  const repo = (f: string) => decodeRepositoryResponse(readFileSync(sharedFixture('rfc8183', 'repository_response', f)!))
  const parent = (f: string) => decodeParentResponse(readFileSync(sharedFixture('rfc8183', 'parent_response', f)!))
  for (const f of ['krill-testbed-2022-via-ripencc.xml', 'krill-0.9-nicbr-ns-no-trailing-slash.xml']) t.doesNotThrow(() => inspectRepositoryResponse(repo(f), now), f)
  for (const f of ['krill-testbed-2023.xml', 'krill-0.9-nicbr-ns-no-trailing-slash.xml']) t.doesNotThrow(() => inspectParentResponse(parent(f), now), f)
  t.doesNotThrow(() => inspectRepositoryResponse(repo('apnic-ns0-multiline-attrs.xml'), new Date('2020-01-01')), "APNIC's http:// service URI, within its certificate's validity")
  t.doesNotThrow(() => inspectParentResponse(parent('apnic-oob-prefix-crlf.xml'), new Date('2020-01-01')), 'and its parent response')
})

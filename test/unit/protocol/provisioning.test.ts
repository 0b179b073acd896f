/**
 * src/protocol/provisioning.ts (RFC 6492): every plain-XML fixture and the XML inside every CMS fixture (extracted
 * with the openssl CLI) decodes; our encoding validates against the RFC 6492 schema and round-trips.
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  decodeProvisioning,
  encodeProvisioning,
  ERROR_CODES,
  PROVISIONING_NS,
  ProvisioningDecodeError,
  type ProvisioningMessage,
  type ResourceClassEntitlement,
} from '../../../src/protocol/provisioning.js'
import { validateWithSchema, xmllintMissing } from '../../helpers/xmllint.js'

const SHARED = fileURLToPath(new URL('../../../../shared/fixtures/', import.meta.url))
const noShared = existsSync(SHARED) ? false : `shared fixtures not found at ${SHARED}: real-world fixture tests skipped`
const noOpenssl = spawnSync('openssl', ['version']).error ? 'openssl CLI not installed: CMS fixture tests skipped' : false
const noXmllint = xmllintMissing()
const BYTES = Uint8Array.from({ length: 200 }, (_, i) => (i * 13) % 256)

/** The eContent of a CMS fixture (DER or BER), signature not checked: the CMS layer is tested elsewhere. */
function cmsContent(path: string): Buffer {
  const r = spawnSync('openssl', ['cms', '-verify', '-noverify', '-nosigs', '-inform', 'DER', '-in', path, '-out', '-'], { maxBuffer: 16 * 1024 * 1024 })
  if (r.status !== 0) throw new Error(`openssl cms failed on ${path}: ${r.stderr.toString()}`)
  return r.stdout
}

function cls(extra: Partial<ResourceClassEntitlement> = {}): ResourceClassEntitlement {
  return {
    className: '0',
    certUrl: ['rsync://localhost/repo/ta/0/ABCD.cer', 'https://localhost/ta/ABCD.cer'],
    resourceSetAs: '65000-65003,4200000000-4294967294',
    resourceSetIpv4: '10.0.0.0/8,192.168.0.0-192.168.1.255',
    resourceSetIpv6: '2001:db8::/32',
    resourceSetNotAfter: '2026-01-01T00:00:00Z',
    certificates: [{ certUrl: 'rsync://localhost/repo/ta/0/CHILD.cer', cert: BYTES }],
    issuer: BYTES,
    ...extra,
  }
}

const SAMPLES: ProvisioningMessage[] = [
  { sender: 'child', recipient: 'parent', payload: { type: 'list' } },
  { sender: 'parent', recipient: 'child', payload: { type: 'list_response', classes: [] } },
  { sender: 'parent', recipient: 'child', payload: { type: 'list_response', classes: [cls(), cls({ className: 'issuer-only', certificates: [], resourceSetAs: '', suggestedSiaHead: 'rsync://localhost/repo/child/' })] } },
  { sender: 'child', recipient: 'parent', payload: { type: 'issue', className: '0', csr: BYTES } },
  { sender: 'child', recipient: 'parent', payload: { type: 'issue', className: '0', csr: BYTES, limits: { asn: '', ipv4: '10.0.0.0/16' } } },
  {
    sender: '29b38a6b-2312-42c0-894b-7def8293735a',
    recipient: 'parent',
    payload: { type: 'issue_response', cls: cls({ certificates: [{ certUrl: 'rsync://x.example/a.cer', reqResourceSetAs: '', reqResourceSetIpv4: '10.0.0.0/16', reqResourceSetIpv6: '', cert: BYTES }] }) },
  },
  { sender: 'child', recipient: 'parent', payload: { type: 'revoke', className: '0', ski: 'CfAUC3n7C_-o71S57D65i9DLnOw' } },
  { sender: 'parent', recipient: 'child', payload: { type: 'revoke_response', className: '0', ski: 'CfAUC3n7C_-o71S57D65i9DLnOw' } },
  { sender: 'parent', recipient: 'child', payload: { type: 'error_response', status: 1201 } },
  { sender: 'parent', recipient: 'child', payload: { type: 'error_response', status: 2001, description: ERROR_CODES[2001], lang: 'en-US' } },
]

t.test('every plain-XML RFC 6492 fixture decodes and round-trips', { skip: noShared }, async (t) => {
  const dir = `${SHARED}rfc6492/xml/`
  for (const name of readdirSync(dir)) {
    const m = decodeProvisioning(readFileSync(dir + name))
    const xml = encodeProvisioning(m)
    t.same(decodeProvisioning(xml), m, `${name}: ${m.payload.type} round-trips`)
    t.equal(encodeProvisioning(decodeProvisioning(xml)), xml, `${name}: encoding is stable`)
  }
})

t.test('the XML inside every CMS fixture decodes (openssl extracts it, BER included)', { skip: noShared || noOpenssl }, async (t) => {
  const dir = `${SHARED}rfc6492/cms/`
  const files = readdirSync(dir).filter((f) => /\.(der|ber)$/.test(f) && f !== 'rpkid-carol-issue-csr.der') // that one is a PKCS#10
  t.ok(files.length >= 20, `${files.length} CMS messages`)
  for (const name of files) {
    const m = decodeProvisioning(cmsContent(dir + name))
    t.ok(m.payload.type, `${name}: ${m.payload.type}`)
    if (m.sender !== undefined) t.same(decodeProvisioning(encodeProvisioning(m)), m, `${name}: round-trips`)
  }
  const lacnic = decodeProvisioning(cmsContent(`${dir}lacnic-error_response-no-sender-recipient.der`))
  t.same(lacnic, { payload: { type: 'error_response', status: 2001, description: 'Internal Server Error - Request not performed', lang: 'en-US' } })
  const ranges = decodeProvisioning(cmsContent(`${dir}apnic-2011-list_response-ranges.der`))
  t.match(ranges.payload, { type: 'list_response', classes: [{ certUrl: [/\.pem$/] }] }, 'APNIC 2011: .pem cert_url')
  const issuerOnly = decodeProvisioning(cmsContent(`${dir}apnic-testbed-list_response-issuer-only.der`))
  t.match(issuerOnly.payload, { type: 'list_response', classes: [{ certificates: [] }] }, 'class with only <issuer>')
  const large = decodeProvisioning(cmsContent(`${dir}lacnic-list_response-large.der`))
  t.ok(large.payload.type === 'list_response' && large.payload.classes[0].resourceSetIpv4.length > 10000, 'LACNIC 240 KB list_response')
})

t.test('tolerated variations', { skip: noShared }, async (t) => {
  const padded = decodeProvisioning(readFileSync(`${SHARED}rfc6492/xml/hand-revoke-ski-with-padding.xml`))
  t.same(padded.payload, { type: 'revoke', className: 'class_name', ski: 'IEANpSE1IUSDJq2v6dXpRW_iphY' }, 'ski padding removed')
  const resp = decodeProvisioning(readFileSync(`${SHARED}rfc6492/xml/rfc6492-example-list_response.xml`))
  t.match(resp.payload, {
    type: 'list_response',
    classes: [{ className: 'ISP5', resourceSetIpv6: '2001:db8:0:0:0:0:a00::/120,2001:db8:0:0:0:0:a03::/120', suggestedSiaHead: 'rsync://wombat.example/fnord/', certificates: [{ reqResourceSetAs: '' }, {}, {}] }],
  })
  const issue = decodeProvisioning(readFileSync(`${SHARED}rfc6492/xml/rfc6492-example-issue1.xml`))
  t.match(issue.payload, { type: 'issue', className: 'class name', limits: { asn: '64534-64540', ipv4: '', ipv6: '' } })
  const attrOrder = `<message type="list" recipient="p" xmlns="${PROVISIONING_NS}" sender="c" version="1"/>`
  t.same(decodeProvisioning(attrOrder), { sender: 'c', recipient: 'p', payload: { type: 'list' } }, 'attribute order')
})

t.test('malformed messages are refused with the RFC 6492 rule', async (t) => {
  const msg = (attrs: string, body = '') => `<message xmlns="${PROVISIONING_NS}" ${attrs}>${body}</message>`
  const base = 'sender="c" recipient="p"'
  t.throws(() => decodeProvisioning(msg(`version="2" ${base} type="list"`)), { message: /RFC 6492 §3\.1: version "2" is not supported/ })
  t.throws(() => decodeProvisioning(msg(`version="1" ${base} type="frobnicate"`)), { message: /unrecognised message type "frobnicate"/ })
  t.throws(() => decodeProvisioning(msg('version="1" type="list"')), { message: /a list message needs sender and recipient/ })
  t.throws(() => decodeProvisioning('<message xmlns="urn:x" version="1" type="list"/>'), { message: /expected an up-down <message>/ })
  t.throws(() => decodeProvisioning(msg(`version="1" ${base} type="revoke"`, '<key class_name="a" ski="not base64!"/>')), { message: /RFC 6492 §3\.5\.1: <key> ski "not base64!" is not base64url/ })
  t.throws(() => decodeProvisioning(msg(`version="1" ${base} type="issue"`, '<request class_name="a">!!!!</request>')), { message: /RFC 6492 §3\.4\.1: <request> is not valid base64/ })
  t.throws(() => decodeProvisioning(msg(`version="1" ${base} type="issue"`)), { message: /exactly one <request>, found 0/ })
  t.throws(() => decodeProvisioning(msg(`version="1" ${base} type="error_response"`, '<status>abc</status>')), { message: /RFC 6492 §3\.6: <status> "abc"/ })
  const badClass = '<class class_name="a" cert_url="rsync://x/y" resource_set_as="AS1" resource_set_ipv4="" resource_set_ipv6="" resource_set_notafter="2020-01-01T00:00:00Z"><issuer>AAAA</issuer></class>'
  t.throws(() => decodeProvisioning(msg(`version="1" ${base} type="list_response"`, badClass)), { message: /resource_set_as "AS1" contains characters not allowed/ })
  t.throws(() => decodeProvisioning(msg(`version="1" ${base} type="list_response"`, badClass.replace('<issuer>AAAA</issuer>', ''))), { message: /exactly one <issuer>/ })
  t.throws(() => decodeProvisioning(msg(`version="1" ${base} type="list_response"`, badClass.replace('AS1', '1').replace('2020-01-01T00:00:00Z', 'next year'))), {
    message: /RFC 6492 §3\.3\.2: <class> resource_set_notafter "next year" is not a date and time/,
  })
  t.throws(() => decodeProvisioning(msg(`version="1" ${base} type="issue_response"`, badClass.replace('AS1', '1'))), { message: /RFC 6492 §3\.4\.2: <class> in an issue_response has no <certificate>/ })
  t.throws(() => encodeProvisioning({ payload: { type: 'list' } }), { name: 'InspectionError', message: /sender and a recipient/ })
  t.throws(() => encodeProvisioning({ sender: 'p', recipient: 'c', payload: { type: 'issue_response', cls: cls({ certificates: [] }) } }), { name: 'InspectionError', message: /RFC 6492 §3\.4\.2/ })
})

t.test('ERROR_CODES is the RFC 6492 §3.6 table', async (t) => {
  t.same(Object.keys(ERROR_CODES).map(Number), [1101, 1102, 1103, 1104, 1201, 1202, 1203, 1204, 1301, 1302, 2001])
  t.equal(ERROR_CODES[1302], 'revoke - no such key')
})

t.test('canonical encoding', async (t) => {
  t.equal(encodeProvisioning(SAMPLES[0]), `<message xmlns="${PROVISIONING_NS}" version="1" sender="child" recipient="parent" type="list"/>\n`)
  t.equal(
    encodeProvisioning(SAMPLES[8]),
    `<message xmlns="${PROVISIONING_NS}" version="1" sender="parent" recipient="child" type="error_response">\n  <status>1201</status>\n</message>\n`,
  )
})

t.test('everything we emit validates against the RFC 6492 schema and round-trips', { skip: noXmllint }, async (t) => {
  for (const m of SAMPLES) {
    const xml = encodeProvisioning(m)
    const v = validateWithSchema(xml, 'rfc6492')
    t.ok(v.ok, `${m.payload.type} validates: ${v.output}`)
    t.same(decodeProvisioning(xml), m, `${m.payload.type} round-trips`)
  }
})

t.test('a decoding failure says which part failed and who sent it (the parent answers with the matching code)', async (t) => {
  const msg = (attrs: string, body = '') => `<message xmlns="${PROVISIONING_NS}" ${attrs}>${body}</message>`
  const base = 'sender="c" recipient="p"'
  const cases: [string, string, string, string | undefined][] = [
    ['not XML', 'hello', 'xml', undefined],
    ['a DOCTYPE', `<!DOCTYPE message [<!ENTITY x "y">]>${msg(`version="1" ${base} type="list"`)}`, 'xml', undefined],
    ['not an up-down message', '<hello/>', 'xml', undefined],
    ['version 2', msg(`version="2" ${base} type="list"`), 'version', 'c'],
    ['an unknown type', msg(`version="1" ${base} type="gimme"`), 'type', 'c'],
    ['a bad limit', msg(`version="1" ${base} type="issue"`, '<request class_name="a" req_resource_set_ipv4="x!">AAAA</request>'), 'issue', 'c'],
    ['a bad ski', msg(`version="1" ${base} type="revoke"`, '<key class_name="a" ski="!!"/>'), 'revoke', 'c'],
    ['a ski of 3 octets', msg(`version="1" ${base} type="revoke"`, '<key class_name="a" ski="AAAA"/>'), 'revoke', 'c'],
    ['a list with content', msg(`version="1" ${base} type="list"`, '<key class_name="a" ski="AAAA"/>'), 'payload', 'c'],
    ['no sender', msg('version="1" type="list"'), 'xml', undefined],
  ]
  for (const [what, xml, kind, sender] of cases) {
    let caught: unknown
    try {
      decodeProvisioning(xml)
    } catch (e) {
      caught = e
    }
    t.ok(caught instanceof ProvisioningDecodeError, `${what}: a ProvisioningDecodeError`)
    t.match(caught, { kind, sender, message: /RFC|XML/ }, `${what}: kind ${kind}, sender ${sender}`)
  }
})

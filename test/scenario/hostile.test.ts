/**
 * The standing hostile-input suite (issue 10, item 7): every door of svcd — the JSON API, RFC 6492, RFC 8181, RFC 8183
 * documents through svcc, the RRDP paths, files given to svcc — is fed malformed, oversized, encoded and cross-tenant
 * input by a careless operator and by an attacker holding a valid identity (a registered child, a registered
 * publisher). Each input must get a labelled refusal (a 4xx with a `{label,msg,args}` body, a signed protocol error
 * reply, or an svcc message with exit code 1 or 2) and change nothing: not the state the API shows, not the published
 * files over RRDP and rsync, and not any other tenant's content.
 *
 *   testbed ── ca1 (10.0.0.0/8, AS65000-AS65010, ROAs) ── kid (a remote child: RFC 6492)
 *          └── ca2 (192.168.0.0/16)
 *   publication server: testbed, ca1, ca2 (embedded), alice and mallory (remote: RFC 8181)
 */
import t, { type Test } from 'tap'
import { spawnSync } from 'node:child_process'
import https from 'node:https'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ProvisioningPayload } from '../../src/protocol/provisioning.js'
import { decodeProvisioning, encodeProvisioning } from '../../src/protocol/provisioning.js'
import { encodePublicationQuery, type PublicationQuery } from '../../src/protocol/publication.js'
import { MessageSigner, unwrapMessage, unwrapUnverified } from '../../src/protocol/signed-message.js'
import { buildCsr } from '../../src/objects/csr.js'
import { connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { TestChild } from '../helpers/child.js'
import { httpsRequest } from '../helpers/daemon.js'
import { testKey } from '../helpers/keys.js'
import { TestPublisher } from '../helpers/publisher.js'
import { readRrdp, rsyncFetch, sha } from '../helpers/repo.js'

const noRsync = spawnSync('rsync', ['--version']).error ? 'rsync is not installed' : false

interface World {
  d: RepoDaemon
  kid: TestChild
  /** kid's accepted issue request, kept to replay. */
  kidIssue: Uint8Array
  alice: TestPublisher
  mallory: TestPublisher
  aliceUri: string
  aliceHash: string
}

type Answer = Awaited<ReturnType<typeof httpsRequest>>

/** A GET with the target sent exactly as written: URL parsers resolve dot segments (also `%2e%2e`) before sending. */
function rawGet(d: RepoDaemon, target: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: d.port, path: target, headers, rejectUnauthorized: false, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const raw = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw.toString('utf8'), raw })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** What every tenant and relying party sees; a refused input must leave all of it as it was. */
async function observe(w: World): Promise<string> {
  const { d } = w
  const api = async (p: string) => {
    const r = await httpsRequest(`${d.url}api/v1/${p}`, { headers: { Authorization: `Bearer ${d.token}` } })
    if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${r.body}`)
    return JSON.parse(r.body) as unknown
  }
  const cas = ['ta', 'testbed', 'ca1', 'ca2']
  const view = {
    cas: await api('cas'),
    show: await Promise.all(cas.map((c) => api(`cas/${c}`))),
    routes: await Promise.all(cas.map((c) => api(`cas/${c}/routes`))),
    // Refused commands are kept in the history for audit (style.md: a command is stored with its events or its error);
    // what must not change is what took effect.
    history: await Promise.all(cas.map(async (c) => ((await api(`cas/${c}/history/commands`)) as { commands: { effect: object; summary: unknown }[] }).commands.filter((x) => 'Ok' in x.effect).map((x) => x.summary))),
    publishers: await api('pubd/publishers'),
    content: await Promise.all(['alice', 'mallory', 'ca1', 'ca2'].map((p) => api(`pubd/publishers/${p}`))),
    rrdp: await readRrdp(d.url).then((v) => ({ session: v.notification.sessionId, serial: v.notification.serial, objects: [...v.objects].sort() })),
    rsync: [...rsyncFetch(d.rsyncBase)].sort(),
  }
  return JSON.stringify(view)
}

/** What differs between two views, as short `path: before → after` lines (the views are large). */
function changes(before: string, after: string): string[] {
  const flat = (v: unknown, path: string, out: Map<string, string>) => {
    if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) flat(x, `${path}/${k}`, out)
    else out.set(path, String(v).slice(0, 60))
    return out
  }
  const [a, b] = [flat(JSON.parse(before), '', new Map()), flat(JSON.parse(after), '', new Map())]
  const out: string[] = []
  for (const k of new Set([...a.keys(), ...b.keys()])) if (a.get(k) !== b.get(k)) out.push(`${k}: ${a.get(k) ?? '(none)'} → ${b.get(k) ?? '(none)'}`)
  return out.slice(0, 20)
}

/** Wait until nothing moves any more (RRDP serial and rsync tree stable), then return the view. */
async function settled(w: World): Promise<string> {
  let last = ''
  return waitFor('a settled repository', async () => {
    await new Promise((r) => setTimeout(r, 1500))
    const now = await observe(w)
    const same = now === last
    last = now
    return same && now
  }, 90_000)
}

async function build(t: Test): Promise<World> {
  const d = await repoDaemon(t)
  for (const ca of ['ca1', 'ca2']) await d.cli(['add', '-c', ca])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-AS65010', ipv4: '10.0.0.0/8' })
  await connect(d, 'testbed', d, 'ca2', { ipv4: '192.168.0.0/16' })
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('delta.txt', 'A: 10.0.0.0/24 => 65000\nA: 10.1.0.0/16-20 => 65001\n')])
  const kid = new TestChild('kid')
  kid.useResponse(await d.cli(['children', 'add', '-c', 'ca1', '--child', 'kid', '--request', d.file('kid.xml', kid.requestXml()), '-4', '10.2.0.0/16']))
  const listed = await kid.send({ type: 'list' })
  if (listed.type !== 'list_response') throw new Error(`kid's list: ${listed.type}`)
  // kid's certificate, through a message we keep to replay later.
  const csr = buildCsr(testKey(), { caRepository: 'rsync://localhost/repo/kid/0/', rpkiManifest: 'rsync://localhost/repo/kid/0/kid.mft' })
  const kidIssue = await kid.signer.sign(encodeProvisioning({ sender: 'kid', recipient: 'ca1', payload: { type: 'issue', className: listed.classes[0].className, csr } }), new Date())
  const issued = await httpsRequest(kid.response!.serviceUri, { method: 'POST', headers: { 'Content-Type': 'application/rpki-updown' }, body: Buffer.from(kidIssue), binary: true })
  if (decodeProvisioning(unwrapUnverified(new Uint8Array(issued.raw)).xml).payload.type !== 'issue_response') throw new Error(`kid's issue: ${issued.status}`)
  const [alice, mallory] = [new TestPublisher('alice'), new TestPublisher('mallory')]
  for (const p of [alice, mallory]) p.useResponse(await d.cli(['publishers', 'add', '--request', d.file(`${p.handle}.xml`, p.requestXml())]))
  const aliceUri = `${alice.response!.siaBase}a.roa`
  const content = new TextEncoder().encode('alice content')
  const r = await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: aliceUri, content }] })
  if (r.type !== 'success') throw new Error(`alice's publish: ${JSON.stringify(r)}`)
  await mallory.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${mallory.response!.siaBase}m.roa`, content: new TextEncoder().encode('mallory') }] })
  return { d, kid, kidIssue, alice, mallory, aliceUri, aliceHash: sha(content) }
}

/** A labelled 4xx: the right status family and a `{label,msg,args}` body (optionally the given label). */
function labelled(t: Test, r: Answer, what: string, label?: string | RegExp, status?: number): void {
  let body: { label?: unknown; msg?: unknown } = {}
  try {
    body = JSON.parse(r.body) as typeof body
  } catch {
    // checked below
  }
  const ok = r.status >= 400 && r.status < 500 && typeof body.label === 'string' && typeof body.msg === 'string'
  t.ok(ok, `${what}: a labelled 4xx (got ${r.status} ${r.body.slice(0, 160)})`)
  if (status !== undefined) t.equal(r.status, status, `${what}: HTTP ${status}`)
  if (label !== undefined) t.match(body.label, label, `${what}: label ${String(label)}`)
}

const api = (w: World, method: string, path: string, body?: string | Buffer, type = 'application/json') =>
  httpsRequest(`${w.d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${w.d.token}`, ...(body !== undefined ? { 'Content-Type': type } : {}) }, ...(body !== undefined ? { body } : {}) })

const BILLION_LAUGHS = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
const XXE = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'

t.test('hostile input at every door: labelled refusals, nothing changes for anyone', { skip: noRsync, timeout: 600_000 }, async (t) => {
  const w = await build(t)
  const before = await settled(w)
  const unchanged = async (t: Test, door: string) => t.same(changes(before, await observe(w)), [], `${door}: state, RRDP, rsync and every tenant unchanged`)

  await t.test('the JSON API (with the token)', async (t) => {
    labelled(t, await api(w, 'POST', 'cas', '{"handle":'), 'truncated JSON', 'api-json', 400)
    labelled(t, await api(w, 'POST', 'cas', '['.repeat(100_000)), 'JSON nested 100,000 deep', /^api-/, 400)
    labelled(t, await api(w, 'POST', 'cas', '{"__proto__":{"handle":"polluted"}}'), 'a __proto__ key', /^api-invalid-body$|^ca-handle-invalid$/, 400)
    labelled(t, await api(w, 'POST', 'cas', JSON.stringify({ handle: 'x'.repeat(300_000) })), 'a body over the limit', 'api-post-body-exceeds-limit', 413)
    labelled(t, await api(w, 'POST', 'cas', 'handle=ok', 'application/x-www-form-urlencoded'), 'a form (what a cross-site page can send)', 'api-unsupported-media-type', 415)
    labelled(t, await api(w, 'POST', 'cas', '{"handle":"ok"}', 'multipart/form-data; boundary=x'), 'a multipart form', 'api-unsupported-media-type', 415)
    labelled(t, await api(w, 'POST', 'cas/ca2/parents', '<parent_response/>', 'application/octet-stream'), 'a binary type for an RFC 8183 document', 'api-unsupported-media-type', 415)
    labelled(t, await api(w, 'POST', 'cas', Buffer.from([0x7b, 0x22, 0x68, 0xff, 0xfe, 0x22, 0x7d])), 'invalid UTF-8', 'api-invalid-utf8', 400)
    labelled(t, await api(w, 'POST', 'cas', '{"handle":"../ca1"}'), 'a handle with a path', 'ca-handle-invalid', 400)
    labelled(t, await api(w, 'POST', 'cas', '{"handle":"ca1"}'), 'a CA that exists', 'ca-duplicate', 400)
    labelled(t, await api(w, 'POST', 'cas/ca1/routes', JSON.stringify({ added: [{ asn: 65000, prefix: '192.168.0.0/24' }], removed: [] })), "a ROA for ca2's prefix in ca1", /^ca-roa/, 400)
    labelled(t, await api(w, 'POST', 'cas/ca1/routes', JSON.stringify({ added: [{ asn: 65000, prefix: '10.0.0.0/24', max_length: 999 }], removed: [] })), 'a max length beyond the family', /^ca-roa|^api-invalid-body$/, 400)
    labelled(t, await api(w, 'POST', 'cas/ca1/routes', JSON.stringify({ added: [{ asn: 4294967296, prefix: '10.0.0.0/24' }], removed: [] })), 'an ASN beyond 32 bits', /^ca-roa|^api-invalid-body$/, 400)
    labelled(t, await api(w, 'POST', 'cas/ca1/routes', JSON.stringify({ added: [], removed: [{ asn: 65000, prefix: '192.168.0.0/24' }] })), "removing a ROA ca1 doesn't have", /^ca-roa/, 400)
    labelled(t, await api(w, 'POST', 'cas/ca1/children', JSON.stringify({ handle: 'kid2', resources: { asn: '', ipv4: '192.168.0.0/16', ipv6: '' }, id_cert: Buffer.from(w.kid.idCert).toString('base64') })), "a child given ca2's resources", 'ca-child-resources-extra', 400)
    labelled(t, await api(w, 'POST', 'cas/ca1/children', JSON.stringify({ handle: 'kid2', resources: { asn: '', ipv4: '10.3.0.0/16', ipv6: '' }, id_cert: 'AAAA' })), 'an identity certificate that is not a certificate', undefined, 400)
    labelled(t, await api(w, 'DELETE', 'cas/ca1/children/kid%2F..%2F..%2Fca2'), 'an encoded path in a child handle', 'ca-child-unknown', 404)
    labelled(t, await rawGet(w.d, '/api/v1/cas/%2e%2e', { Authorization: `Bearer ${w.d.token}` }), 'an encoded dot segment', 'api-invalid-path', 400)
    labelled(t, await api(w, 'POST', 'cas/ca2/parents', `${BILLION_LAUGHS}<parent_response>&lol3;</parent_response>`, 'application/xml'), 'a parent response with entities', undefined, 400)
    const xxe = await api(w, 'POST', 'pubd/publishers', `${XXE}<publisher_request xmlns="http://www.hactrn.net/uris/rpki/rpki-setup/" version="1" publisher_handle="x"><publisher_bpki_ta>&x;</publisher_bpki_ta></publisher_request>`, 'application/xml')
    labelled(t, xxe, 'a publisher request with an external entity', undefined, 400)
    t.notMatch(xxe.body, /root:/, 'no file content in the answer')
    labelled(t, await api(w, 'POST', 'pubd/publishers', w.alice.requestXml(), 'application/xml'), "alice's request again (taking over her jail)", 'pub-duplicate', 400)
    const renamed = w.mallory.requestXml().replace('publisher_handle="mallory"', 'publisher_handle="../alice"')
    labelled(t, await api(w, 'POST', 'pubd/publishers', renamed, 'application/xml'), 'a publisher handle with a path', undefined, 400)
    const aliceResponse = await w.d.cli(['publishers', 'response', '--publisher', 'alice'])
    labelled(t, await api(w, 'POST', 'cas/ca2/repo', aliceResponse, 'application/xml'), "ca2 pointed at alice's jail", undefined, 400)
    await unchanged(t, 'API')
  })

  await t.test('RFC 6492 (/rfc6492/ca1): the registered child kid and strangers', async (t) => {
    const url = w.kid.response!.serviceUri
    const post = (body: Uint8Array | string, type = 'application/rpki-updown', to = url) => httpsRequest(to, { method: 'POST', headers: { 'Content-Type': type }, body: Buffer.from(body), binary: true })
    /** A refusal: a labelled 4xx, or a reply signed by ca1 that is an error_response. */
    const refusedUpdown = (r: Answer, what: string) => {
      if (r.status !== 200) return labelled(t, r, what)
      const m = unwrapMessage(new Uint8Array(r.raw), { idCert: w.kid.response!.idCert, now: new Date() })
      const p = decodeProvisioning(m.xml).payload
      t.equal(p.type, 'error_response', `${what}: a signed error_response`)
    }
    const signed = (payload: ProvisioningPayload, o: { sender?: string; recipient?: string; signer?: MessageSigner; now?: Date; xml?: string } = {}) =>
      (o.signer ?? w.kid.signer).sign(o.xml ?? encodeProvisioning({ sender: o.sender ?? 'kid', recipient: o.recipient ?? 'ca1', payload }), o.now ?? new Date())
    refusedUpdown(await post(w.kidIssue), "kid's issue request replayed (the newest kid sent: same signing time and content)")
    refusedUpdown(await post('hello'), 'not CMS')
    refusedUpdown(await post(new Uint8Array()), 'an empty body')
    const good = await signed({ type: 'list' })
    refusedUpdown(await post(good.slice(0, good.length >> 1)), 'truncated CMS')
    refusedUpdown(await post(await signed({ type: 'list' }, { xml: `<!DOCTYPE m [<!ENTITY e "x">]>${encodeProvisioning({ sender: 'kid', recipient: 'ca1', payload: { type: 'list' } })}` })), 'a DOCTYPE inside the CMS')
    refusedUpdown(await post(await signed({ type: 'list' }, { sender: 'nobody' })), 'an unknown sender')
    refusedUpdown(await post(await signed({ type: 'list' }, { recipient: 'ca2' })), 'addressed to another CA')
    const stranger = new MessageSigner({ idKey: w.mallory.idKey, idCert: w.mallory.idCert })
    stranger.useEeKey(testKey(), new Date())
    refusedUpdown(await post(await signed({ type: 'list' }, { signer: stranger })), "signed by someone else in kid's name")
    const captured = await signed({ type: 'list' })
    t.equal(decodeProvisioning(unwrapUnverified(new Uint8Array((await post(captured)).raw)).xml).payload.type, 'list_response', 'a fresh message is answered')
    t.equal(decodeProvisioning(unwrapUnverified(new Uint8Array((await post(captured)).raw)).xml).payload.type, 'list_response', 'a list replayed is answered again: it changes nothing (protocol/replay.ts)')
    refusedUpdown(await post(w.kidIssue), "kid's issue request replayed after a newer message")
    const older = await signed({ type: 'list' }, { now: new Date(Date.now() - 60_000) })
    refusedUpdown(await post(older), 'a message signed before the last one accepted')
    const other = await post(await signed({ type: 'list' }, { recipient: 'ca2' }), 'application/rpki-updown', url.replace(/ca1\/?$/, 'ca2'))
    if (other.status === 200) t.equal(decodeProvisioning(unwrapUnverified(new Uint8Array(other.raw)).xml).payload.type, 'error_response', "kid's message to ca2, where kid is no child: an error_response")
    else labelled(t, other, "kid's message to ca2, where kid is no child")
    labelled(t, await post(good, 'application/json'), 'a wrong content type', 'api-unsupported-media-type', 415)
    labelled(t, await post(new Uint8Array(2_000_000)), 'a body over the limit', 'api-post-body-exceeds-limit', 413)
    refusedUpdown(await post(await signed({ type: 'issue', className: '0', csr: new Uint8Array([0x30, 0x00]), limits: { ipv4: '192.168.0.0/16' } })), 'an issue request beyond the entitlement with a broken CSR')
    refusedUpdown(await post(await signed({ type: 'issue', className: 'no-such-class', csr: new Uint8Array([0x30, 0x00]) })), 'an issue request for a class that does not exist')
    refusedUpdown(await post(await signed({ type: 'revoke', className: '0', ski: 'not-a-key-id' })), 'a revoke with a bad key identifier')
    refusedUpdown(await post(await signed({ type: 'revoke', className: '0', ski: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA' })), 'a revoke of a key that was never certified')
    await unchanged(t, 'RFC 6492')
  })

  await t.test('RFC 8181 (/rfc8181/mallory): a registered publisher attacking alice and the repository', async (t) => {
    const m = w.mallory
    const jail = m.response!.siaBase
    const bytes = (s: string) => new TextEncoder().encode(s)
    /** A refusal: a labelled 4xx, or a reply signed by the server that is an error_reply. */
    const refused = async (what: string, body: Uint8Array | string, type = 'application/rpki-publication', url = m.response!.serviceUri) => {
      const r = await m.post(body, type, url)
      if (r.status !== 200) return labelled(t, r, what)
      t.equal(m.reply(r).type, 'error_reply', `${what}: a signed error_reply`)
    }
    const query = (q: PublicationQuery) => m.signer.sign(encodePublicationQuery(q), new Date())
    await refused('not CMS', 'hello')
    await refused('an empty body', new Uint8Array())
    await refused("a publish into alice's jail", await query({ type: 'delta', pdus: [{ type: 'publish', uri: `${w.alice.response!.siaBase}evil.roa`, content: bytes('x') }] }))
    await refused("a replace of alice's object", await query({ type: 'delta', pdus: [{ type: 'publish', uri: w.aliceUri, hash: w.aliceHash, content: bytes('x') }] }))
    await refused("a withdraw of alice's object", await query({ type: 'delta', pdus: [{ type: 'withdraw', uri: w.aliceUri, hash: w.aliceHash }] }))
    await refused('a dot-dot escape', await query({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}../alice/evil.roa`, content: bytes('x') }] }))
    await refused('an encoded slash', await query({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}..%2Falice%2Fevil.roa`, content: bytes('x') }] }))
    await refused('a file and a directory of the same name', await query({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}d.roa`, content: bytes('x') }, { type: 'publish', uri: `${jail}d.roa/x.roa`, content: bytes('y') }] }))
    await refused('a directory over an existing file', await query({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}m.roa/x.roa`, content: bytes('y') }] }))
    await refused('a path longer than file systems take', await query({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}${Array.from({ length: 40 }, () => 'a'.repeat(255)).join('/')}.roa`, content: bytes('x') }] }))
    await refused('a segment over 255 bytes', await query({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}${'b'.repeat(300)}.roa`, content: bytes('x') }] }))
    await refused('a wrong hash for its own object', await query({ type: 'delta', pdus: [{ type: 'withdraw', uri: `${jail}m.roa`, hash: '0'.repeat(64) }] }))
    await refused("mallory's message at alice's endpoint", await query({ type: 'list' }), 'application/rpki-publication', w.alice.response!.serviceUri)
    await refused('a DOCTYPE inside the CMS', await m.signer.sign(`<!DOCTYPE m [<!ENTITY e "x">]>${encodePublicationQuery({ type: 'list' })}`, new Date()))
    const r = await m.post(await query({ type: 'list' }), 'text/plain')
    labelled(t, r, 'a wrong content type', 'api-unsupported-media-type', 415)
    await unchanged(t, 'RFC 8181')
  })

  await t.test('RFC 8183 documents and other files given to svcc', async (t) => {
    const { d } = w
    const dir = join(d.dataDir, '..', 'hostile-files')
    mkdirSync(dir, { recursive: true })
    const file = (name: string, content: string | Buffer) => {
      const p = join(dir, name)
      writeFileSync(p, content)
      return p
    }
    const refusedCli = async (what: string, args: string[]) => {
      const r = await d.run(args)
      t.ok(r.code === 1 || r.code === 2, `${what}: exit 1 or 2 (got ${r.code}: ${r.stderr.trim().slice(0, 160)})`)
      t.ok(r.stderr.trim().length > 0, `${what}: says why`)
      t.notMatch(r.stderr, /\n\s+at .+\(.+:\d+:\d+\)/, `${what}: no stack trace`)
    }
    const junk = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) & 0xff))
    await refusedCli('a missing request file', ['children', 'add', '-c', 'ca1', '--child', 'x', '--request', join(dir, 'missing.xml'), '-4', '10.3.0.0/16'])
    await refusedCli('a binary request file', ['children', 'add', '-c', 'ca1', '--child', 'x', '--request', file('junk.xml', junk), '-4', '10.3.0.0/16'])
    await refusedCli('a directory as request file', ['children', 'add', '-c', 'ca1', '--child', 'x', '--request', dir, '-4', '10.3.0.0/16'])
    await refusedCli('a child request with entities', ['children', 'add', '-c', 'ca1', '--child', 'x', '--request', file('laughs.xml', `${BILLION_LAUGHS}<child_request>&lol3;</child_request>`), '-4', '10.3.0.0/16'])
    await refusedCli('a parent response with an external entity', ['parents', 'add', '-c', 'ca2', '-p', 'evil', '-r', file('xxe.xml', `${XXE}<parent_response>&x;</parent_response>`)])
    await refusedCli('a publisher request with an identity that is no certificate', ['publishers', 'add', '--request', file('badcert.xml', '<publisher_request xmlns="http://www.hactrn.net/uris/rpki/rpki-setup/" version="1" publisher_handle="eve"><publisher_bpki_ta>AAAA</publisher_bpki_ta></publisher_request>')])
    await refusedCli('a binary ROA delta', ['roas', 'update', '-c', 'ca1', '--delta', file('junk.txt', junk)])
    await refusedCli('a ROA delta naming ca2 prefixes', ['roas', 'update', '-c', 'ca1', '--delta', file('theirs.txt', 'A: 192.168.0.0/24 => 65000\n')])
    await refusedCli("ca2 pointed at alice's repository response", ['repo', 'update', '-c', 'ca2', '-r', file('alice-response.xml', await d.cli(['publishers', 'response', '--publisher', 'alice']))])
    await refusedCli('an rsync base with a dot-dot', ['repo', 'update', '-c', 'ca2', '-r', file('dotdot.xml', (await d.cli(['publishers', 'response', '--publisher', 'ca2'])).replace(/sia_base="([^"]+)"/, 'sia_base="$1../alice/"'))])
    await unchanged(t, 'RFC 8183 and files')
  })

  await t.test('RRDP paths (no token)', async (t) => {
    const get = (p: string, method = 'GET') => (method === 'GET' ? rawGet(w.d, `/${p}`) : httpsRequest(`${w.d.url}${p}`, { method }))
    const n = await readRrdp(w.d.url)
    const session = n.notification.sessionId
    for (const p of ['rrdp/../svcd.db', 'rrdp/%2e%2e/svcd.db', 'rrdp/notification.xml%00', `rrdp/${session}/1/../../../svcd.db`, 'rrdp//notification.xml', 'rrdp/notification.xml;x']) {
      labelled(t, await get(p), p, 'api-invalid-path', 400)
    }
    for (const p of ['rrdp/..%2Fsvcd.db', 'rrdp/admin_token', 'rrdp/svcd.db', `rrdp/${session}`, `rrdp/${session}/`, 'rrdp/notification.xml.tmp', `rrdp/${session}/1/0000000000000000/snapshot.xml`]) {
      labelled(t, await get(p), p, 'api-unknown-resource', 404)
    }
    labelled(t, await get('rrdp/notification.xml', 'POST'), 'POST to an RRDP file', 'api-invalid-credentials', 401)
    labelled(t, await get('RRDP/notification.xml'), 'another case', 'api-invalid-credentials', 401)
    await unchanged(t, 'RRDP paths')
  })
})

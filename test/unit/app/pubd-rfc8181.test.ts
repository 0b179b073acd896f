/**
 * The RFC 8181 endpoint of the publication server (app/pubd/rfc8181-endpoint.ts) with real CMS: replay protection within one
 * second (issue 10, defect 6). A captured "publish x" replayed after a "withdraw x" signed in the same second used
 * to bring x back, since signing-time has a resolution of one second. Now the digest of every changing message is
 * kept for the newest signing time, in the database, so a restart keeps it; a replay gets a signed
 * bad_cms_signature report and changes nothing.
 */
import t, { type Test } from 'tap'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { PubdCodec } from '../../../src/app/pubd/message-codec.js'
import type { PublicationService } from '../../../src/app/pubd/publication-service.js'
import { createIdCert } from '../../../src/protocol/id-cert.js'
import { decodePublicationReply, encodePublicationQuery, type PublicationQuery, type PublicationReply } from '../../../src/protocol/publication.js'
import { MessageSigner, unwrapMessage } from '../../../src/protocol/signed-message.js'
import { Db } from '../../../src/store/db.js'
import { tempDir } from '../../helpers/daemon.js'
import { testKey } from '../../helpers/keys.js'
import { buildPubdService } from '../../helpers/pubd-service.js'

const T = new Date('2026-05-01T12:00:00Z')
const sha = (s: string) => createHash('sha256').update(s).digest('hex')
const bytes = (s: string) => new TextEncoder().encode(s)
const serverKey = testKey()
const serverCert = createIdCert(serverKey, new Date(T.getTime() - 3600_000))
const publisherKey = testKey()
const publisherCert = createIdCert(publisherKey, new Date(T.getTime() - 3600_000))
const publisher = new MessageSigner({ idKey: publisherKey, idCert: publisherCert })
publisher.useEeKey(testKey(), T)

async function server(t: Test, dir: string, now: () => Date): Promise<PublicationService> {
  const db = Db.open(join(dir, 'svcd.db'))
  const messages = new MessageSigner({ idKey: serverKey, idCert: serverCert })
  messages.useEeKey(testKey(), T)
  const { service: pub, close } = buildPubdService({ dataDir: dir, db, dbPath: join(dir, 'svcd.db'), codec: new PubdCodec(messages), now })
  await pub.outputs.start()
  t.teardown(async () => {
    await pub.outputs.stop()
    close()
    db.close()
  })
  return pub
}

async function send(pub: PublicationService, cms: Uint8Array, now: Date): Promise<PublicationReply> {
  const reply = await pub.publishers.rfc8181('alice', cms)
  return decodePublicationReply(unwrapMessage(reply, { idCert: serverCert, now }).xml)
}

const sign = (q: PublicationQuery, at = T) => publisher.sign(encodePublicationQuery(q), at)
const code = (r: PublicationReply) => (r.type === 'error_reply' ? r.errors.map((e) => e.code).join() : r.type)

t.test('a captured publish replayed after a withdraw signed in the same second is refused, also after a restart', async (t) => {
  const dir = tempDir(t)
  let now = new Date(T.getTime() + 400)
  const pub = await server(t, dir, () => now)
  pub.publishers.publisherAdd({ publisherHandle: 'alice', idCert: publisherCert })
  const x = 'rsync://localhost/repo/alice/x.roa'
  const publishX = await sign({ type: 'delta', pdus: [{ type: 'publish', uri: x, content: bytes('X') }] })
  const withdrawX = await sign({ type: 'delta', pdus: [{ type: 'withdraw', uri: x, hash: sha('X') }] })
  t.equal(code(await send(pub, publishX, now)), 'success', 'publish x at 12:00:00')
  t.equal(code(await send(pub, withdrawX, now)), 'success', 'withdraw x, signed in the same second')
  const replay = await send(pub, publishX, now)
  t.equal(code(replay), 'bad_cms_signature', 'the captured publish x, replayed: refused')
  t.match(replay.type === 'error_reply' && replay.errors[0].text, /RFC 6492 §3\.1\.2: a message with this content signed at 2026-05-01T12:00:00Z was already received: replay/)
  t.same(pub.publishers.store.listObjects('alice'), [], 'x did not come back')
  t.equal(code(await send(pub, withdrawX, now)), 'bad_cms_signature', 'a replayed withdraw too')

  const list = await sign({ type: 'list' })
  t.equal(code(await send(pub, list, now)), 'list_reply', 'a list in the same second')
  t.equal(code(await send(pub, await sign({ type: 'list' }), now)), 'list_reply', 'and another one: lists change nothing, never refused for their content')
  const y = await sign({ type: 'delta', pdus: [{ type: 'publish', uri: 'rsync://localhost/repo/alice/y.roa', content: bytes('Y') }] })
  t.equal(code(await send(pub, y, now)), 'success', 'a new changing message in the same second is accepted')

  // A restart: new publication services on the same database still knows what it saw at 12:00:00.
  await pub.outputs.stop()
  now = new Date(T.getTime() + 800)
  const again = await server(t, dir, () => now)
  t.equal(code(await send(again, publishX, now)), 'bad_cms_signature', 'after a restart the replay is still refused')
  t.equal(code(await send(again, y, now)), 'bad_cms_signature')
  t.same(again.publishers.store.listObjects('alice').map((o) => o.uri), ['rsync://localhost/repo/alice/y.roa'], 'nothing changed')
  const older = await sign({ type: 'delta', pdus: [{ type: 'publish', uri: 'rsync://localhost/repo/alice/z.roa', content: bytes('Z') }] }, new Date(T.getTime() - 1000))
  t.equal(code(await send(again, older, now)), 'bad_cms_signature', 'a message signed a second before the newest one seen: refused')
  const next = await sign({ type: 'delta', pdus: [{ type: 'publish', uri: x, content: bytes('X') }] }, new Date(T.getTime() + 1000))
  now = new Date(T.getTime() + 1200)
  t.equal(code(await send(again, next, now)), 'success', 'publishing x again, signed in the next second, is fine')
})

t.test('two services on one database: the replay state is read from the database, not from what one remembers (issue 22, defect 3)', async (t) => {
  const dir = tempDir(t)
  const now = new Date(T.getTime() + 400)
  const a = await server(t, dir, () => now)
  // A second instance on the same database, with its own data directory (RRDP files, rsync tree).
  const other = tempDir(t)
  const db = Db.open(join(dir, 'svcd.db'))
  const messages = new MessageSigner({ idKey: serverKey, idCert: serverCert })
  messages.useEeKey(testKey(), T)
  const { service: b, close } = buildPubdService({ dataDir: other, db, dbPath: join(dir, 'svcd.db'), codec: new PubdCodec(messages), now: () => now })
  t.teardown(() => {
    close()
    db.close()
  })
  a.publishers.publisherAdd({ publisherHandle: 'alice', idCert: publisherCert })
  const x = 'rsync://localhost/repo/alice/x.roa'
  t.equal(code(await send(b, await sign({ type: 'list' }), now)), 'list_reply', 'B has seen alice (a list at 12:00:00)')
  const publishX = await sign({ type: 'delta', pdus: [{ type: 'publish', uri: x, content: bytes('X') }] })
  t.equal(code(await send(a, publishX, now)), 'success', 'publish x through A')
  t.equal(code(await send(a, await sign({ type: 'delta', pdus: [{ type: 'withdraw', uri: x, hash: sha('X') }] }), now)), 'success', 'withdraw x through A')
  t.equal(code(await send(b, publishX, now)), 'bad_cms_signature', 'the captured publish x, replayed through B: refused')
  t.same(b.publishers.store.listObjects('alice'), [], 'x did not come back')
})

/**
 * The publish → notification delay (app/pubd/publish-latency.ts): the marks alone, and wired into the real
 * publication side (SQLite store, RRDP writer) as compose.ts wires it: each acknowledged publish is observed once,
 * when the notification that contains it is written, with the delay the clock shows.
 */
import { join } from 'node:path'
import t from 'tap'
import { PublishLatency } from '../../../src/app/pubd/publish-latency.js'
import { PubdCodec } from '../../../src/app/pubd/message-codec.js'
import { createIdCert } from '../../../src/protocol/id-cert.js'
import { MessageSigner } from '../../../src/protocol/signed-message.js'
import { Db } from '../../../src/store/db.js'
import { tempDir } from '../../helpers/daemon.js'
import { testKey } from '../../helpers/keys.js'
import { buildPubdService } from '../../helpers/pubd-service.js'

const T = new Date('2026-05-01T12:00:00Z')

t.test('by seq: each acknowledgement is observed once, when a notification with its changes is written', async (t) => {
  const seen: number[] = []
  const l = new PublishLatency((s) => seen.push(s), 3)
  l.notified([], 1000)
  t.same(seen, [], 'nothing acknowledged, nothing observed')
  l.acked(7, 1000)
  l.acked(9, 1500)
  l.acked(8, 1800) // seqs need not come in order: another transaction may take a lower one and commit later
  t.same(l.waitingSeqs(), [7, 9, 8])
  l.notified([5, 6, 7, 9], 2000)
  t.same(seen, [1, 0.5], 'the two whose seqs the serial consumed (5 and 6 were acknowledged by another instance)')
  t.equal(l.waiting(), 1)
  l.notified([7, 9], 2500)
  t.same(seen, [1, 0.5], 'observed once only')
  l.notified([8], 3000)
  t.same(seen, [1, 0.5, 1.2])
  for (const [seq, at] of [[10, 4000], [11, 4100], [12, 4200], [13, 4300], [14, 4400]] as const) l.acked(seq, at)
  t.equal(l.waiting(), 3, 'at most max waiting')
  t.equal(l.dropped, 2, 'the oldest dropped and counted')
  l.notified([10, 11, 12, 13, 14], 5000)
  t.same(seen.slice(3), [0.8, 0.7, 0.6], 'the newest three observed')
})

t.test('the real publication side: one observation per acknowledged publish, at the notification', async (t) => {
  const dir = tempDir(t)
  let now = T
  const seen: number[] = []
  const latency = new PublishLatency((s) => seen.push(s))
  const db = Db.open(join(dir, 'svcd.db'))
  const cert = createIdCert(testKey(), new Date(T.getTime() - 3600_000))
  const messages = new MessageSigner({ idKey: testKey(), idCert: cert })
  const { service: pub, close } = buildPubdService({ dataDir: dir, db, dbPath: join(dir, 'svcd.db'), codec: new PubdCodec(messages), now: () => now, latency })
  await pub.outputs.start()
  t.teardown(async () => {
    await pub.outputs.stop()
    close()
    db.close()
  })
  await pub.outputs.flushed()
  pub.publishers.publisherAdd({ publisherHandle: 'alice', idCert: cert })
  const pdu = (name: string) => ({ type: 'publish' as const, uri: `rsync://localhost/repo/alice/${name}`, content: new Uint8Array([1, 2, 3]) })
  t.equal(pub.publishers.publish('alice', { type: 'delta', pdus: [pdu('a.roa')] }).type, 'success')
  now = new Date(T.getTime() + 250)
  t.equal(pub.publishers.publish('alice', { type: 'delta', pdus: [pdu('b.roa'), pdu('c.roa')] }).type, 'success')
  t.equal(pub.publishers.publish('alice', { type: 'list' }).type, 'list_reply', 'a list changes nothing and is not counted')
  now = new Date(T.getTime() + 1000)
  await pub.outputs.flushed()
  t.same(seen, [1, 0.75], 'two publishes, each observed once when the notification holding it was written')
  t.equal(latency.waiting(), 0)
  t.equal(pub.publishers.store.rrdpState()?.serial, 2, 'in one new serial')
})

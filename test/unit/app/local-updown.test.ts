/**
 * RFC 6492 between two CAs of the same svcd goes in-process without CMS (app/ca/parent-client.ts, child-server.ts
 * local()): each side is still identified by its identity certificate, as the signatures would prove. A child whose
 * registered identity is another CA's gets nothing, and a parent response naming another identity than the parent's
 * is refused by the child; the right identities get certified.
 *
 *   ta ── testbed ── good, wrong-id, wrong-parent-id
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaults, verifyConfig } from '../../../src/config.js'
import { compose } from '../../../src/compose.js'
import { silentLogger } from '../../../src/log.js'

t.test('in-process RFC 6492 checks both identities', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-local-updown-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const config = defaults()
  Object.assign(config, { data_dir: dir + '/', port: 3999, key_pool_size: 2 })
  Object.assign(config.repository, { enabled: true, rrdp_base_uri: 'https://localhost:3999/rrdp/', rsync_base_uri: 'rsync://localhost:3998/repo/', rsync_daemon: 'off' })
  config.testbed.enabled = true
  verifyConfig(config, 'test')
  const svc = await compose({ config, dataDir: dir, log: silentLogger() })
  t.teardown(() => svc.shutdown())
  svc.startKeyPool()
  await svc.start()
  await svc.scheduler.stop() // parent syncs are asked for below, one at a time
  const { cas, parents, children } = svc.services
  await cas.caFlushed('testbed')

  const certified = (ca: string) => Object.values(cas.caShow(ca).resource_classes).some((rc) => Object.values(rc.keys).some((k) => Object.values(k).some((key) => key.incoming_cert !== null)))
  const lastExchange = (ca: string) => parents.caParentStatuses(ca).testbed?.last_exchange
  const resources = { asn: '', ipv4: '10.0.0.0/16', ipv6: '' }

  for (const h of ['good', 'wrong-id', 'wrong-parent-id']) await cas.caAdd(h)

  // The child registered under testbed with another CA's identity: testbed must not answer it.
  const other = cas.caChildRequest('good').id_cert
  const r1 = await children.caChildAdd('testbed', { handle: 'wrong-id', resources, id_cert: other })
  const e1 = await parents.caParentAdd('wrong-id', { json: { handle: 'testbed', response: r1 } }).catch((e: unknown) => e)
  t.match(e1, { label: 'ca-parent-issue', message: /answered error 2001.*not the identity registered for this child/ }, 'the parent answered an error_response saying why')
  t.same(cas.caShow('wrong-id').parents, [], 'so the parent was not added')
  t.notOk(certified('wrong-id'), 'a child with another identity than the registered one is not certified')

  // The parent response names another identity (ta's) than the parent's: the child refuses the answer.
  const r2 = await children.caChildAdd('testbed', { handle: 'wrong-parent-id', resources: { ...resources, ipv4: '10.1.0.0/16' }, id_cert: cas.caChildRequest('wrong-parent-id').id_cert })
  const taId = cas.caShow('ta').id_cert.base64
  const e2 = await parents.caParentAdd('wrong-parent-id', { json: { handle: 'testbed', response: { ...r2, id_cert: taId } } }).catch((e: unknown) => e)
  t.match(e2, { label: 'ca-parent-issue', message: /another identity than the one in its parent response/ }, 'the child refuses the answer')
  t.same(cas.caShow('wrong-parent-id').parents, [])
  t.notOk(certified('wrong-parent-id'), 'an answer from another identity than the parent response names is not used')

  // The right identities on both sides: certified, in-process.
  const r3 = await children.caChildAdd('testbed', { handle: 'good', resources: { ...resources, ipv4: '10.2.0.0/16' }, id_cert: other })
  await parents.caParentAdd('good', { json: { handle: 'testbed', response: r3 } })
  await parents.caSyncParents('good')
  await parents.idle()
  t.ok(certified('good'), 'the child with its own identity is certified')
  t.match(lastExchange('good'), { result: 'Success' })
})

/**
 * Every store contract against PostgreSQL (store/postgres.ts over a PgDb): a cluster of the test's own
 * (test/helpers/postgres.ts), a fresh database per factory call; and what PgDb adds: placeholders, transactions
 * and savepoints, SQLSTATE codes, refusal to downgrade.
 */
import t from 'tap'
import { numbered, PgDb, type PgError } from '../../src/store/pg-db.js'
import { PG_MIGRATIONS } from '../../src/store/pg-migrations.js'
import { createPostgresStores } from '../../src/store/postgres.js'
import { startPostgres } from '../helpers/postgres.js'
import { caObjectsStoreContract } from './ca-objects-store.contract.js'
import { caStatusStoreContract } from './ca-status-store.contract.js'
import { caStoreContract } from './ca-store.contract.js'
import { tokenStoreContract } from './token-store.contract.js'
import { planStoreContract } from './plan-store.contract.js'
import { alertStoreContract } from './alert-store.contract.js'
import { auditStoreContract, loginStoreContract, sessionStoreContract } from './access-stores.contract.js'
import { childReplayStoreContract } from './child-replay-store.contract.js'
import { propertyStoreContract } from './properties.contract.js'
import { pubdStoreContract } from './pubd-store.contract.js'
import type { StoresFactory } from './stores.contract.js'
import { taskStoreContract } from './task-store.contract.js'

const cluster = await startPostgres(t)
let n = 0

const postgres: StoresFactory = () => {
  const uri = cluster.createDatabase(`stores_${++n}`)
  const db = PgDb.open(uri, `stores_${n}`)
  const others: PgDb[] = []
  return {
    stores: createPostgresStores(db),
    reopen: () => {
      const other = PgDb.open(uri, `stores_${n}`)
      others.push(other)
      return createPostgresStores(other)
    },
    close: () => [db, ...others].forEach((d) => d.close()),
  }
}

t.test('CaStore', async (t) => caStoreContract(t, postgres))
t.test('CaObjectsStore', async (t) => caObjectsStoreContract(t, postgres))
t.test('CaStatusStore', async (t) => caStatusStoreContract(t, postgres))
t.test('TaskStore', async (t) => taskStoreContract(t, postgres))
t.test('PublicationStore', async (t) => pubdStoreContract(t, postgres))
t.test('PropertyStore', async (t) => propertyStoreContract(t, postgres))
t.test('ChildReplayStore', async (t) => childReplayStoreContract(t, postgres))
t.test('SessionStore', async (t) => sessionStoreContract(t, postgres))
t.test('AuditStore', async (t) => auditStoreContract(t, postgres))
t.test('TokenStore', async (t) => tokenStoreContract(t, postgres))
t.test('LoginStore', async (t) => loginStoreContract(t, postgres))
t.test('PlanStore', async (t) => planStoreContract(t, postgres))
t.test('AlertStore', async (t) => alertStoreContract(t, postgres))

t.test('placeholders: ? becomes $n outside quotes', async (t) => {
  t.equal(numbered("SELECT a FROM t WHERE b = ? AND c <> '?' AND \"d?\" = ? LIMIT ?"), "SELECT a FROM t WHERE b = $1 AND c <> '?' AND \"d?\" = $2 LIMIT $3")
})

t.test('PgDb: a failed transaction leaves nothing; nested ones are savepoints; errors carry the SQLSTATE', async (t) => {
  const db = PgDb.open(cluster.createDatabase('tx'), 'tx')
  t.teardown(() => db.close())
  const set = db.prepare('INSERT INTO properties (key, value) VALUES (?, ?)')
  const get = (k: string) => (db.prepare('SELECT value FROM properties WHERE key = ?').get(k) as { value: string } | undefined)?.value
  t.throws(() => db.transaction(() => {
    set.run('a', '1')
    throw new Error('boom')
  }), /boom/)
  t.equal(get('a'), undefined, 'rolled back')
  db.transaction(() => {
    set.run('b', '1')
    try {
      db.transaction(() => {
        set.run('c', '1')
        set.run('c', '2')
      })
      t.fail('a duplicate key is refused')
    } catch (e) {
      t.equal((e as PgError).code, '23505', 'a unique violation, with its SQLSTATE')
    }
    set.run('d', '1')
  })
  t.same([get('b'), get('c'), get('d')], ['1', undefined, '1'], 'the inner transaction alone rolled back')
  t.equal(db.version(), PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version)
  const future = cluster.createDatabase('future')
  PgDb.open(future, 'future', [...PG_MIGRATIONS, { version: 99, name: 'f', sql: 'CREATE TABLE f (x int)' }]).close()
  t.throws(() => PgDb.open(future, 'future'), /schema version 99 is newer than this svcd knows \(\d+\); refusing to downgrade/)
})

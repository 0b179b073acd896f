/**
 * Every store of one svcd over one PostgreSQL database (store/interfaces.ts `Stores`): the same store classes as
 * SQLite's (their SQL is the dialects' common subset, sql.ts) over a PgDb, whose synchronous connection keeps the
 * store interfaces and their transactions as they are (pg-db.ts says why). Built by the composition root and by the
 * contract suite's PostgreSQL runner (test/contract/postgres.test.ts).
 */
import { SqliteCaObjectsStore } from './ca-objects-store.js'
import { SqliteCaStatusStore } from './ca-status-store.js'
import { SqliteCaStore } from './ca-store.js'
import type { Stores } from './interfaces.js'
import type { PgDb } from './pg-db.js'
import { propertyStore } from './properties.js'
import { SqlitePubdStore } from './pubd-store.js'
import { SqliteTaskStore } from './task-store.js'

/** The stores over `db`; `transaction` is the connection's (BEGIN … COMMIT; nested calls are savepoints). */
export function createPostgresStores(db: PgDb): Stores {
  return {
    cas: new SqliteCaStore(db),
    objects: new SqliteCaObjectsStore(db),
    status: new SqliteCaStatusStore(db),
    tasks: new SqliteTaskStore(db),
    pubd: new SqlitePubdStore(db),
    properties: propertyStore(db),
    transaction: (fn) => db.transaction(fn),
  }
}

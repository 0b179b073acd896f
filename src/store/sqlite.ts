/**
 * Every store of one svcd over one SQLite database (store/interfaces.ts `Stores`): built by the composition root and
 * by the contract suite's SQLite runner (test/contract/sqlite.test.ts).
 */
import { SqliteCaObjectsStore } from './ca-objects-store.js'
import { SqliteCaStatusStore } from './ca-status-store.js'
import { SqliteChildReplayStore } from './child-replay-store.js'
import { SqliteCaStore } from './ca-store.js'
import type { SqlDb } from './sql.js'
import type { Stores } from './interfaces.js'
import { propertyStore } from './properties.js'
import { SqlitePubdStore } from './pubd-store.js'
import { SqliteTaskStore } from './task-store.js'

/** The stores over `db`; `transaction` is the database's (nested calls join the outer one through savepoints). */
export function createSqliteStores(db: SqlDb): Stores {
  return {
    cas: new SqliteCaStore(db),
    objects: new SqliteCaObjectsStore(db),
    status: new SqliteCaStatusStore(db),
    tasks: new SqliteTaskStore(db),
    pubd: new SqlitePubdStore(db),
    properties: propertyStore(db),
    childReplay: new SqliteChildReplayStore(db),
    transaction: (fn) => db.transaction(fn),
  }
}

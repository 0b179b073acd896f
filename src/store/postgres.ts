/**
 * Every store of one svcd over one PostgreSQL database (store/interfaces.ts `Stores`): the same store classes as
 * SQLite's (their SQL is the dialects' common subset, sql.ts) over a PgDb, whose synchronous connection keeps the
 * store interfaces and their transactions as they are (pg-db.ts says why). Built by the composition root and by the
 * contract suite's PostgreSQL runner (test/contract/postgres.test.ts): the SQLite factory over the PostgreSQL connection.
 */
import type { Stores } from './interfaces.js'
import type { PgDb } from './pg-db.js'
import { createSqlStores } from './sql-stores.js'

/** The stores over `db`; `transaction` is the connection's (BEGIN … COMMIT; nested calls are savepoints). */
export function createPostgresStores(db: PgDb): Stores {
  return createSqlStores(db)
}

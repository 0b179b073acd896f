/** Every store contract against SQLite (store/sql-stores.ts over a database in a temporary directory). */
import { join } from 'node:path'
import t from 'tap'
import { Db } from '../../src/store/db.js'
import { createSqlStores } from '../../src/store/sql-stores.js'
import { tempDir } from '../helpers/daemon.js'
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

const dir = tempDir(t, 'svc-contract-')
let n = 0

const sqlite: StoresFactory = () => {
  const path = join(dir, `stores-${++n}.db`)
  const db = Db.open(path)
  const others: Db[] = []
  return {
    stores: createSqlStores(db),
    reopen: () => {
      const other = Db.open(path)
      others.push(other)
      return createSqlStores(other)
    },
    close: () => [db, ...others].forEach((d) => d.close()),
  }
}

t.test('CaStore', async (t) => caStoreContract(t, sqlite))
t.test('CaObjectsStore', async (t) => caObjectsStoreContract(t, sqlite))
t.test('CaStatusStore', async (t) => caStatusStoreContract(t, sqlite))
t.test('TaskStore', async (t) => taskStoreContract(t, sqlite))
t.test('PublicationStore', async (t) => pubdStoreContract(t, sqlite))
t.test('PropertyStore', async (t) => propertyStoreContract(t, sqlite))
t.test('ChildReplayStore', async (t) => childReplayStoreContract(t, sqlite))
t.test('SessionStore', async (t) => sessionStoreContract(t, sqlite))
t.test('AuditStore', async (t) => auditStoreContract(t, sqlite))
t.test('TokenStore', async (t) => tokenStoreContract(t, sqlite))
t.test('LoginStore', async (t) => loginStoreContract(t, sqlite))
t.test('PlanStore', async (t) => planStoreContract(t, sqlite))
t.test('AlertStore', async (t) => alertStoreContract(t, sqlite))

/**
 * Every store of one svcd over one SQLite database (store/interfaces.ts `Stores`): built by the composition root and
 * by the contract suite's SQLite runner (test/contract/sqlite.test.ts).
 */
import { SqlCaObjectsStore } from './ca-objects-store.js'
import { SqlCaStatusStore } from './ca-status-store.js'
import { SqlChildReplayStore } from './child-replay-store.js'
import { SqlCaStore } from './ca-store.js'
import type { SqlDb } from './sql.js'
import type { Stores } from './interfaces.js'
import { propertyStore } from './properties.js'
import { SqlPublicationStore } from './pubd-store.js'
import { SqlAuditStore } from './audit-store.js'
import { SqlLoginStore } from './login-store.js'
import { SqlSessionStore } from './session-store.js'
import { SqlTaskStore } from './task-store.js'
import { SqlTokenStore } from './token-store.js'
import { SqlPlanStore } from './plan-store.js'
import { SqlSignerStore } from './signer-store.js'
import { SqlLivenessStore } from './liveness-store.js'
import { SqlAlertStore } from './alert-store.js'
import { SqlQuarantineStore } from './quarantine-store.js'

/** The stores over `db`; `transaction` is the database's (nested calls join the outer one through savepoints). */
export function createSqlStores(db: SqlDb): Stores {
  return {
    cas: new SqlCaStore(db),
    objects: new SqlCaObjectsStore(db),
    status: new SqlCaStatusStore(db),
    tasks: new SqlTaskStore(db),
    publication: new SqlPublicationStore(db),
    properties: propertyStore(db),
    childReplay: new SqlChildReplayStore(db),
    sessions: new SqlSessionStore(db),
    audit: new SqlAuditStore(db),
    tokens: new SqlTokenStore(db),
    logins: new SqlLoginStore(db),
    plans: new SqlPlanStore(db),
    signers: new SqlSignerStore(db),
    liveness: new SqlLivenessStore(db),
    alerts: new SqlAlertStore(db),
    quarantine: new SqlQuarantineStore(db),
    transaction: (fn) => db.transaction(fn),
  }
}

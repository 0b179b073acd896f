/**
 * The storage interfaces, one per aggregate (design.md §2, §6): CAs with their history, CA objects, CA exchange
 * status, the publication server, scheduled tasks, server properties, and private keys (crypto/signer.ts KeyStore).
 * Services depend on these, never on an implementation; the composition root picks SQLite (store/*.ts) or, later,
 * PostgreSQL. Every implementation passes the contract suite in test/contract/.
 */
import type { AlertStore } from './alert-interfaces.js'
import type { CaState } from '../ca/state.js'
import type { CaKeyObjects, CaKeySummary, StoredCaObject } from '../ca/object-model.js'
import type { AggregateStore, StoredCommand } from '../eventsourcing.js'
import type { ContentChange } from '../pubd/content.js'
import type { Publisher } from '../pubd/publishers.js'
import type { ReplayState } from '../protocol/replay.js'
import type { QuotaUsage, Usage } from '../pubd/quota.js'
import type { RrdpDeltaInfo, RrdpState } from '../pubd/rrdp/model.js'

export type { KeyStore } from '../crypto/signer.js'
export type * from './access-interfaces.js'
export type * from './plan-interfaces.js'
export type * from './signer-interfaces.js'
export type * from './liveness-interfaces.js'
import type { AuditStore, LoginStore, SessionStore, TokenStore } from './access-interfaces.js'
import type { PlanStore } from './plan-interfaces.js'
import type { SignerRegistryStore } from './signer-interfaces.js'
import type { LivenessStore } from './liveness-interfaces.js'
import type { QuarantineStore } from './quarantine-interfaces.js'

//------------ CAs and their history --------------------------------------------------------------------------------

export interface HistoryQuery {
  offset: number
  rows: number
  after?: string
  before?: string
  /** Include publication entries (repository updates, which are not commands). */
  full: boolean
  /** Only the records whose action label, message or actor hold this text (case-insensitive). */
  q?: string
  /** By number: oldest first (the default) or newest first; `offset` counts from the first. */
  order?: 'asc' | 'desc'
}

/** CAs: the current state (snapshot with a version) and the history of commands (eventsourcing.ts). */
export interface CaStore extends AggregateStore<CaState> {
  /**
   * The CA's state at its version. The state is READ-ONLY: implementations may cache it and hand the same object to
   * every caller (SQLite deep-freezes it, so a write throws in strict mode); copy it (structuredClone) to change it.
   */
  load(handle: string): { version: number; state: CaState } | undefined
  handles(): string[]
  exists(handle: string): boolean
  /** The state's version (it changes with every command that changed the CA), without reading the state. */
  version(handle: string): number | undefined
  /** Create a CA: its first history entry and its state at version 1, in one transaction. */
  create(cmd: Omit<StoredCommand, 'seq'>, state: CaState): void
  /** Remove a CA with its history, objects and status. */
  remove(handle: string): void
  /** Record a publication (not a command: it changes no CA state) for `history --full`. */
  appendPublication(handle: string, time: string, summary: StoredCommand['summary']): number
  history(handle: string, q: HistoryQuery): { total: number; records: StoredCommand[] }
  command(handle: string, seq: number): StoredCommand | undefined
}

//------------ CA objects -------------------------------------------------------------------------------------------

/** The current objects of each CA key; saving replaces a CA's objects atomically. */
export interface CaObjectsStore {
  load(handle: string): CaKeyObjects[]
  /** What load() returns without the objects' bytes (for views and renewal times: cheap for a CA with many). */
  summaries(handle: string): CaKeySummary[]
  /** Changes whenever any of the CA's objects changes (keys and manifest numbers; no object bytes read). */
  revisions(handle: string): string
  /** The CA's ROAs without their bytes, with the class of the key that signed them. */
  roas(handle: string): { keyId: string; className: string; name: string; hash: string; meta: StoredCaObject['meta'] }[]
  /** The bytes of one object, or undefined when it is gone. */
  der(handle: string, keyId: string, name: string): Uint8Array | undefined
  /** How many objects of each kind every CA has (one aggregate query, no bytes or JSON read: for metrics). */
  counts(): { handle: string; kind: StoredCaObject['kind']; count: number }[]
  /** Replace everything stored for a CA's keys with `keys`, atomically. */
  save(handle: string, keys: readonly CaKeyObjects[]): void
}

//------------ CA exchange status -----------------------------------------------------------------------------------

/** Stored in ca_status.status: changing this shape needs a migration. */
export interface ExchangeStatus {
  /** ISO 8601 time of the last exchange. */
  time: string
  uri: string
  result: 'success' | 'failure'
  /** For failures: the error label and message. */
  label?: string
  msg?: string
  args?: Record<string, string>
  lastSuccess?: string
}
export type StatusKind = 'parent' | 'repo' | 'child' | 'objects'


/** The last exchange of each CA with its parents, repository and children; a failure is an issue until a success. */
export interface CaStatusStore {
  get(handle: string, kind: StatusKind, name: string): ExchangeStatus | undefined
  all(handle: string, kind?: StatusKind): { kind: StatusKind; name: string; status: ExchangeStatus }[]
  /** Record an exchange; a success keeps nothing of an earlier failure (the issue is cleared). */
  record(handle: string, kind: StatusKind, name: string, s: Omit<ExchangeStatus, 'lastSuccess'>): void
  remove(handle: string, kind: StatusKind, name: string): void
}

//------------ RFC 6492 replay protection --------------------------------------------------------------------------

/**
 * The replay state of each child of a parent CA (protocol/replay.ts), in the database so that every instance on one
 * database refuses what another accepted. Read and saved under the child's lock (app/ca/child-server.ts).
 */
export interface ChildReplayStore {
  get(ca: string, child: string): ReplayState | undefined
  save(ca: string, child: string, state: ReplayState): void
  /** Forget a child's state, or every child's of `ca` without `child` (CaStore.remove drops them with the CA). */
  remove(ca: string, child?: string): void
}

//------------ Scheduled tasks --------------------------------------------------------------------------------------

export type TaskKind = 'republish' | 'sync-parent' | 'suspend-children' | 'ta-keyroll-finish'
/** Stored in the tasks table: changing this shape needs a migration. */
export interface Task {
  key: string
  kind: TaskKind
  ca: string
  /** The parent for sync-parent tasks. */
  arg: string
  /** Due time, milliseconds since the epoch. */
  due: number
  /** Failures in a row (for back-off). */
  attempts: number
}


/** Scheduled tasks with their due times (they survive a restart). */
export interface TaskStore {
  /** Insert or move a task; `attempts` is kept unless given. */
  put(t: Omit<Task, 'attempts'> & { attempts?: number }): void
  /** Schedule earlier only: keep an earlier due time if the task is already due sooner. */
  putEarlier(t: Omit<Task, 'attempts'>): void
  get(key: string): Task | undefined
  due(now: number, limit: number): Task[]
  next(): number | undefined
  remove(key: string): void
  removeCa(ca: string): void
  all(): Task[]
}

//------------ Publication server -----------------------------------------------------------------------------------

export interface StoredObject {
  uri: string
  hash: string
  size: number
}
/** The RRDP state and delta records are the RRDP model's (pubd/rrdp/model.ts); the store keeps them. */
export type { RrdpDeltaInfo, RrdpState }
export interface PublisherStats {
  handle: string
  objects: number
  size: number
  lastPublish: string | undefined
  /** Registered through the testbed self-service (its quota is the self-service one). */
  selfService: boolean
}

/** The publication server: publishers, their current objects, the changes not yet in RRDP, and the RRDP state. */
export interface PublicationStore {
  /** The hash of the object at `uri` when RRDP's last recorded serial holds it (no change of it pending). */
  serialHolds(uri: string): string | undefined
  publishers(): Publisher[]
  publisher(handle: string): Publisher | undefined
  addPublisher(p: Publisher): void
  /** A publisher's new identity certificate (issue 25: identity key rolls). */
  updatePublisherIdCert(handle: string, idCert: Uint8Array): void
  /** Remove a publisher and withdraw all its objects (recorded as changes for RRDP), in one transaction. */
  removePublisher(handle: string): number
  /** The hash of the object at `uri` if `publisher` holds it. */
  objectHash(publisher: string, uri: string): string | undefined
  /** The size in bytes of the object at `uri` if `publisher` holds it. */
  objectSize(publisher: string, uri: string): number | undefined
  /** The usage the quota rule reads: of `publisher` and of all self-service publishers together. */
  quotaUsage(publisher: string): Omit<QuotaUsage, 'total'>
  /** The usage of the whole server. */
  totalUsage(): Usage
  /** The URIs `publisher` holds under the directory URI `dir` (ending in '/'), in order. */
  objectsUnder(publisher: string, dir: string): Iterable<string>
  listObjects(publisher: string): StoredObject[]
  objectsWithContent(publisher: string): (StoredObject & { content: Uint8Array })[]
  replayState(publisher: string): ReplayState | undefined
  saveReplayState(publisher: string, state: ReplayState): void
  /**
   * Apply one message's accepted changes atomically (with the replay state after it, for RFC 8181); the seq of the
   * last change recorded for RRDP (undefined when there were none), by which the publish delay is measured.
   */
  applyChanges(publisher: string, changes: readonly ContentChange[], now: Date, replay?: ReplayState): number | undefined
  stats(): PublisherStats[]
  /** Run `fn` in one transaction on the publication server's database (nested calls join it as a savepoint). */
  transaction<T>(fn: () => T): T
  rrdpState(): RrdpState | undefined
  rrdpDeltas(): RrdpDeltaInfo[]
  /**
   * Record a new serial: the new state, its delta (if any), the changes it consumed (exactly the `seq`s the writer read;
   * not every seq up to the highest: with several instances a change with a lower seq may commit after the read, and
   * belongs to the next serial), and the deltas dropped.
   */
  recordSerial(state: RrdpState, delta: RrdpDeltaInfo | undefined, consumed: readonly number[], dropDeltas: readonly number[]): void
  /** Start a new session: no deltas; the changes `consumed` (the seqs read) are in its first snapshot. */
  resetSession(state: RrdpState, consumed: readonly number[]): void
}

//------------ Server properties ------------------------------------------------------------------------------------

/** Server properties (key/value): the svcd version that last wrote the data, creation time, identities. */
export interface PropertyStore {
  get(key: string): string | undefined
  set(key: string, value: string): void
}

//------------ All of them ------------------------------------------------------------------------------------------

/** Every store of one svcd, as the composition root builds them over one database. */
export interface Stores {
  cas: CaStore
  objects: CaObjectsStore
  status: CaStatusStore
  tasks: TaskStore
  publication: PublicationStore
  properties: PropertyStore
  /** RFC 6492 replay state per (CA, child). */
  childReplay: ChildReplayStore
  /** Login sessions (design.md §9). */
  sessions: SessionStore
  /** Who did what, across CAs and the publication server (design.md §9). */
  audit: AuditStore
  /** Scoped API tokens (design.md §9). */
  tokens: TokenStore
  /** OpenID Connect logins under way (design.md §9). */
  logins: LoginStore
  /** Change plans (design.md §12). */
  plans: PlanStore
  /** Which signer holds which key (design.md §10). */
  signers: SignerRegistryStore
  /** Each CA's liveness as of its last check (design.md §11). */
  liveness: LivenessStore
  /** Alarms and their webhook deliveries (design.md §11). */
  alerts: AlertStore
  /** What was set aside as undecodable (issue 26 §5). */
  quarantine: QuarantineStore
  /** Run `fn` in one transaction spanning all the stores (nested calls join it). */
  transaction<T>(fn: () => T): T
}

//------------ Several instances on one database (design.md §7) ----------------------------------------------------

/** One svcd instance as it last reported itself. Times are milliseconds of the database's clock. */
export interface InstanceRecord {
  id: string
  url: string
  role: 'leader' | 'follower'
  epoch: number
  started: string
  heartbeat: number
  /** The RRDP session and serial this instance serves. */
  session?: string
  serial?: number
}

/** The leader record: its epoch (one more at each change of leader), who, and its last heartbeat. */
export interface LeaderRecord {
  epoch: number
  leader?: string
  since?: string
  heartbeat?: number
}

/**
 * Leadership and the instances' reports (PostgreSQL: pg-cluster.ts). The leader holds an advisory lock on a connection
 * of its own; `fence` is checked inside the transactions of writes only the leader may make, on the stores' database.
 */
export interface ClusterStore {
  /** Try to become leader; the new epoch when this instance now holds the lock, else undefined. */
  tryLead(id: string): Promise<number | undefined>
  /** The leader's heartbeat: false when the lock's connection is gone or another epoch began (deposed). */
  beat(epoch: number): Promise<boolean>
  /** End the session of a leader whose heartbeat is older than `staleMs`, which frees its lock (true if one was ended). */
  endStaleLeader(staleMs: number): Promise<boolean>
  /** Give leadership up (the lock's connection is closed). */
  resign(): Promise<void>
  /** Write this instance's report; returns the database clock's now (milliseconds) and the current leader epoch. */
  report(r: Omit<InstanceRecord, 'heartbeat'>): Promise<{ now: number; epoch: number }>
  /** Every instance's last report and the leader record, with the database clock's now. */
  view(): Promise<{ now: number; leader: LeaderRecord; instances: InstanceRecord[] }>
  /** Wait for the start-up lock (what the configuration creates is created once per database); resolves to its release. */
  startupLock(): Promise<() => Promise<void>>
  /** Inside a transaction on the stores' database: throw unless `epoch` is still the current one. */
  fence(epoch: number): void
  close(): Promise<void>
}

/**
 * Locks shared by every instance on one database (PostgreSQL: pg-locks.ts), one per key (a CA's handle): what one
 * instance does to a CA's objects and history, no other does at the same time. Also `pub:<publisher>` (RFC 8181
 * messages of a publisher) and `rfc6492:<ca>/<child>` (RFC 6492 messages of a child). Within an instance the keyed mutex
 * already serialises; these add the other instances. Waiting never blocks the process.
 */
export interface SharedLocks {
  /** Resolves once this instance holds `key`'s lock. */
  acquire(key: string): Promise<void>
  release(key: string): Promise<void>
  close(): Promise<void>
}

/** The RRDP files of the current notification in the database, for the instances that did not write them. */
export interface RrdpFileStore {
  put(files: readonly { path: string; content: Uint8Array }[]): void
  get(path: string): Uint8Array | undefined
  /** Drop every file not in `keep`. */
  keepOnly(keep: readonly string[]): void
}

/**
 * SQLite storage of the publication server: publishers, their current objects, the changes not yet written to
 * RRDP, and the RRDP state. `applyChanges` is one transaction: an RFC 8181 message lands whole or not at all.
 */
import type { Publisher } from '../pubd/publishers.js'
import type { ContentChange } from '../pubd/content.js'
import type { ReplayState } from '../protocol/replay.js'
import type { QuotaUsage, Usage } from '../pubd/quota.js'
import type { SqlDb } from './sql.js'
import type { PublicationStore, PublisherStats, RrdpDeltaInfo, RrdpState, StoredObject } from './interfaces.js'

interface PublisherRow {
  handle: string
  id_cert: Uint8Array
  base_uri: string
  created: string
  last_publish: string | null
  self_service: number
}

export class SqlPublicationStore implements PublicationStore {
  constructor(private readonly db: SqlDb) {}

  //------------ Publishers ----------------------------------------------------------------------------------------

  publishers(): Publisher[] {
    return (this.db.prepare('SELECT * FROM pubd_publishers ORDER BY handle').all() as PublisherRow[]).map(toPublisher)
  }

  publisher(handle: string): Publisher | undefined {
    const row = this.db.prepare('SELECT * FROM pubd_publishers WHERE handle = ?').get(handle) as PublisherRow | undefined
    return row && toPublisher(row)
  }

  addPublisher(p: Publisher): void {
    this.db.prepare('INSERT INTO pubd_publishers (handle, id_cert, base_uri, created, last_publish, self_service) VALUES (?, ?, ?, ?, NULL, ?)').run(p.handle, p.idCert, p.baseUri, p.created, p.selfService ? 1 : 0)
  }

  updatePublisherIdCert(handle: string, idCert: Uint8Array): void {
    this.db.prepare('UPDATE pubd_publishers SET id_cert = ? WHERE handle = ?').run(idCert, handle)
  }

  /** Remove a publisher and withdraw all its objects (recorded as changes for RRDP), in one transaction. */
  removePublisher(handle: string): number {
    return this.db.transaction(() => {
      const uris = this.db.prepare('SELECT uri, hash FROM pubd_objects WHERE publisher = ?').all(handle) as { uri: string; hash: string }[]
      const change = this.db.prepare('INSERT INTO pubd_changes (uri, previous) VALUES (?, ?)')
      for (const o of uris) change.run(o.uri, o.hash)
      this.db.prepare('DELETE FROM pubd_objects WHERE publisher = ?').run(handle)
      this.db.prepare('DELETE FROM pubd_replay WHERE publisher = ?').run(handle)
      this.db.prepare('DELETE FROM pubd_publishers WHERE handle = ?').run(handle)
      return uris.length
    })
  }

  //------------ Objects -------------------------------------------------------------------------------------------

  /** The hash of the object at `uri` if `publisher` holds it. */
  objectHash(publisher: string, uri: string): string | undefined {
    const row = this.db.prepare('SELECT hash FROM pubd_objects WHERE uri = ? AND publisher = ?').get(uri, publisher) as { hash: string } | undefined
    return row?.hash
  }

  /**
   * What RRDP's last recorded serial holds at `uri` (issue 26 §4): the object's hash when the database holds it and no
   * change of it waits for the next serial; undefined otherwise.
   */
  serialHolds(uri: string): string | undefined {
    if (this.db.prepare('SELECT 1 FROM pubd_changes WHERE uri = ? LIMIT 1').get(uri) !== undefined) return undefined
    return (this.db.prepare('SELECT hash FROM pubd_objects WHERE uri = ?').get(uri) as { hash: string } | undefined)?.hash
  }

  /** The URIs `publisher` holds strictly below `dir` (ending with '/'), streamed in URI order: a range of the key. */
  *objectsUnder(publisher: string, dir: string): Generator<string> {
    const end = dir.slice(0, -1) + String.fromCharCode(dir.charCodeAt(dir.length - 1) + 1)
    const rows = this.db.prepare('SELECT uri FROM pubd_objects WHERE uri > ? AND uri < ? AND publisher = ? ORDER BY uri').iterate(dir, end, publisher) as Iterable<{ uri: string }>
    for (const r of rows) yield r.uri
  }

  /** The size in bytes of the object at `uri` if `publisher` holds it. */
  objectSize(publisher: string, uri: string): number | undefined {
    const row = this.db.prepare('SELECT size FROM pubd_objects WHERE uri = ? AND publisher = ?').get(uri, publisher) as { size: number | string } | undefined
    return row && Number(row.size)
  }

  /** What the quota rule reads (pubd/quota.ts): the usage of `publisher` and of all self-service publishers. */
  quotaUsage(publisher: string): Omit<QuotaUsage, 'total'> {
    const usage = (sql: string, ...args: string[]): Usage => {
      const r = this.db.prepare(sql).get(...args) as { n: number | string; b: number | string | null }
      return { objects: Number(r.n), bytes: Number(r.b ?? 0) }
    }
    return {
      publisher: usage('SELECT count(*) AS n, sum(size) AS b FROM pubd_objects WHERE publisher = ?', publisher),
      selfService: usage('SELECT count(*) AS n, sum(o.size) AS b FROM pubd_publishers p JOIN pubd_objects o ON o.publisher = p.handle WHERE p.self_service = 1'),
    }
  }

  /** The usage of the whole server (a scan of the usage index: about 20 ms at 100,000 objects). */
  totalUsage(): Usage {
    const r = this.db.prepare('SELECT count(*) AS n, sum(size) AS b FROM pubd_objects').get() as { n: number | string; b: number | string | null }
    return { objects: Number(r.n), bytes: Number(r.b ?? 0) }
  }

  listObjects(publisher: string): StoredObject[] {
    return this.db.prepare('SELECT uri, hash, size FROM pubd_objects WHERE publisher = ? ORDER BY uri').all(publisher) as StoredObject[]
  }

  objectsWithContent(publisher: string): (StoredObject & { content: Uint8Array })[] {
    return this.db.prepare('SELECT uri, hash, size, content FROM pubd_objects WHERE publisher = ? ORDER BY uri').all(publisher) as (StoredObject & { content: Uint8Array })[]
  }

  //------------ Replay protection (pubd/replay.ts) ----------------------------------------------------------------

  replayState(publisher: string): ReplayState | undefined {
    const row = this.db.prepare('SELECT signing_time, digests FROM pubd_replay WHERE publisher = ?').get(publisher) as { signing_time: string; digests: string } | undefined
    return row && { signingTime: row.signing_time, digests: JSON.parse(row.digests) as string[] }
  }

  saveReplayState(publisher: string, state: ReplayState): void {
    this.db
      .prepare('INSERT INTO pubd_replay (publisher, signing_time, digests) VALUES (?, ?, ?) ON CONFLICT(publisher) DO UPDATE SET signing_time = excluded.signing_time, digests = excluded.digests')
      .run(publisher, state.signingTime, JSON.stringify(state.digests))
  }

  /**
   * Apply accepted changes of one message atomically, recording them for the RRDP writer, together with the
   * publisher's replay state after the message when it came over RFC 8181.
   */
  applyChanges(publisher: string, changes: readonly ContentChange[], now: Date, replay?: ReplayState): number | undefined {
    return this.db.transaction(() => {
      if (replay) this.saveReplayState(publisher, replay)
      const upsert = this.db.prepare(
        'INSERT INTO pubd_objects (uri, publisher, hash, size, content) VALUES (?, ?, ?, ?, ?) ON CONFLICT(uri) DO UPDATE SET hash = excluded.hash, size = excluded.size, content = excluded.content WHERE pubd_objects.publisher = excluded.publisher',
      )
      const remove = this.db.prepare('DELETE FROM pubd_objects WHERE uri = ? AND publisher = ?')
      const record = this.db.prepare('INSERT INTO pubd_changes (uri, previous) VALUES (?, ?) RETURNING seq')
      let last: number | undefined
      for (const c of changes) {
        if (c.type === 'publish') {
          const r = upsert.run(c.uri, publisher, c.hash, c.content.length, c.content)
          if (r.changes !== 1) throw new Error(`object ${c.uri} belongs to another publisher`)
        } else if (remove.run(c.uri, publisher).changes !== 1) throw new Error(`object ${c.uri} vanished`)
        last = Number((record.get(c.uri, c.previous ?? null) as { seq: number | string }).seq)
      }
      this.db.prepare('UPDATE pubd_publishers SET last_publish = ? WHERE handle = ?').run(now.toISOString(), publisher)
      return last
    })
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)
  }

  stats(): PublisherStats[] {
    const rows = this.db
      .prepare(
        `SELECT p.handle AS handle, count(o.uri) AS objects, coalesce(sum(o.size), 0) AS size, p.last_publish AS last, p.self_service AS self
         FROM pubd_publishers p LEFT JOIN pubd_objects o ON o.publisher = p.handle GROUP BY p.handle, p.last_publish, p.self_service ORDER BY p.handle`,
      )
      .all() as { handle: string; objects: number; size: number; last: string | null; self: number }[]
    return rows.map((r) => ({ handle: r.handle, objects: r.objects, size: r.size, lastPublish: r.last ?? undefined, selfService: Number(r.self) === 1 }))
  }

  //------------ RRDP ----------------------------------------------------------------------------------------------

  rrdpState(): RrdpState | undefined {
    const r = this.db.prepare('SELECT * FROM rrdp_state WHERE id = 1').get() as
      | { session: string; serial: number; snapshot_path: string; snapshot_hash: string; snapshot_size: number; updated: string }
      | undefined
    return r && { session: r.session, serial: r.serial, snapshotPath: r.snapshot_path, snapshotHash: r.snapshot_hash, snapshotSize: r.snapshot_size, updated: r.updated }
  }

  rrdpDeltas(): RrdpDeltaInfo[] {
    return this.db.prepare('SELECT serial, path, hash, size, time FROM rrdp_deltas ORDER BY serial DESC').all() as RrdpDeltaInfo[]
  }

  /** Record a new serial: the new state, its delta (if any), the consumed changes, and the deltas dropped. */
  recordSerial(state: RrdpState, delta: RrdpDeltaInfo | undefined, consumed: readonly number[], dropDeltas: readonly number[]): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO rrdp_state (id, session, serial, snapshot_path, snapshot_hash, snapshot_size, updated) VALUES (1, ?, ?, ?, ?, ?, ?)
           ON CONFLICT(id) DO UPDATE SET session = excluded.session, serial = excluded.serial, snapshot_path = excluded.snapshot_path,
             snapshot_hash = excluded.snapshot_hash, snapshot_size = excluded.snapshot_size, updated = excluded.updated`,
        )
        .run(state.session, state.serial, state.snapshotPath, state.snapshotHash, state.snapshotSize, state.updated)
      if (delta) this.db.prepare('INSERT INTO rrdp_deltas (serial, path, hash, size, time) VALUES (?, ?, ?, ?, ?)').run(delta.serial, delta.path, delta.hash, delta.size, delta.time)
      deleteChanges(this.db, consumed)
      const drop = this.db.prepare('DELETE FROM rrdp_deltas WHERE serial = ?')
      for (const s of dropDeltas) drop.run(s)
    })
    // Withdrawn objects are out of RRDP now: their freed pages may go (issue 22: the data dir shrinks after withdrawals).
    this.db.reclaim?.()
  }

  /** Start a new session: no deltas; the changes `consumed` (the seqs read) are in its first snapshot. */
  resetSession(state: RrdpState, consumed: readonly number[]): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM rrdp_deltas').run()
      this.recordSerial(state, undefined, consumed, [])
    })
  }
}

/**
 * Delete the changes a serial consumed: a range when the seqs read are contiguous (one instance, or no commit in
 * between), otherwise those seqs in batches. A seq missing from the read (another instance's change that committed
 * after the read snapshot) stays for the next serial.
 */
function deleteChanges(db: SqlDb, seqs: readonly number[]): void {
  if (seqs.length === 0) return
  const first = seqs[0]!
  const last = seqs[seqs.length - 1]!
  if (last - first + 1 === seqs.length) return void db.prepare('DELETE FROM pubd_changes WHERE seq BETWEEN ? AND ?').run(first, last)
  for (let i = 0; i < seqs.length; i += 500) {
    const batch = seqs.slice(i, i + 500)
    db.prepare(`DELETE FROM pubd_changes WHERE seq IN (${batch.map(() => '?').join(', ')})`).run(...batch)
  }
}

/** A consistent read of the repository for the RRDP and rsync writers (own connection, one read transaction). */
export class PubdReader {
  constructor(private readonly db: SqlDb) {}

  /** Run `fn` inside one read transaction; everything it reads is one consistent state, even across awaits. */
  async read<T>(fn: (view: PubdView) => Promise<T>): Promise<T> {
    return this.db.readSnapshot(async () => {
      this.db.prepare('SELECT 1 FROM rrdp_state LIMIT 1').get() // start the read snapshot now
      return fn(new PubdView(this.db))
    })
  }
}

export class PubdView {
  constructor(private readonly db: SqlDb) {}

  state(): RrdpState | undefined {
    return new SqlPublicationStore(this.db).rrdpState()
  }

  deltas(): RrdpDeltaInfo[] {
    return new SqlPublicationStore(this.db).rrdpDeltas()
  }

  /** Pending changes: the first previous hash per URI (state at the last serial) and the seqs read, ascending. */
  pending(): { seqs: number[]; before: Map<string, string | null> } {
    const rows = this.db.prepare('SELECT seq, uri, previous FROM pubd_changes ORDER BY seq').iterate() as Iterable<{ seq: number; uri: string; previous: string | null }>
    const before = new Map<string, string | null>()
    const seqs: number[] = []
    for (const r of rows) {
      seqs.push(Number(r.seq))
      if (!before.has(r.uri)) before.set(r.uri, r.previous)
    }
    return { seqs, before }
  }

  /** Which of `seqs` are still pending changes (not yet consumed by a serial) in this read. */
  stillPending(seqs: readonly number[]): Set<number> {
    const out = new Set<number>()
    for (let i = 0; i < seqs.length; i += 500) {
      const batch = seqs.slice(i, i + 500)
      const rows = this.db.prepare(`SELECT seq FROM pubd_changes WHERE seq IN (${batch.map(() => '?').join(', ')})`).all(...batch) as { seq: number | string }[]
      for (const r of rows) out.add(Number(r.seq))
    }
    return out
  }

  /** How many objects the repository holds. */
  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM pubd_objects').get() as { n: number }).n
  }

  object(uri: string): { hash: string; content: Uint8Array } | undefined {
    return this.db.prepare('SELECT hash, content FROM pubd_objects WHERE uri = ?').get(uri) as { hash: string; content: Uint8Array } | undefined
  }

  /** Every object, in URI order, streamed. */
  *all(): Generator<{ uri: string; hash: string; content: Uint8Array }> {
    yield* this.db.prepare('SELECT uri, hash, content FROM pubd_objects ORDER BY uri').iterate() as Iterable<{ uri: string; hash: string; content: Uint8Array }>
  }

  /** Every object's URI, hash and publisher (no content), streamed in URI order. */
  *hashes(): Generator<{ uri: string; hash: string; publisher: string }> {
    yield* this.db.prepare('SELECT uri, hash, publisher FROM pubd_objects ORDER BY uri').iterate() as Iterable<{ uri: string; hash: string; publisher: string }>
  }

  /** Every publisher's handle and jail. */
  publishers(): { handle: string; baseUri: string }[] {
    return this.db.prepare('SELECT handle, base_uri AS "baseUri" FROM pubd_publishers ORDER BY handle').all() as { handle: string; baseUri: string }[]
  }

  content(uri: string): Uint8Array | undefined {
    return (this.db.prepare('SELECT content FROM pubd_objects WHERE uri = ?').get(uri) as { content: Uint8Array } | undefined)?.content
  }
}

function toPublisher(r: PublisherRow): Publisher {
  return { handle: r.handle, idCert: new Uint8Array(r.id_cert), baseUri: r.base_uri, created: r.created, ...(r.last_publish ? { lastPublish: r.last_publish } : {}), ...(Number(r.self_service) === 1 ? { selfService: true as const } : {}) }
}

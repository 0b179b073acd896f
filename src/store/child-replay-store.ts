/**
 * RFC 6492 replay state of a parent CA's children (protocol/replay.ts; issue 22, defect 3): per (CA, child), the
 * newest signing time seen and the digests of the changing messages seen at that time. In the database, so that
 * every instance on one database (and a restart) sees what any of them accepted.
 */
import type { ReplayState } from '../protocol/replay.js'
import type { SqlDb } from './sql.js'
import type { ChildReplayStore } from './interfaces.js'

export class SqlChildReplayStore implements ChildReplayStore {
  constructor(private readonly db: SqlDb) {}

  get(ca: string, child: string): ReplayState | undefined {
    const row = this.db.prepare('SELECT signing_time, digests FROM ca_child_replay WHERE handle = ? AND child = ?').get(ca, child) as { signing_time: string; digests: string } | undefined
    return row && { signingTime: row.signing_time, digests: JSON.parse(row.digests) as string[] }
  }

  save(ca: string, child: string, state: ReplayState): void {
    this.db
      .prepare('INSERT INTO ca_child_replay (handle, child, signing_time, digests) VALUES (?, ?, ?, ?) ON CONFLICT(handle, child) DO UPDATE SET signing_time = excluded.signing_time, digests = excluded.digests')
      .run(ca, child, state.signingTime, JSON.stringify(state.digests))
  }

  remove(ca: string, child?: string): void {
    if (child === undefined) this.db.prepare('DELETE FROM ca_child_replay WHERE handle = ?').run(ca)
    else this.db.prepare('DELETE FROM ca_child_replay WHERE handle = ? AND child = ?').run(ca, child)
  }
}

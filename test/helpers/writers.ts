/** The RRDP and rsync writers over a real SQLite publication store in a temporary directory, for the writer tests. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import { decodeNotification } from '../../src/protocol/rrdp.js'
import type { ContentChange } from '../../src/pubd/content.js'
import { systemClock, systemRandom } from '../../src/clock.js'
import { RrdpWriter } from '../../src/pubd/rrdp/index.js'
import { RsyncWriter } from '../../src/pubd/rsync-writer.js'
import { Db } from '../../src/store/db.js'
import { PubdReader, SqlPublicationStore } from '../../src/store/pubd-store.js'
import { tempDir } from './daemon.js'

export const RSYNC = 'rsync://localhost:3873/repo/'
export const RRDP = 'https://localhost:3000/rrdp/'

export interface WritersOptions {
  now: () => Date
  hold?: (before: number, after: number) => string | undefined
  /** The rsync writer's grace for replaced trees (0 unless given). */
  graceSeconds?: number
  maxTrees?: number
}

/**
 * A store with one publisher `p` (base `RSYNC + 'p/'`), an RRDP writer (retention 2–3 deltas, no grace) and an rsync
 * writer, each reading through its own secondary connection as svcd's do; everything is closed at teardown.
 */
export function writersSetup(t: Test, o: WritersOptions) {
  const dir = tempDir(t)
  const dbPath = join(dir, 'svcd.db')
  const db = Db.open(dbPath)
  const store = new SqlPublicationStore(db)
  const readers = [Db.openSecondary(dbPath), Db.openSecondary(dbPath)]
  t.teardown(() => [db, ...readers].forEach((d) => d.close()))
  const retention = { minNr: 2, minSeconds: 0, maxNr: 3, maxSeconds: 7200 }
  const rrdp = new RrdpWriter({ dir: join(dir, 'rrdp'), baseUri: RRDP, store, reader: new PubdReader(readers[0]), now: o.now, clock: systemClock, random: systemRandom, retention, graceSeconds: 0, hold: o.hold })
  const rsync = new RsyncWriter({ dir: join(dir, 'rsync'), baseUri: RSYNC, reader: new PubdReader(readers[1]), now: o.now, clock: systemClock, graceSeconds: o.graceSeconds ?? 0, maxTrees: o.maxTrees, hold: o.hold })
  store.addPublisher({ handle: 'p', idCert: new TextEncoder().encode('cert'), baseUri: RSYNC + 'p/', created: o.now().toISOString() })
  const publish = (changes: ContentChange[]) => store.applyChanges('p', changes, o.now())
  const notification = () => decodeNotification(readFileSync(join(dir, 'rrdp', 'notification.xml')))
  const file = (uri: string) => readFileSync(join(dir, 'rrdp', uri.slice(RRDP.length)))
  return { dir, db, store, rrdp, rsync, publish, notification, file }
}

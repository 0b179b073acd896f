/**
 * RRDP (RFC 8182) as one module (design.md §6): the entry point. The publication service drives one RrdpWriter, whether
 * this instance makes serials (`init`, `cycle`, `resetSession`: the leader, or the only instance) or copies the
 * leader's from the database (`mirror`: a follower on PostgreSQL, design.md §7), and serves its files through it
 * (`file`). The pure model (model.ts: sessions, serials, file names, the notification's content, restore detection;
 * retention.ts: which deltas and files are kept; snapshot-layout.ts) is re-exported here, and so is the XML encoding
 * of the documents, which stays in the library (protocol/rrdp.ts, design.md §2: the XML libraries live in protocol/).
 * The storage interfaces the writer uses (PublicationStore's RRDP records, RrdpFileStore) stay in store/interfaces.ts.
 */
export { RrdpWriter, type CycleResult, type RrdpWriterOptions } from './writer.js'
export type { RrdpFile } from './serve.js'
export * from './model.js'
export * from './retention.js'
export * from './snapshot-layout.js'
export { decodeDelta, decodeNotification, decodeSnapshot, encodeDeltaChunks, encodeNotification, encodeSnapshotChunks, type DeltaElement, type Notification } from '../../protocol/rrdp.js'

/**
 * What the RRDP directory keeps (RFC 8182 §3.3.1 leaves it to the server; the publication-server BCP,
 * draft-ietf-sidrops-publication-server-bcp, and krill-reference.md §3 give the rule): which deltas a notification
 * names, and which files no notification names any more may go. Pure rules of the RRDP model (model.ts): `now` and
 * the files' times are passed in; files.ts removes what they choose.
 */

/** The retention settings (config `[repository]` rrdp_delta_files_*). */
export interface RrdpRetention {
  minNr: number
  minSeconds: number
  maxNr: number
  maxSeconds: number
}

/** What the rule reads of a delta: its size in bytes and when it was published (ISO 8601). */
export interface RetainedDelta {
  size: number
  time: string
}

/**
 * Keep while fewer than minNr or younger than minSeconds; beyond that stop at maxNr or at the first older than
 * maxSeconds; then drop the oldest until the deltas together are not larger than the snapshot (RFC 8182 §3.3.1: a
 * relying party should never fetch more than a snapshot's worth). `deltas` newest first; the result likewise.
 */
export function retainDeltas<D extends RetainedDelta>(deltas: readonly D[], snapshotSize: number, r: RrdpRetention, now: Date): D[] {
  const keep: D[] = []
  for (const d of deltas) {
    const age = (now.getTime() - Date.parse(d.time)) / 1000
    if (keep.length < r.minNr || age < r.minSeconds) keep.push(d)
    else if (keep.length >= r.maxNr || age > r.maxSeconds) break
    else keep.push(d)
  }
  let total = keep.reduce((n, d) => n + d.size, 0)
  while (keep.length && total > snapshotSize) total -= keep.pop()!.size
  return keep
}

/** A file of the RRDP directory as the writer knows it: when it was written (ms since the epoch) and its size. */
export interface KnownFile {
  mtimeMs: number
  size: number
  /**
   * Since when no notification references it (set by files.ts when a cleanup first finds it so); the grace period
   * counts from then, not from its write time: a snapshot written hours ago and superseded now is still fetched by
   * readers of the notification before. Without it, the write time.
   */
  unreferencedSinceMs?: number
}

/** What a cleanup keeps: the files the notification names, a grace period, and a budget for superseded snapshots. */
export interface FileRetention {
  /** Files that the notification references: kept whatever their age. Relative paths with '/'. */
  referenced: ReadonlySet<string>
  /** Unreferenced files older than this go. */
  graceSeconds: number
  /** Superseded snapshots within the grace period, together at most this many bytes (newest kept). */
  supersededSnapshotBytes: number
}

/**
 * The files to remove at `nowMs`: what is not referenced once older than the grace period, so that readers of an
 * earlier notification can still fetch it; superseded snapshots sooner when together they exceed the budget (the
 * newest are kept).
 */
export function filesToRemove(files: ReadonlyMap<string, KnownFile>, o: FileRetention, nowMs: number): string[] {
  const cutoff = nowMs - o.graceSeconds * 1000
  const out: string[] = []
  const superseded: { path: string; mtimeMs: number; size: number }[] = []
  for (const [path, f] of files) {
    if (o.referenced.has(path)) continue
    if ((f.unreferencedSinceMs ?? f.mtimeMs) <= cutoff) out.push(path)
    else if (path.endsWith('/snapshot.xml')) superseded.push({ path, ...f })
  }
  superseded.sort((a, b) => b.mtimeMs - a.mtimeMs)
  let kept = 0
  for (const f of superseded) if ((kept += f.size) > o.supersededSnapshotBytes) out.push(f.path)
  return out
}

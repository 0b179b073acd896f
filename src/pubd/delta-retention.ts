/**
 * Which RRDP deltas a notification keeps (RFC 8182 §3.3.1 leaves it to the server; the publication-server BCP,
 * draft-ietf-sidrops-publication-server-bcp, and krill-reference.md §3 give the rule): a pure rule of the RRDP model,
 * kept apart from the writer that applies it. Pure domain code: `now` is passed in.
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

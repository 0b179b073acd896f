/**
 * RRDP against rsync (issue 26 §1): the URIs under a directory whose bytes differ between the two transports, or that
 * only one of them serves. The caller decides how long a disagreement may last (relying parties fetching over either
 * transport must see the same repository once the rsync tree has caught up: [liveness] disagreement_seconds) and
 * passes how long this one has lasted. Pure.
 */
import { bytesEqual } from '../util/bytes.js'
import type { FetchedRepository, Finding } from './model.js'

/**
 * `transport-disagreement` findings for every URI under `dir` (subdirectories included) that the two fetches serve
 * differently; none when either fetch failed (that is `unreachable`, reported by the check of each). `sinceMs`: how
 * long the disagreement has lasted, for the detail.
 */
export function compareTransports(rrdp: FetchedRepository, rsync: FetchedRepository, dir: string, sinceMs: number): Finding[] {
  if (rrdp.error !== undefined || rsync.error !== undefined) return []
  const out: Finding[] = []
  const lasted = `for ${Math.round(sinceMs / 1000)} s`
  const under = (files: ReadonlyMap<string, Uint8Array>) => [...files.keys()].filter((u) => u.startsWith(dir))
  for (const uri of under(rrdp.files)) {
    const other = rsync.files.get(uri)
    if (other === undefined) out.push({ kind: 'transport-disagreement', uri, detail: `served over RRDP, not over rsync, ${lasted}` })
    else if (!bytesEqual(other, rrdp.files.get(uri)!)) out.push({ kind: 'transport-disagreement', uri, detail: `RRDP and rsync serve different bytes, ${lasted}` })
  }
  for (const uri of under(rsync.files)) if (!rrdp.files.has(uri)) out.push({ kind: 'transport-disagreement', uri, detail: `served over rsync, not over RRDP, ${lasted}` })
  return out.sort((a, b) => (a.uri! < b.uri! ? -1 : 1))
}

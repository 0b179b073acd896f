/** Several svcd instances on one database (design.md §7): what the cluster tests ask each instance. */
import type { ClusterJson } from '../../src/api/status.js'
import { httpsGet, svcc, type Daemon } from './daemon.js'

/** svcc against instance `d`; its standard output, or an error naming the instance and svcc's message. */
export async function cliAt(d: Daemon, args: string[]): Promise<string> {
  const r = await svcc(args, { env: d.env })
  if (r.code !== 0) throw new Error(`svcc ${args.join(' ')} at ${d.url} failed (${r.code}): ${r.stderr}`)
  return r.stdout
}

/** GET /api/v1/cluster at `d`, in-process (no svcc spawned: a loaded machine starts a process in seconds). */
export async function clusterView(d: Daemon): Promise<ClusterJson> {
  const r = await httpsGet(`${d.url}api/v1/cluster`, { Authorization: `Bearer ${d.token}` })
  if (r.status !== 200) throw new Error(`GET /api/v1/cluster at ${d.url}: HTTP ${r.status}`)
  return JSON.parse(r.body) as ClusterJson
}

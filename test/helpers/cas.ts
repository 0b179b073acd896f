/** Scenario helpers for CA trees: a daemon with repository and testbed, svcc wrappers, waiting for publication. */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import { freePort, startDaemon, svcc, tempDir, type Daemon, type DaemonOptions } from './daemon.js'
import { readRrdp, rsyncFetch } from './repo.js'
import { waitFor } from './wait.js'

export interface RepoDaemon extends Daemon {
  rsyncPort: number
  rsyncBase: string
  tlsCert: string
  talUrl: string
  /** Run svcc against this daemon; throws with stderr when it fails. */
  cli(args: string[], stdin?: string): Promise<string>
  /** Run svcc and return the whole result (for failures). */
  run(args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }>
  /** Write text to a temporary file and return its path. */
  file(name: string, text: string): string
}

/** svcd with the embedded repository (rsyncd on its own free port) and, unless `testbed: false`, the testbed. */
export async function repoDaemon(t: Test, opts: { testbed?: boolean; repository?: boolean; extra?: string; repositoryExtra?: string; dataDir?: string; ports?: { port: number; rsync: number } } & DaemonOptions = {}): Promise<RepoDaemon> {
  const port = opts.ports?.port ?? (await freePort())
  const rsync = opts.ports?.rsync ?? (await freePort())
  const repo = opts.repository === false ? '' : `[repository]\nenabled = true\nrrdp_base_uri = "https://localhost:${port}/rrdp/"\nrsync_base_uri = "rsync://localhost:${rsync}/repo/"\nrsync_daemon = "auto"\n${opts.repositoryExtra ?? ''}`
  const testbed = opts.testbed === false || opts.repository === false ? '' : '[testbed]\nenabled = true\n'
  const d = await startDaemon(t, { ...opts, port, toml: `${opts.toml ?? ''}\n${repo}${testbed}${opts.extra ?? ''}` })
  const dir = tempDir(t)
  const run = (args: string[], stdin?: string) => svcc(args, { env: d.env, ...(stdin !== undefined ? { stdin } : {}) })
  return Object.assign(d, {
    rsyncPort: rsync,
    rsyncBase: `rsync://localhost:${rsync}/repo/`,
    tlsCert: join(d.dataDir, 'ssl', 'cert.pem'),
    talUrl: `${d.url}ta/ta.tal`,
    run,
    async cli(args: string[], stdin?: string) {
      const r = await run(args, stdin)
      if (r.code !== 0) throw new Error(`svcc ${args.join(' ')} failed (${r.code}): ${r.stderr}`)
      return r.stdout
    },
    file(name: string, text: string) {
      const p = join(dir, name)
      writeFileSync(p, text)
      return p
    },
  })
}

/** Make `child` (a CA in `childD`) a child of `parent` (a CA in `parentD`) with the given resources. */
export async function connect(parentD: RepoDaemon, parent: string, childD: RepoDaemon, child: string, res: { asn?: string; ipv4?: string; ipv6?: string }, localName = parent): Promise<void> {
  const req = childD.file(`${child}-req.xml`, await childD.cli(['parents', 'request', '-c', child]))
  const args = ['children', 'add', '-c', parent, '--child', child, '--request', req]
  if (res.asn) args.push('-a', res.asn)
  if (res.ipv4) args.push('-4', res.ipv4)
  if (res.ipv6) args.push('-6', res.ipv6)
  const resp = childD.file(`${child}-resp-${parent}.xml`, await parentD.cli(args))
  await childD.cli(['parents', 'add', '-c', child, '-p', localName, '-r', resp])
}

export { waitFor }

/** The number of certified keys and ROA objects a CA has (from `show --format json`). */
export async function caObjects(d: RepoDaemon, ca: string): Promise<{ active: number; roas: number; objects: string[] }> {
  const info = JSON.parse(await d.cli(['show', '-c', ca, '-f', 'json']))
  const classes = Object.values(info.resource_classes) as { keys: Record<string, unknown>; current_objects: string[] }[]
  const objects = classes.flatMap((c) => c.current_objects)
  return { active: classes.filter((c) => 'active' in c.keys).length, roas: objects.filter((o) => o.endsWith('.roa')).length, objects }
}

/**
 * How long an accepted change may take to reach both outputs before waitPublished gives up: twice the daemon's own
 * bound (output_lag_max_seconds, default OUTPUT_LAG_MAX_SECONDS = 90 in src/app/pubd/output-lag.ts), past which svcd
 * itself reports the output as behind. By the pacing, a change is in RRDP within 10 s (the RRDP pacer's spacing cap)
 * and in the rsync tree within the settle's 10 s plus RSYNC_MAX_SPACING_MS (30 s) plus the build times; the rest is
 * a margin for a loaded machine. Only a hang crosses it.
 */
export const PUBLISHED_MS = 2 * 90_000

/**
 * Wait until RRDP shows a file set for which `cond` holds, and the rsync tree has caught up with it: the tree holds
 * exactly the files of such an RRDP state, each with content RRDP served for it in such a state. Returns the RRDP
 * file set. The outputs are paced separately and both follow the database, so under constant change (manifests
 * renewed every few seconds) they rarely hold the very same content at the moment of a poll; the tree is compared
 * with every RRDP state seen since `cond` first held, not with the one read just before it.
 */
export async function waitPublished(d: RepoDaemon, cond: (uris: string[]) => boolean, ms = PUBLISHED_MS): Promise<string[]> {
  const rel = (uri: string) => uri.slice(d.rsyncBase.length)
  /** The file sets (tree paths, sorted, one string each) of the RRDP states seen for which `cond` held. */
  const fileSets = new Set<string>()
  /** Tree path → every content (hex SHA-256) RRDP served for it in those states. */
  const served = new Map<string, Set<string>>()
  let latest: string[] | undefined
  const look = async () => {
    const v = await readRrdp(d.url)
    const uris = [...v.objects.keys()].sort()
    if (!cond(uris)) return
    latest = uris
    fileSets.add(uris.map(rel).join('\n'))
    for (const [u, h] of v.objects) {
      const seen = served.get(rel(u)) ?? new Set<string>()
      served.set(rel(u), seen.add(h))
    }
  }
  return waitFor('RRDP to show the expected content and the rsync tree to catch up with it', async () => {
    await look()
    if (!latest) return undefined
    const tree = rsyncFetch(d.rsyncBase)
    await look() // the tree may be ahead of the RRDP state read before it
    const files = [...tree.keys()].sort()
    // A throw counts as not yet; the last one is in the timeout's message.
    if (!fileSets.has(files.join('\n'))) throw new Error(`the rsync tree holds ${files.length} files, not those of RRDP (${latest.length}): only in the tree ${files.filter((p) => !served.has(p)).join(' ') || '-'}; only in RRDP ${latest.map(rel).filter((p) => !tree.has(p)).join(' ') || '-'}`)
    const stale = files.filter((p) => !served.get(p)!.has(tree.get(p)!))
    if (stale.length) throw new Error(`the rsync tree holds content RRDP did not serve for ${stale.join(' ')}`)
    return latest
  }, ms)
}

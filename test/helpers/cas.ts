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

/** Wait until RRDP and the rsync tree show the same files, and `cond` holds for the RRDP file set. */
export async function waitPublished(d: RepoDaemon, cond: (uris: string[]) => boolean, ms = 60_000): Promise<string[]> {
  return waitFor('RRDP and rsync to agree on the expected content', async () => {
    const v = await readRrdp(d.url)
    const uris = [...v.objects.keys()].sort()
    if (!cond(uris)) return undefined
    const tree = rsyncFetch(d.rsyncBase)
    const rrdp = new Map([...v.objects].map(([u, h]) => [u.slice(d.rsyncBase.length), h]))
    if (tree.size !== rrdp.size || [...tree].some(([p, h]) => rrdp.get(p) !== h)) return undefined
    return uris
  }, ms)
}

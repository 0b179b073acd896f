/**
 * The file operations of the rsync tree writer (rsync-writer.ts) on one tree: write a published file with its
 * deterministic time or link it from the current tree, and bring a replaced tree up to date in place.
 *
 * Recycling a tree (issue 22, defect 2): a tree that the retention rule would remove anyway (replaced more than the
 * grace period ago, or beyond the newest rsync_trees_max) is renamed to the new tree's name and only the paths that
 * changed since it was built are touched: removed, linked from the current tree, or written. A cycle then costs what
 * changed since that tree, not a link per file of the repository (about 30 µs each: 3 s for 100,000 files, and as
 * much again to remove the tree it replaces), so one publisher's burst no longer makes every later tree slow.
 */
import { linkSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { decodeCert } from '../objects/cert.js'
import { decodeCrl } from '../objects/crl.js'
import { decodeSignedObject } from '../objects/signed-object.js'

/** The tree is built in slices of at most this much synchronous work, so the RRDP writer and requests interleave. */
export const SLICE_MS = 4

/** What a tree should hold: relative path → the object's URI and hash. */
export type WantedFiles = Map<string, { uri: string; hash: string }>

export interface TreeRecycle {
  /** The replaced tree to reuse; it is renamed to `root` first. */
  from: string
  root: string
  /** Every path whose file may differ between the tree at `from` and `wanted`. */
  paths: Iterable<string>
  wanted: WantedFiles
  /** The current tree (its directory and what it holds), to link unchanged files from. */
  current: { dir: string; files: ReadonlyMap<string, string> }
  content: (uri: string) => Uint8Array | undefined
  /** The time the tree is built at (its directory's mtime: the retention rule orders trees by it). */
  builtAt: Date
}

/** Bring the replaced tree `r.from` in line with `r.wanted` as `r.root`; throws at the first failure (the caller then builds afresh). */
export async function recycleTree(r: TreeRecycle): Promise<{ written: number; linked: number; recycled: number }> {
  mkdirSync(join(r.root, '..'), { recursive: true })
  rmSync(r.root, { recursive: true, force: true })
  renameSync(r.from, r.root) // a directory rename keeps every inode: the tree's files stay as they are
  const paths = [...new Set(r.paths)]
  const emptied = new Set<string>()
  const slice = slicer()
  for (const rel of paths) {
    removePath(join(r.root, rel))
    for (let d = parentOf(rel); d !== ''; d = parentOf(d)) emptied.add(d)
    await slice()
  }
  // Directories left empty go, deepest first (a fresh tree has none; a file may need the name).
  for (const dir of [...emptied].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(join(r.root, dir))
    } catch {
      /* not empty, or gone */
    }
  }
  let written = 0
  let linked = 0
  const dirs = new Set<string>()
  for (const rel of paths) {
    const w = r.wanted.get(rel)
    if (!w) continue
    const target = join(r.root, rel)
    const parent = join(target, '..')
    if (!dirs.has(parent)) {
      mkdirSync(parent, { recursive: true, mode: 0o755 })
      dirs.add(parent)
    }
    if (r.current.files.get(rel) === w.hash && tryLink(join(r.current.dir, rel), target)) linked++
    else {
      writePublished(target, rel, r.content(w.uri) ?? new Uint8Array())
      written++
    }
    await slice()
  }
  utimesSync(r.root, r.builtAt, r.builtAt) // the retention rule orders trees by the time they were built
  return { written, linked, recycled: paths.length }
}

/** Write a published file with its deterministic modification time (a link shares the inode, and so the time). */
export function writePublished(target: string, rel: string, content: Uint8Array): void {
  writeFileSync(target, content, { mode: 0o644 })
  const time = publishedTime(rel, content)
  if (time) utimesSync(target, time, time)
}

/** A function to await in a loop: yields to the event loop once SLICE_MS of synchronous work has passed. */
export function slicer(): () => Promise<void> {
  let start = performance.now()
  let n = 0
  return async () => {
    if (++n % 32 !== 0 || performance.now() - start <= SLICE_MS) return
    await new Promise((r) => setImmediate(r))
    start = performance.now()
  }
}

/** Remove the file (or, where a directory now stands, the directory) at `path`; nothing when there is none. */
function removePath(path: string): void {
  try {
    unlinkSync(path)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return
    if (code === 'EISDIR' || code === 'EPERM') rmSync(path, { recursive: true, force: true })
    else throw e
  }
}

function parentOf(rel: string): string {
  const i = rel.lastIndexOf('/')
  return i < 0 ? '' : rel.slice(0, i)
}

/** Objects in URI order, grouped by publisher: jails are disjoint prefixes, so each publisher's objects are adjacent. */
export function* byPublisher(objects: readonly { uri: string; hash: string; publisher: string }[]): Generator<{ publisher: string; objects: { uri: string; hash: string }[] }> {
  let group: { publisher: string; objects: { uri: string; hash: string }[] } | undefined
  for (const o of objects) {
    if (group?.publisher !== o.publisher) {
      if (group) yield group
      group = { publisher: o.publisher, objects: [] }
    }
    group.objects.push(o)
  }
  if (group) yield group
}

/** The files below `dir` (relative paths with '/'); none when it does not exist. */
export function filesBelow(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(dir, join(e.parentPath, e.name)))
  } catch {
    return []
  }
}

/**
 * The deterministic modification time of a published file (the publication-server BCP): a CRL's thisUpdate, a
 * signed object's CMS signing-time (RFC 9589), a certificate's notBefore; undefined for anything else or for what
 * does not decode (the file keeps the time it was written).
 */
export function publishedTime(name: string, content: Uint8Array): Date | undefined {
  const ext = name.slice(name.lastIndexOf('.') + 1)
  try {
    if (ext === 'crl') return decodeCrl(content).thisUpdate
    if (ext === 'cer') return decodeCert(content).notBefore
    if (ext === 'roa' || ext === 'mft' || ext === 'asa' || ext === 'gbr' || ext === 'sig' || ext === 'tak') return decodeSignedObject(content).attributes.signingTime
  } catch {
    // Not an object we can read: the publisher's business.
  }
  return undefined
}

export function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to)
    return true
  } catch {
    try {
      unlinkSync(to)
    } catch {
      /* nothing there */
    }
    return false
  }
}

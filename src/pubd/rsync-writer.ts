/**
 * The rsync tree of the repository (design.md "Publication server"): every cycle builds a complete new tree under
 * <dir>/trees/, hard-linking unchanged files from the previous tree (never rewriting them) and writing only new or
 * changed ones, then switches the symlink <dir>/current to it with an atomic rename. rsyncd resolves the module
 * path once per connection, so a client sees one whole tree for its session, never a half-updated one.
 * A cycle that would build a tree identical to the current one builds nothing. What the current tree holds is
 * saved at shutdown (trees never change once built), so after a restart unchanged files are linked, not rewritten.
 * Written files get deterministic modification times (the publication-server BCP), so rsync clients, which compare
 * size and mtime, do not fetch unchanged files again after a rewrite; a replaced tree stays for a grace period.
 * A replaced tree that the retention rule lets go, and whose content this process knows, is recycled into the next
 * tree instead of linking every file anew (rsync-tree-writer.ts): a cycle then costs what changed since that tree.
 */
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { PubdReader, PubdView } from '../store/pubd-store.js'
import type { Clock } from '../util/clock.js'
import { sha256Hex } from '../crypto/digest.js'
import { reasonOf } from '../errors.js'
import { relativePath } from './publishers.js'
import { byPublisher, filesBelow, recycleTree, slicer, tryLink, writePublished, type WantedFiles } from './rsync-tree-writer.js'

export { publishedTime } from './rsync-tree-writer.js'

export interface RsyncWriterOptions {
  /** <data_dir>/repo/rsync */
  dir: string
  /** rsync_base_uri: the module URI that maps to the tree's root */
  baseUri: string
  reader: PubdReader
  now: () => Date
  /** The ages of replaced trees, measured like the directory mtimes they are compared with. */
  clock: Pick<Clock, 'now'>
  /** Seconds a replaced tree stays, so rsync sessions that started in it can finish (default 7200). */
  graceSeconds?: number
  /** Replaced trees kept within the grace period, at most (default 32; the newest are kept). */
  maxTrees?: number
  /** The safety floor: why a tree from `before` to `after` files must be held back, or undefined. */
  hold?: (before: number, after: number) => string | undefined
  /** Called with the real directory of each new tree after the switch (rsyncd's module path follows it). */
  onSwitch?: (treeDir: string) => void
}

/** A publisher whose files could not be written to the new tree: it kept those of the previous tree. */
export interface PublisherFailure {
  publisher: string
  reason: string
}

/** The outcome of a cycle: files in the tree, how many written and linked, and the publishers that failed. */
export interface RsyncCycle {
  files: number
  written: number
  linked: number
  failed: PublisherFailure[]
  /** Set when the safety floor held the tree back (the current one stays): why. */
  held?: string
  /** Set when a replaced tree was recycled into this one: the paths it had to bring up to date. */
  recycled?: number
  /**
   * With `recycled`: what building the tree afresh would have cost (ms, from the last fresh build's cost per file).
   * The rsync pacer spaces trees by this, not by the recycle's cost, so that the trees kept span as much time as
   * before: an rsync session's length grows with the tree, not with what changed.
   */
  freshMs?: number
}

interface Built {
  files: Map<string, string>
  written: number
  linked: number
  failed: PublisherFailure[]
  held?: string
  recycled?: number
  /** The paths whose file differs from the current tree's. */
  changed?: string[]
}

/** What the current tree holds, saved at shutdown: { tree, files: [relative path, hash][] }. */
const SAVED = 'current-files.json'

export class RsyncWriter {
  private readonly o: RsyncWriterOptions
  /** The tree `current` points at, and the hash of every file in it (known once we built it). */
  private last: { name: string; files: Map<string, string> } | undefined
  private counter = 0
  /** The generation of `last` (counted by this process), the trees whose content is known by generation, and the paths each generation changed. */
  private gen = 0
  private readonly known = new Map<string, number>()
  private readonly changedIn = new Map<number, string[]>()
  /** The cost per file of the last fresh build of 1,000 files or more (ms; 30 µs until measured). */
  private msPerFile = 0.03

  constructor(options: RsyncWriterOptions) {
    this.o = options
  }

  /** The symlink to the current tree (stable name for tools and external servers). */
  modulePath(): string {
    return join(this.o.dir, 'current')
  }

  /**
   * The real directory of the current tree. rsyncd must serve this, not the symlink: rsync rebuilds absolute paths
   * during a transfer, so a symlink switched mid-session would mix two trees (rsyncd re-reads its config for each
   * connection, so each session gets the tree current at its start).
   */
  currentTree(): string {
    return realpathSync(this.modulePath())
  }

  /** Whether the current tree (what rsyncd serves) holds `uri` with exactly this content (hex SHA-256; issue 26 §4). */
  holds(uri: string, sha256: string): boolean {
    try {
      return sha256Hex(readFileSync(join(this.currentTree(), relativePath(uri, this.o.baseUri)))) === sha256
    } catch {
      return false
    }
  }

  /**
   * Make sure `current` exists (an empty tree at first start), so rsyncd can serve before the first cycle; and learn
   * what it holds from the file saved at the last shutdown, if that file describes it.
   */
  init(): void {
    mkdirSync(join(this.o.dir, 'trees'), { recursive: true })
    if (!existsSync(this.modulePath())) {
      const name = this.treeName()
      mkdirSync(join(this.o.dir, 'trees', name), { recursive: true, mode: 0o755 })
      this.switchTo(name)
      this.last = { name, files: new Map() }
      return
    }
    this.last = this.loadSaved()
  }

  /** Save what the current tree holds (at shutdown), for the next start. */
  save(): void {
    if (!this.last) return
    const tmp = join(this.o.dir, `${SAVED}.tmp`)
    writeFileSync(tmp, JSON.stringify({ tree: this.last.name, files: [...this.last.files] }))
    renameSync(tmp, join(this.o.dir, SAVED))
  }

  private loadSaved(): RsyncWriter['last'] {
    try {
      const saved = JSON.parse(readFileSync(join(this.o.dir, SAVED), 'utf8')) as { tree: string; files: [string, string][] }
      const current = readlinkSync(this.modulePath()).split('/').pop()
      return saved.tree === current && existsSync(join(this.o.dir, 'trees', saved.tree)) ? { name: saved.tree, files: new Map(saved.files) } : undefined
    } catch {
      return undefined
    }
  }

  /**
   * Build a new tree from one consistent read of the repository and switch to it; nothing when it would be the same.
   * Each publisher's files are written on their own: when one publisher's files cannot be written (a name the file
   * system refuses, an object where another needs a directory), that publisher keeps its files of the previous tree,
   * everyone else's changes are switched to, and the publisher is named in `failed`. When even that is impossible
   * (the disk is full), the cycle fails and the current tree stays.
   */
  async cycle(): Promise<RsyncCycle> {
    const name = this.treeName()
    const root = join(this.o.dir, 'trees', name)
    let result: Built | undefined
    try {
      result = await this.o.reader.read((view) => this.build(view, root))
    } catch (e) {
      await rm(root, { recursive: true, force: true }).catch(() => undefined)
      throw e
    }
    if (!result || result.held) return { files: this.last!.files.size, written: 0, linked: 0, failed: [], ...(result?.held ? { held: result.held } : {}) }
    this.switchTo(name)
    this.remember(name, result)
    await this.cleanup()
    const recycled = result.recycled !== undefined ? { recycled: result.recycled, freshMs: result.files.size * this.msPerFile } : {}
    return { files: result.files.size, written: result.written, linked: result.linked, failed: result.failed, ...recycled }
  }

  /** `name` is the current tree now: note what changed since the last one (a tree with failures has unknown content). */
  private remember(name: string, built: Built): void {
    const before = this.last?.files
    this.last = { name, files: built.files }
    if (!before || !built.changed || built.failed.length) {
      this.known.clear()
      this.changedIn.clear()
      return
    }
    this.changedIn.set(++this.gen, built.changed)
    this.known.set(name, this.gen)
  }

  /**
   * The newest replaced tree whose content is known and that the retention rule lets go once the next tree is current
   * (it has aged past the grace period, or the current tree takes its place among the `maxTrees` kept), with the paths
   * changed since it was built: it would be removed after the switch anyway, so it is recycled into the next tree.
   */
  private donor(): { name: string; dir: string; paths: string[] } | undefined {
    if (!this.last || !this.known.has(this.last.name)) return undefined
    const replaced = this.replaced()
    const kept = replaced.filter((t) => t.keep)
    const goes = new Set(replaced.filter((t) => !t.keep).map((t) => t.name))
    if (kept.length && kept.length >= (this.o.maxTrees ?? 32)) goes.add(kept[kept.length - 1]!.name)
    for (const t of replaced) {
      const gen = this.known.get(t.name)
      if (!goes.has(t.name) || gen === undefined) continue
      const paths: string[] = []
      for (let g = gen + 1; g <= this.gen; g++) for (const rel of this.changedIn.get(g) ?? []) paths.push(rel) // no spread: a burst is 100,000 paths
      return { name: t.name, dir: join(this.o.dir, 'trees', t.name), paths }
    }
    return undefined
  }

  /**
   * Write the tree under `root` from `view`: by recycling a replaced tree when there is one to let go, else afresh,
   * publisher by publisher; undefined when it would equal the current one.
   */
  private async build(view: PubdView, root: string): Promise<Built | undefined> {
    const objects = [...view.hashes()]
    const wanted: WantedFiles = new Map(objects.map((o) => [relativePath(o.uri, this.o.baseUri), o]))
    const last = this.last
    const changed: string[] = []
    if (last) {
      for (const [rel, w] of wanted) if (last.files.get(rel) !== w.hash) changed.push(rel)
      for (const rel of last.files.keys()) if (!wanted.has(rel)) changed.push(rel)
      if (!changed.length) return undefined
    }
    const held = last ? this.o.hold?.(last.files.size, wanted.size) : undefined
    if (held) return { files: new Map(), written: 0, linked: 0, failed: [], held }
    const donor = this.donor()
    if (donor && last) {
      for (const rel of changed) donor.paths.push(rel)
      const current = { dir: join(this.o.dir, 'trees', last.name), files: last.files }
      try {
        this.known.delete(donor.name)
        const done = await recycleTree({ from: donor.dir, root, paths: donor.paths, wanted, current, content: (uri) => view.content(uri), builtAt: new Date(this.o.clock.now()) })
        const files = new Map(last.files)
        for (const rel of changed) {
          const w = wanted.get(rel)
          if (w) files.set(rel, w.hash)
          else files.delete(rel)
        }
        return { files, ...done, failed: [], changed }
      } catch {
        // Build afresh instead (a publisher's file the file system refuses is then kept from the current tree).
        this.known.clear()
        rmSync(root, { recursive: true, force: true })
      }
    }
    const began = performance.now()
    const built = await this.buildFresh(view, objects, root)
    if (objects.length >= 1000) this.msPerFile = (performance.now() - began) / objects.length
    return last ? { ...built, changed } : built
  }

  /** Write the tree under `root` afresh, publisher by publisher, linking every unchanged file from the current tree. */
  private async buildFresh(view: PubdView, wanted: readonly { uri: string; hash: string; publisher: string }[], root: string): Promise<Built> {
    mkdirSync(root, { recursive: true, mode: 0o755 })
    const built: Built = { files: new Map(), written: 0, linked: 0, failed: [] }
    const jails = new Map(view.publishers().map((p) => [p.handle, p.baseUri]))
    for (const group of byPublisher(wanted)) {
      const dir = relativePath(jails.get(group.publisher) ?? `${this.o.baseUri}${group.publisher}/`, this.o.baseUri)
      const part: Built = { files: new Map(), written: 0, linked: 0, failed: [] }
      try {
        await this.writeFiles(view, root, group.objects, part)
      } catch (e) {
        this.keepPrevious(root, dir, part)
        built.failed.push({ publisher: group.publisher, reason: reasonOf(e) })
      }
      for (const [rel, hash] of part.files) built.files.set(rel, hash)
      built.written += part.written
      built.linked += part.linked
    }
    return built
  }

  /** Write or link the files of `objects` into the tree at `root`, noting them in `out`; throws at the first failure. */
  private async writeFiles(view: PubdView, root: string, objects: readonly { uri: string; hash: string }[], out: Built): Promise<void> {
    const dirs = new Set<string>()
    const slice = slicer()
    for (const { uri, hash } of objects) {
      const rel = relativePath(uri, this.o.baseUri)
      const target = join(root, rel)
      const parent = join(target, '..')
      if (!dirs.has(parent)) {
        mkdirSync(parent, { recursive: true, mode: 0o755 })
        dirs.add(parent)
      }
      if (this.last && this.last.files.get(rel) === hash && tryLink(join(this.o.dir, 'trees', this.last.name, rel), target)) out.linked++
      else {
        writePublished(target, rel, view.content(uri) ?? new Uint8Array())
        out.written++
      }
      out.files.set(rel, hash)
      await slice()
    }
  }

  /**
   * After a publisher's files failed: remove what was written of its directory `dir` and link in its files of the
   * current tree instead (none when it had none). Their hashes are known when this process built that tree, else
   * noted as unknown, so the next cycle builds again. Throws when even that fails: no cycle drops content.
   */
  private keepPrevious(root: string, dir: string, out: Built): void {
    rmSync(join(root, dir), { recursive: true, force: true })
    out.files.clear()
    out.written = 0
    out.linked = 0
    const previous = join(realpathSync(this.modulePath()), dir)
    for (const rel of filesBelow(previous)) {
      const target = join(root, dir, rel)
      mkdirSync(join(target, '..'), { recursive: true, mode: 0o755 })
      linkSync(join(previous, rel), target)
      out.files.set(dir + rel, this.last?.files.get(dir + rel) ?? '')
      out.linked++
    }
  }

  private treeName(): string {
    return `${this.o.now().getTime()}-${process.pid}-${this.counter++}`
  }

  private switchTo(name: string): void {
    const tmp = join(this.o.dir, 'current.tmp')
    rmSync(tmp, { force: true })
    symlinkSync(join('trees', name), tmp)
    renameSync(tmp, this.modulePath())
    this.o.onSwitch?.(join(this.o.dir, 'trees', name))
  }

  /**
   * Remove replaced trees once the grace period has passed since they were replaced (the next newer tree was built),
   * and beyond the `maxTrees` newest replaced ones whatever their age. The bound holds the number of trees (and their
   * directory entries) under constant change: trees are about 100 times the time a fresh build would take apart
   * (the rsync pacer's busyShare, budgeted over a minute), at most 30 s, so 32 trees span a transfer of the whole tree many times over.
   * Asynchronously: removing a tree of 100,000 files took 1 to 2 s here, which would otherwise hold up the RRDP
   * writer and every request. Under constant change the tree that goes is recycled into the next one instead (donor).
   */
  private async cleanup(): Promise<void> {
    for (const t of this.replaced()) {
      if (t.keep) continue
      this.known.delete(t.name)
      await rm(join(this.o.dir, 'trees', t.name), { recursive: true, force: true })
    }
    const oldest = Math.min(...this.known.values())
    for (const g of this.changedIn.keys()) if (g <= oldest) this.changedIn.delete(g)
  }

  /** The replaced trees, newest first, and whether the retention rule keeps each (see cleanup). */
  private replaced(): { name: string; keep: boolean }[] {
    const current = readlinkSync(this.modulePath()).split('/').pop()
    // Tree ages are measured on the clock of the directory mtimes they are compared with.
    const grace = this.o.graceSeconds ?? 7200
    const cutoff = this.o.clock.now() - grace * 1000
    const trees = readdirSync(join(this.o.dir, 'trees'))
      .map((name) => ({ name, st: statSync(join(this.o.dir, 'trees', name), { throwIfNoEntry: false }) }))
      .filter((t) => t.st !== undefined)
      .sort((a, b) => b.st!.mtimeMs - a.st!.mtimeMs || (a.name < b.name ? 1 : -1))
    const out: { name: string; keep: boolean }[] = []
    let kept = 0
    let replacedAt = Infinity
    for (const t of trees) {
      const mtime = t.st!.mtimeMs
      if (t.name === current) {
        replacedAt = mtime
        continue
      }
      // A tree newer than the current one is being built (or was left by a failed cycle, which removes it itself).
      if (mtime > replacedAt) continue
      // With no grace a replaced tree goes at once, even when its successor's mtime is within this millisecond.
      const keep = grace > 0 && replacedAt >= cutoff && kept < (this.o.maxTrees ?? 32)
      replacedAt = mtime
      if (keep) kept++
      out.push({ name: t.name, keep })
    }
    return out
  }
}

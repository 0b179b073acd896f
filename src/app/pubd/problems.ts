/**
 * What currently keeps the publication server's output from holding everything it accepted (issue 10): RRDP files
 * or the rsync tree that could not be written, a publisher whose files the rsync tree cannot take. A problem stays
 * until its key is cleared; `set` and `clear` say whether the state changed, so the caller logs once per change and
 * not once per retry. Read by GET /ready (labels and public args only) and GET /api/v1/pubd/stats (with reasons).
 */
import { CATALOGUE, reasonOf, renderMessage, type ErrorLabel } from '../../errors.js'
import type { Logger } from '../../log.js'
import type { PublisherFailure } from '../../pubd/rsync-writer.js'
import type { OutputLag } from './output-lag.js'

export interface Problem {
  label: ErrorLabel
  /** Values for the label's message; safe to show without a token (no paths, no internals). */
  args: Record<string, string>
  /** The underlying failure, for the log and the authenticated API only. */
  reason: string
}

/** A problem as the API shows it: the catalogue's {label, msg, args}. */
export interface ProblemJson {
  label: string
  msg: string
  args: Record<string, string>
}

export class Problems {
  private readonly current = new Map<string, Problem & { since: string }>()

  /**
   * Record the problem under `key`; true when it is new or its label or args changed. A new reason alone (the same
   * full disk, hit at another file name on the next retry) is kept but is no change of state.
   */
  set(key: string, p: Problem, now: Date): boolean {
    const old = this.current.get(key)
    this.current.set(key, { ...p, since: old?.since ?? now.toISOString() })
    return !old || old.label !== p.label || JSON.stringify(old.args) !== JSON.stringify(p.args)
  }

  /** Forget the problem under `key`; the one that was recorded, if any. */
  clear(key: string): Problem | undefined {
    const old = this.current.get(key)
    this.current.delete(key)
    return old
  }

  /** The keys recorded, for clearing those that no longer apply. */
  keys(): string[] {
    return [...this.current.keys()]
  }

  /** Every problem, oldest key first; `withReason` adds the underlying failure to args (authenticated callers only). */
  list(withReason: boolean): ProblemJson[] {
    return [...this.current.values()].map((p) => {
      const args = { ...p.args, since: p.since, ...(withReason ? { reason: p.reason } : {}) }
      return { label: p.label, msg: renderMessage(CATALOGUE[p.label].msg, args), args }
    })
  }
}

/**
 * The publication service's output problems, logged once per change of state: failures of a whole output, a
 * publisher's files the rsync tree could not take, the safety floor's holds, and outputs lagging behind what was
 * acknowledged (output-lag.ts).
 */
export class OutputProblems {
  private readonly problems = new Problems()

  constructor(
    private readonly log: Logger,
    private readonly now: () => Date,
  ) {}

  keys(): string[] {
    return this.problems.keys()
  }

  list(withReason: boolean): ProblemJson[] {
    return this.problems.list(withReason)
  }

  /** Record a problem; logged when it is new or changed, not on every retry. */
  report(key: string, p: Problem, stack?: string): void {
    if (this.problems.set(key, p, this.now())) this.log.error('publication output problem', { problem: key, label: p.label, ...p.args, err: p.reason, ...(stack ? { stack } : {}) })
  }

  /** A problem is over; logged once. */
  recovered(key: string): void {
    const old = this.problems.clear(key)
    if (old) this.log.info('publication output problem resolved', { problem: key, label: old.label, ...old.args })
  }

  /** A pacer's run failed: record the problem (a partial rsync failure is recorded per publisher instead). */
  failed(key: 'rrdp' | 'rsync', label: 'sys-rrdp-behind' | 'sys-rsync-behind', e: unknown): void {
    if (e instanceof PublishersFailed) return this.recovered(key)
    this.report(key, { label, args: {}, reason: reasonOf(e) }, (e as Error)?.stack)
  }

  /** Record or clear the safety floor's hold of `output`; true when held. */
  hold(output: 'rrdp' | 'rsync', why: string | undefined): boolean {
    if (why) this.report(`held:${output}`, { label: 'sys-publication-held', args: { output, why }, reason: why })
    else this.recovered(`held:${output}`)
    return why !== undefined
  }

  /**
   * After an rsync cycle: the publishers whose files could not be written are problems of their own, the others are
   * cleared; throws PublishersFailed when there were some (the pacer retries, without a problem of the whole tree).
   */
  rsyncPublishers(failures: readonly PublisherFailure[]): void {
    const failed = new Set(failures.map((f) => f.publisher))
    for (const key of this.problems.keys()) {
      const publisher = key.startsWith('rsync:') ? key.slice('rsync:'.length) : undefined
      if (publisher !== undefined && !failed.has(publisher)) this.recovered(key)
    }
    for (const f of failures) this.report(`rsync:${f.publisher}`, { label: 'sys-rsync-publisher', args: { publisher: f.publisher }, reason: f.reason })
    if (failures.length) throw new PublishersFailed(failures.length)
  }

  /** Record or clear the lag of `output`: an acknowledged change it does not hold after `boundSeconds`. */
  lag(output: 'rrdp' | 'rsync', lag: OutputLag, boundSeconds: number): void {
    const now = this.now().getTime()
    const at = lag.behind(now, boundSeconds * 1000)
    if (at === undefined) return this.recovered(`lag:${output}`)
    const args = { accepted: new Date(at).toISOString(), bound: String(boundSeconds) }
    this.report(`lag:${output}`, { label: `sys-${output}-lag`, args, reason: `${Math.round((now - at) / 1000)} s behind` })
  }
}

/** An rsync cycle switched the tree but some publishers kept old files: retry, without a problem of the whole tree. */
class PublishersFailed extends Error {
  constructor(n: number) {
    super(`the files of ${n} publisher(s) could not be written to the rsync tree`)
  }
}

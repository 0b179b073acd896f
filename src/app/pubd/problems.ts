/**
 * What currently keeps the publication server's output from holding everything it accepted (issue 10): RRDP files
 * or the rsync tree that could not be written, a publisher whose files the rsync tree cannot take. A problem stays
 * until its key is cleared; `set` and `clear` say whether the state changed, so the caller logs once per change and
 * not once per retry. Read by GET /ready (labels and public args only) and GET /api/v1/pubd/stats (with reasons).
 */
import { CATALOGUE, renderMessage, type ErrorLabel } from '../../errors.js'

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

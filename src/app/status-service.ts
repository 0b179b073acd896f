/** svcd's own status (krill-reference.md §1.1 `info`, issue 10 `/ready`): version, start time, health, readiness. */
import type { ErrorBody, ReadyJson, ServerInfo } from '../api/status.js'
import { AppError } from '../errors.js'

export interface StatusServiceDeps {
  version: string
  started: Date
  /** The store answers. */
  storeAlive: () => boolean
  /** The publication server's problems (output behind, a publisher whose files cannot be written); labels and args. */
  publicationProblems: () => ErrorBody[]
  /** The signers that cannot sign now (sys-signer-unavailable, -login, -slow): nothing new can be signed. */
  signerProblems?: () => ErrorBody[]
  /** Parts of svcd that stalled (sys-stalled, app/shared/watchdog.ts). */
  stallProblems?: () => ErrorBody[]
}

export class StatusService {
  constructor(private readonly d: StatusServiceDeps) {}

  /** Version and start time (unix seconds). */
  serverInfo(): ServerInfo {
    return { version: this.d.version, started: Math.floor(this.d.started.getTime() / 1000) }
  }

  /** Health as seen by the service itself: the database answers. */
  health(): boolean {
    try {
      return this.d.storeAlive()
    } catch {
      return false // the database cannot be reached: /health answers sys-storage-unavailable
    }
  }

  /** Ready when the store answers, every signer can sign, and the repository output holds everything accepted, or is catching up. */
  ready(): ReadyJson {
    let alive = false
    try {
      alive = this.d.storeAlive()
    } catch {
      // A store that throws is not ready; /health says the same with a 500.
    }
    const down = new AppError('sys-store', { reason: 'the database does not answer' })
    const problems: ErrorBody[] = alive ? [] : [{ label: down.label, msg: down.message, args: down.args }]
    problems.push(...(this.d.signerProblems?.() ?? []), ...this.d.publicationProblems(), ...(this.d.stallProblems?.() ?? []))
    return problems.length ? { ready: false, problems } : { ready: true }
  }
}

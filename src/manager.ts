/**
 * The one facade of svcd's business logic (style.md §1, Krill's KrillManager): HTTP handlers make one call here.
 * Owns `now`, transactions and retries. Methods are named `ca<Noun><Verb>`, `pubd<Noun><Verb>`, mirroring routes.
 */
import type { Config } from './config.js'
import type { Logger } from './log.js'
import type { Db } from './store/db.js'
import { propertyStore, type PropertyStore } from './store/properties.js'
import type { ServerInfo } from './api/status.js'
import { VERSION } from './version.js'

export interface ManagerDeps {
  config: Config
  db: Db
  log: Logger
  /** The clock; tests inject a fixed or shifted one. */
  now?: () => Date
}

export class Manager {
  readonly config: Config
  private readonly db: Db
  private readonly log: Logger
  private readonly now: () => Date
  private readonly started: Date
  private readonly properties: PropertyStore

  constructor(deps: ManagerDeps) {
    this.config = deps.config
    this.db = deps.db
    this.log = deps.log
    this.now = deps.now ?? (() => new Date())
    this.started = this.now()
    this.properties = propertyStore(this.db)
    this.recordVersion()
  }

  /** Version and start time (krill-reference.md §1.1 `info`: unix seconds). */
  serverInfo(): ServerInfo {
    return { version: VERSION, started: Math.floor(this.started.getTime() / 1000) }
  }

  /** Health as seen by the service itself: the database answers. */
  health(): boolean {
    return this.db.version() > 0
  }

  /** Stop background work; called on shutdown before the database closes. */
  async shutdown(): Promise<void> {
    this.log.debug('manager stopped')
  }

  private recordVersion(): void {
    this.db.transaction(() => {
      if (!this.properties.get('created')) this.properties.set('created', this.now().toISOString())
      this.properties.set('version', VERSION)
    })
  }
}

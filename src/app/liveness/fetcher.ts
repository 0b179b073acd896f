/**
 * The RepositoryFetcher of ports.ts: RRDP through RrdpFetcher, rsync through RsyncFetcher (absent when [liveness]
 * rsync is off: every rsync fetch then fails with that reason). Constructed by compose-liveness.ts.
 */
import type { FetchedRepository, Transport } from '../../liveness/model.js'
import type { Clock } from '../../util/clock.js'
import type { RepositoryFetcher } from './ports.js'
import type { RrdpFetcher } from './rrdp-fetcher.js'
import type { RsyncFetcher } from './rsync-fetcher.js'

export class LivenessFetcher implements RepositoryFetcher {
  constructor(private readonly o: { rrdp: RrdpFetcher; rsync?: RsyncFetcher; clock: Clock }) {}

  fetch(transport: Transport, source: string): Promise<FetchedRepository> {
    if (transport === 'rrdp') return this.o.rrdp.fetch(source)
    if (this.o.rsync) return this.o.rsync.fetch(source)
    return Promise.resolve({ transport, source, at: this.o.clock.now(), error: 'rsync is not checked ([liveness] rsync = false)', files: new Map() })
  }

  retain(sources: Record<Transport, ReadonlySet<string>>): void {
    this.o.rrdp.retain(sources.rrdp)
    this.o.rsync?.retain(sources.rsync)
  }
}

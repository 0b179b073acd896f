/**
 * The publication server (design.md §6) as the composition root hands it to the HTTP routes and the testbed: its
 * publisher-facing side (publisher-service.ts: publishers, RFC 8181, quotas) and its output side (output-service.ts:
 * RRDP and rsync pacing, their problems, the cluster follower's copy, the RRDP files served).
 */
import type { OutputService } from './output-service.js'
import type { PublisherService } from './publisher-service.js'

export interface PublicationService {
  readonly publishers: PublisherService
  readonly outputs: OutputService
}

/** The quarantine's wire types (issue 26 §5; GET /api/v1/quarantine, the bulk issues' `quarantined`). */

/** One item set aside (GET /api/v1/quarantine, the bulk issues). */
export interface QuarantinedJson {
  id: number
  what: 'task' | 'ca' | 'publication'
  /** The task key, the CA handle, or the publisher and URI. */
  subject: string
  reason: string
  /** The stored row as read (tasks only). */
  raw?: string
  /** When it was set aside (ISO 8601). */
  at: string
}

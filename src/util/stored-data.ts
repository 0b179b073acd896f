/**
 * What is stored cannot be decoded (issue 26 §5, Krill #1384): a task of an unknown kind, an argument that does not
 * decode, a CA whose snapshot or rows are not JSON, a publication row that cannot be read. Unlike a transient failure
 * (a network error, a full disk), running it again cannot help: the scheduler and the outputs quarantine the item it
 * names (app/shared/quarantine.ts) instead of retrying it, and go on with everything else.
 */

/** What an undecodable item is: a scheduled task, a whole CA, or one object of the publication server. */
export type QuarantineWhat = 'task' | 'ca' | 'publication'

export class StoredDataError extends Error {
  constructor(
    readonly what: QuarantineWhat,
    /** The task key, the CA handle, or the publisher and URI of the object. */
    readonly subject: string,
    reason: string,
    /** The stored text as read (bounded by whoever keeps it), to show an operator what was set aside. */
    readonly raw = '',
  ) {
    super(reason)
    this.name = 'StoredDataError'
  }
}

/** The StoredDataError in `e`, if it is one. */
export function storedDataError(e: unknown): StoredDataError | undefined {
  return e instanceof StoredDataError ? e : undefined
}

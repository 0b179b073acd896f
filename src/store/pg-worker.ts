/**
 * The thread behind PgDb (pg-db.ts): it owns one PostgreSQL connection (pg) and answers one request at a time. A
 * request comes over a MessagePort; the answer goes back over the same port and the shared flag is raised and
 * notified, which wakes the main thread blocked in Atomics.wait (it then takes the answer with receiveMessageOnPort).
 * Errors are answered, never thrown: the message and SQLSTATE only, never the statement's parameters (key material
 * and object bytes travel as parameters).
 */
import { workerData, type MessagePort } from 'node:worker_threads'
import pg from 'pg'

/** What the main thread asks: open the connection, run one statement, or close. */
export type PgRequest =
  | { id: number; op: 'connect' }
  | { id: number; op: 'query'; sql: string; name?: string; params: unknown[] }
  | { id: number; op: 'reconnect' }
  | { id: number; op: 'close' }
export interface PgAnswer {
  id: number
  rows?: Record<string, unknown>[]
  rowCount?: number
  error?: { message: string; code?: string }
  /** The connection is gone: nothing more runs on it until the main thread asks to reconnect. */
  broken?: boolean
}

const { uri, port, flag } = workerData as { uri: string; port: MessagePort; flag: SharedArrayBuffer }
const signal = new Int32Array(flag)

// int8 (counts, sizes, times in milliseconds) and numeric (sums) as numbers: every value svc stores is below 2^53.
pg.types.setTypeParser(20, Number)
pg.types.setTypeParser(1700, Number)

let lost: Error | undefined
let client = newClient()

function newClient(): pg.Client {
  const c = new pg.Client({ connectionString: uri, connectionTimeoutMillis: 10_000, statement_timeout: 30_000 })
  // Only the current client's fate counts: the one replaced by a reconnect ends too.
  c.on('error', (e) => c === client && (lost = e))
  c.on('end', () => c === client && (lost ??= new Error('the server closed the connection')))
  return c
}

function answer(a: PgAnswer): void {
  port.postMessage(a)
  Atomics.store(signal, 0, 1)
  Atomics.notify(signal, 0)
}

function failure(e: unknown): { message: string; code?: string } {
  const err = e as { message?: string; code?: string }
  return { message: String(err?.message ?? e), ...(typeof err?.code === 'string' ? { code: err.code } : {}) }
}

/** Bytes arrive as Uint8Array (structured clone drops Buffer): pg binds only Buffers as bytea. */
function bind(params: unknown[]): unknown[] {
  return params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p))
}

async function handle(req: PgRequest): Promise<PgAnswer> {
  if (req.op === 'connect') {
    await client.connect()
    return { id: req.id }
  }
  if (req.op === 'reconnect') {
    void client.end().catch(() => undefined)
    lost = undefined
    client = newClient()
    await client.connect()
    return { id: req.id }
  }
  if (req.op === 'close') {
    await client.end().catch(() => undefined)
    return { id: req.id }
  }
  if (lost) throw new Error(`connection lost: ${lost.message}`)
  const r = await client.query({ text: req.sql, values: bind(req.params), ...(req.name ? { name: req.name } : {}) })
  return { id: req.id, rows: r.rows as Record<string, unknown>[], rowCount: r.rowCount ?? 0 }
}

// One request at a time: the main thread waits for each answer before it sends the next.
port.on('message', (req: PgRequest) => {
  handle(req).then(answer, (e) => answer({ id: req.id, error: failure(e), ...(lost ? { broken: true } : {}) })).finally(() => {
    if (req.op === 'close') port.close()
  })
})

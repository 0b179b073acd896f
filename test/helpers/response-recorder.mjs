/**
 * Loaded into svcd by the scenario harness (`node --import=<this file> dist/main.js`, test/helpers/daemon.ts): with
 * SVC_TEST_RECORD_RESPONSES=<file>, every HTTP answer svcd sends is appended to <file> as one JSON line
 * `{method, url, status, type, body}` (the body only where it can be JSON, up to 8 MiB; XML, RRDP and binary
 * answers are recorded without it). test/helpers/krill-json.ts checks the lines when the daemon's test ends. Plain
 * JavaScript, since svcd runs without a TypeScript loader; it changes nothing in what svcd sends.
 */
import { appendFileSync } from 'node:fs'
import http from 'node:http'

const file = process.env.SVC_TEST_RECORD_RESPONSES
const MAX_BODY = 8 * 1024 * 1024
const NOT_JSON = /xml|pkix|rpki|octet-stream|gzip/i

// The test process that started this svcd may die without its teardowns (tap's per-file timeout, a crash): an orphan
// would go on renewing and publishing, taking the CPU the next test files need. It follows its parent instead.
const parent = process.ppid
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL')
}, 1000).unref()

if (file) {
  const proto = http.ServerResponse.prototype
  const write = proto.write
  const end = proto.end
  proto.write = function recordWrite(chunk, ...rest) {
    capture(this, chunk)
    return write.call(this, chunk, ...rest)
  }
  proto.end = function recordEnd(chunk, ...rest) {
    if (typeof chunk !== 'function') capture(this, chunk)
    const s = state(this)
    if (!s.watched) {
      s.watched = true
      // Recorded once the whole answer went out; an answer whose client went away first (a streamed one cut off when
      // the browser left the page) is recorded as aborted, without a body to judge.
      this.once('finish', () => record(this))
      this.once('close', () => record(this, !this.writableFinished))
    }
    return end.call(this, chunk, ...rest)
  }
}

function state(res) {
  if (!res.__svcRecord) res.__svcRecord = { chunks: [], size: 0, truncated: false, done: false }
  return res.__svcRecord
}

function capture(res, chunk) {
  if (chunk === undefined || chunk === null) return
  const s = state(res)
  if (s.done || s.truncated || NOT_JSON.test(String(res.getHeader('content-type') ?? ''))) return
  const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer ?? chunk, chunk.byteOffset ?? 0, chunk.byteLength ?? chunk.length)
  if (s.size + buf.length > MAX_BODY) {
    s.truncated = true
    s.chunks = []
    return
  }
  s.chunks.push(Buffer.from(buf))
  s.size += buf.length
}

function record(res, aborted = false) {
  const s = state(res)
  if (s.done) return
  s.done = true
  if (aborted) s.chunks = []
  const type = res.getHeader('content-type')
  const binary = NOT_JSON.test(String(type ?? ''))
  const line = {
    method: res.req?.method ?? null,
    url: res.req?.url ?? null,
    status: res.statusCode,
    type: type === undefined ? null : String(type),
    body: binary || s.truncated || aborted ? null : Buffer.concat(s.chunks).toString('utf8'),
    ...(s.truncated ? { truncated: true } : {}),
    ...(aborted ? { aborted: true } : {}),
  }
  try {
    appendFileSync(file, JSON.stringify(line) + '\n')
  } catch {
    // The test's directory went away (the test ended first): nothing left to record for.
  }
}

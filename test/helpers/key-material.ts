/**
 * Searching for private key material (issue 25 acceptance: with a PKCS#11 default signer no private key of a CA is
 * written to the data dir or the database). Every file under a directory, byte for byte, and every value of every
 * table of an SQLite database (opened read-only), for:
 *   - PKCS#8 PrivateKeyInfo of an RSA key, DER: 30 82 ?? ?? 02 01 00 30 0d 06 09 2a 86 48 86 f7 0d 01 01 01 05 00 04 82
 *   - PKCS#1 RSAPrivateKey (2048-bit), DER:      30 82 ?? ?? 02 01 00 02 82 01 01 00
 *   - the base64 and hex forms of their fixed parts (base64 at each of the three byte alignments),
 *   - PEM: "PRIVATE KEY" (PKCS#8, PKCS#1 "RSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY").
 * A file is read whole (the data dirs of the tests are a few MB); the database file itself is searched too (freed
 * pages keep deleted rows), and so are its -wal and -shm.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import Database from 'better-sqlite3'

export interface KeyHit {
  /** The file (relative to the searched root) or `table.column` of the database. */
  where: string
  kind: string
  offset: number
}

/** The bytes after the length octets, fixed for every key of the kind (2048-bit RSA for PKCS#1). */
const PKCS8_FIXED = Buffer.from('020100300d06092a864886f70d01010105000482', 'hex')
const PKCS1_FIXED = Buffer.from('0201000282010100', 'hex')

interface Pattern {
  kind: string
  find(buf: Buffer): number[]
}

/** Offsets of `needle` in `hay` for which `ok(offset)` holds. */
function offsets(hay: Buffer, needle: Buffer, ok: (at: number) => boolean = () => true): number[] {
  const out: number[] = []
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) if (ok(at)) out.push(at)
  return out
}

/**
 * The base64 characters that encode `fixed` whatever surrounds it, when it starts at byte offset ≡ `align` (mod 3):
 * characters that also carry bits of the bytes before or after are left out.
 */
export function base64Core(fixed: Buffer, align: 0 | 1 | 2): string {
  const enc = Buffer.concat([Buffer.alloc(align), fixed, Buffer.alloc(3)]).toString('base64')
  return enc.slice(Math.ceil((8 * align) / 6), Math.floor((8 * (align + fixed.length)) / 6))
}

function der(kind: string, fixed: Buffer): Pattern[] {
  // The DER form: SEQUENCE with two length octets (30 82 ?? ??), then the fixed part.
  const bin: Pattern = { kind: `${kind} DER`, find: (b) => offsets(b, fixed, (at) => at >= 4 && b[at - 4] === 0x30 && b[at - 3] === 0x82).map((at) => at - 4) }
  const text = [0, 1, 2].map((a): Pattern => ({ kind: `${kind} base64`, find: (b) => offsets(b, Buffer.from(base64Core(fixed, a as 0 | 1 | 2), 'latin1')) }))
  const hex = [fixed.toString('hex'), fixed.toString('hex').toUpperCase()].map((h): Pattern => ({ kind: `${kind} hex`, find: (b) => offsets(b, Buffer.from(h, 'latin1')) }))
  return [bin, ...text, ...hex]
}

const PATTERNS: Pattern[] = [
  ...der('PKCS#8', PKCS8_FIXED),
  ...der('PKCS#1', PKCS1_FIXED),
  { kind: 'PEM', find: (b) => offsets(b, Buffer.from('PRIVATE KEY', 'latin1')) },
]

/** Every pattern found in `buf`. */
export function scanBuffer(buf: Buffer, where: string): KeyHit[] {
  return PATTERNS.flatMap((p) => p.find(buf).map((offset) => ({ where, kind: p.kind, offset })))
}

/** Every regular file under `root` (symbolic links are not followed), relative paths. */
export function filesUnder(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name)
      const st = lstatSync(p)
      if (st.isDirectory()) walk(p)
      else if (st.isFile()) out.push(relative(root, p))
    }
  }
  walk(root)
  return out.sort()
}

/** Key material in any file under `root`. */
export function scanTree(root: string): { files: number; bytes: number; hits: KeyHit[] } {
  const files = filesUnder(root)
  let bytes = 0
  const hits: KeyHit[] = []
  for (const f of files) {
    const buf = readFileSync(join(root, f))
    bytes += buf.length
    hits.push(...scanBuffer(buf, f))
  }
  return { files: files.length, bytes, hits }
}

/** Key material in any value of any table of the SQLite database `file` (read-only). */
export function scanDatabase(file: string): { tables: number; values: number; hits: KeyHit[] } {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name)
    let values = 0
    const hits: KeyHit[] = []
    for (const table of tables) {
      for (const row of db.prepare(`SELECT * FROM "${table.replace(/"/g, '""')}"`).iterate() as Iterable<Record<string, unknown>>) {
        for (const [col, v] of Object.entries(row)) {
          if (v === null || v === undefined) continue
          values++
          const buf = Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'utf8')
          hits.push(...scanBuffer(buf, `${table}.${col}`))
        }
      }
    }
    return { tables: tables.length, values, hits }
  } finally {
    db.close()
  }
}

/** Rows of a read-only query on the SQLite database `file`. */
export function queryDatabase<T>(file: string, sql: string): T[] {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return db.prepare(sql).all() as T[]
  } finally {
    db.close()
  }
}

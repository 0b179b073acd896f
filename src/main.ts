#!/usr/bin/env node
/**
 * svcd: the daemon's entry (design.md §2): config → lock → log → token → TLS → services (compose.ts) → http. With
 * compose.ts and cli.ts the only place that creates concrete classes. Stops gracefully on SIGINT/SIGTERM.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { randomBytes, createPrivateKey, X509Certificate } from 'node:crypto'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { setFlagsFromString } from 'node:v8'
import { ConfigError, loadConfig, type Config } from './config.js'
import { compose, openStorage, type Composed, type Storage } from './compose.js'
import { createBackupFile, openBackupFile, openBackupSource } from './compose-storage.js'
import { createApp, listen, type RunningServer, type TlsMaterial } from './http/app.js'
import { systemClock } from './clock.js'
import { addressSource } from './resources/address-source.js'
import { acquireLock, LockError, type DataDirLock } from './lock.js'
import { restoreInstance, writeBackup, type BackupFile, type BackupSource } from './store/backup.js'
import { KeyEncryptionKey } from './store/kek.js'
import { migrateInstance, type MigrationReport } from './store/migrate.js'
import { StoreError } from './store/sql.js'
import { createLogger, LogFileError, type Logger } from './log.js'
import { generateTlsCertificate } from './tls-cert.js'
import { VERSION } from './version.js'
import { watchFiles, type Watcher } from './watch.js'

const USAGE = `svcd ${VERSION}: RPKI Certificate Authority and publication server daemon

Usage: svcd [-c <file>] [--help] [--version]
       svcd migrate --from <storage_uri> --to <storage_uri> [-c <file>] [--key-encryption-key-file <file>]
       svcd backup --to <file> [-c <file>] [--key-encryption-key-file <file>]
       svcd restore --from <file> [-c <file>] [--key-encryption-key-file <file>]

Options:
  -c, --config <file>  read this TOML config file over the built-in defaults
                       (without it, the built-in defaults apply: see config/svcd.toml)
  -h, --help           print this help
  -V, --version        print the version

svcd migrate copies a whole instance (every CA with its history and objects, the publication server with its
publishers, objects and RRDP state, scheduled tasks, and every private key) from one storage to another: SQLite
(sqlite://<file>, relative to data_dir) or PostgreSQL (postgresql://…). The target must be empty. data_dir and
key_encryption_key_file come from the config (--key-encryption-key-file overrides the latter). Stop svcd first: the
data directory is locked while it runs. Point storage_uri at the target afterwards; the repository output under
data_dir stays where it is.

svcd backup writes a consistent copy of the instance of the config, while it runs, to one file (mode 0600): every
row as of one instant, and the private keys sealed under the key-encryption key (key_encryption_key_file, or
--key-encryption-key-file; required). svcd restore brings such a file back into the config's empty storage (svcd
stopped), with the same key-encryption key; svcd then starts a new RRDP session and every CA re-publishes with higher
manifest numbers.

Environment: SVC_ADMIN_TOKEN overrides admin_token, SVC_DATA_DIR overrides data_dir, SVC_STORAGE_URI
overrides storage_uri.
`

/**
 * The old generation may double before the next full collection (V8's own factor is about 1.1 for a heap as small and
 * as idle as svcd's): a CA service keeps a small live set and allocates steadily (decoded states, objects, requests),
 * so with V8's default it ran a full mark-compact about every second under load, about a tenth of its CPU; now about
 * every ten seconds, for some tens of MiB more. A runtime flag: V8 reads it each time it sizes the next limit.
 */
setFlagsFromString('--heap-growing-percent=100')

interface Running {
  config: Config
  log: Logger
  lock: DataDirLock
  svc: Composed
  server: RunningServer
  watcher: Watcher | undefined
}

async function main(argv: string[]): Promise<number> {
  let args
  try {
    args = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'V' }, from: { type: 'string' }, to: { type: 'string' }, 'key-encryption-key-file': { type: 'string' } }, allowPositionals: true })
  } catch (e) {
    process.stderr.write(`svcd: ${(e as Error).message}\n\n${USAGE}`)
    return 2
  }
  if (args.values.help) return (process.stdout.write(USAGE), 0)
  if (args.values.version) return (process.stdout.write(`svcd ${VERSION}\n`), 0)
  if (args.positionals[0] === 'migrate' && args.positionals.length === 1) return migrate(args.values)
  if (args.positionals[0] === 'backup' && args.positionals.length === 1) return backup(args.values)
  if (args.positionals[0] === 'restore' && args.positionals.length === 1) return restore(args.values)
  if (args.positionals.length) return (process.stderr.write(`svcd: unexpected argument '${args.positionals[0]}'\n\n${USAGE}`), 2)
  if (args.values.from !== undefined || args.values.to !== undefined || args.values['key-encryption-key-file'] !== undefined) {
    return (process.stderr.write(`svcd: --from, --to and --key-encryption-key-file belong to svcd migrate, backup and restore\n\n${USAGE}`), 2)
  }

  let running: Running
  try {
    running = await start(args.values.config)
  } catch (e) {
    if (e instanceof ConfigError || e instanceof LockError || e instanceof StartError || e instanceof StoreError || e instanceof LogFileError) {
      process.stderr.write(`svcd: ${e.message}\n`)
      return 1
    }
    throw e
  }
  await new Promise<void>((done) => {
    const stop = (signal: string) => {
      running.log.info('stopping', { signal })
      process.off('SIGINT', stop).off('SIGTERM', stop)
      shutdown(running).then(done, done)
    }
    process.on('SIGINT', stop).on('SIGTERM', stop)
  })
  return 0
}

class StartError extends Error {}

type BackupOptions = { config?: string; from?: string; to?: string; 'key-encryption-key-file'?: string }

/** svcd migrate: copy the instance at --from into the empty --to (store/migrate.ts); exit 0, 1 (refused/failed) or 2 (usage). */
async function migrate(o: BackupOptions): Promise<number> {
  if (!o.from || !o.to) return (process.stderr.write(`svcd: migrate needs --from <storage_uri> and --to <storage_uri>\n\n${USAGE}`), 2)
  const opened: Storage[] = []
  let lock: DataDirLock | undefined
  try {
    const loaded = loadConfig(o.config)
    const config = { ...loaded, key_encryption_key_file: o['key-encryption-key-file'] ?? loaded.key_encryption_key_file }
    const dataDir = resolve(config.data_dir)
    ensureDir(dataDir)
    lock = acquireLock(join(dataDir, 'svcd.lock'), config.data_dir)
    const from = openStorage({ ...config, storage_uri: o.from }, dataDir)
    opened.push(from)
    const to = openStorage({ ...config, storage_uri: o.to }, dataDir)
    opened.push(to)
    if (from.where === to.where) throw new StartError(`--from and --to are the same storage (${from.where})`)
    const report = migrateInstance({ db: from.db, keys: from.keys(), display: from.where }, { db: to.db, keys: to.keys(), display: to.where, afterCopy: to.afterCopy })
    const rows = Object.entries(report.rows).map(([table, n]) => `  ${table}: ${n}\n`).join('')
    process.stdout.write(`copied ${from.where} to ${to.where}\n${rows}  private keys: ${report.keys}\n`)
    return 0
  } catch (e) {
    // Every failure is the operator's to read (a refusal, or the database's own message): no stack trace.
    return (process.stderr.write(`svcd: migrate: ${(e as Error).message}\n`), 1)
  } finally {
    for (const s of opened) s.db.close()
    lock?.release()
  }
}

/** svcd backup: a consistent copy of the running instance in the file --to (store/backup.ts); exit 0, 1 or 2. */
async function backup(o: BackupOptions): Promise<number> {
  if (!o.to || o.from !== undefined) return (process.stderr.write(`svcd: backup needs --to <file> (and no --from)\n\n${USAGE}`), 2)
  let source: BackupSource | undefined
  try {
    const config = loadConfig(o.config)
    const kek = readKek(o, config)
    const started = systemClock.now()
    source = openBackupSource(config, resolve(config.data_dir))
    const report = await writeBackup(source, resolve(o.to), (tmp) => createBackupFile(tmp, kek), kek, { now: systemClock.date(), version: VERSION })
    const seconds = ((systemClock.now() - started) / 1000).toFixed(2)
    const rrdp = report.rrdp ? `  RRDP: session ${report.rrdp.session}, serial ${report.rrdp.serial}\n` : '  RRDP: no session yet\n'
    process.stdout.write(`backed up ${source.display} to ${resolve(o.to)} (${statSync(resolve(o.to)).size} bytes, ${seconds} s)\n${rowLines(report)}  private keys: ${report.keys} (sealed under the key-encryption key)\n${rrdp}`)
    return 0
  } catch (e) {
    return (process.stderr.write(`svcd: backup: ${(e as Error).message}\n`), 1)
  } finally {
    source?.db.close()
  }
}

/** svcd restore: the backup file --from into the config's empty storage (store/backup.ts); exit 0, 1 or 2. */
async function restore(o: BackupOptions): Promise<number> {
  if (!o.from || o.to !== undefined) return (process.stderr.write(`svcd: restore needs --from <file> (and no --to)\n\n${USAGE}`), 2)
  let lock: DataDirLock | undefined
  let file: BackupFile | undefined
  let target: Storage | undefined
  try {
    const config = loadConfig(o.config)
    const kek = readKek(o, config)
    const dataDir = resolve(config.data_dir)
    ensureDir(dataDir)
    lock = acquireLock(join(dataDir, 'svcd.lock'), config.data_dir)
    const backupFile = openBackupFile(resolve(o.from), kek)
    file = backupFile
    target = openStorage({ ...config, key_encryption_key_file: config.key_encryption_key_file ?? kek.file }, dataDir)
    const report = restoreInstance(backupFile, { db: target.db, keys: target.keys(), display: target.where, afterCopy: target.afterCopy }, systemClock.date())
    const { info } = backupFile
    const rrdp = info.rrdp ? `the backup's session ${info.rrdp.session} (serial ${info.rrdp.serial}) is not carried over: ` : ''
    process.stdout.write(
      `restored ${backupFile.display} (taken ${info.created} of ${info.source} by svcd ${info.version}) into ${target.where}\n${rowLines(report)}  private keys: ${report.keys}\n` +
        `  RRDP: ${rrdp}a new session starts at serial 1 when svcd starts\n  manifest and CRL numbers: ${report.caKeys} CA keys continue after ${report.objectNumber}; re-issued when svcd starts\n`,
    )
    return 0
  } catch (e) {
    return (process.stderr.write(`svcd: restore: ${(e as Error).message}\n`), 1)
  } finally {
    file?.db.close()
    target?.db.close()
    lock?.release()
  }
}

/** The key-encryption key of --key-encryption-key-file or the config: required for a backup's keys. */
function readKek(o: BackupOptions, config: Config): KeyEncryptionKey {
  const file = o['key-encryption-key-file'] ?? config.key_encryption_key_file
  if (!file) throw new StartError('the private keys are sealed under the key-encryption key: set key_encryption_key_file or give --key-encryption-key-file (openssl rand -hex 32)')
  return KeyEncryptionKey.read(resolve(file))
}

function rowLines(r: MigrationReport): string {
  return Object.entries(r.rows).map(([table, n]) => `  ${table}: ${n}\n`).join('')
}

async function start(configPath: string | undefined): Promise<Running> {
  const config = loadConfig(configPath)
  const dataDir = resolve(config.data_dir)
  ensureDir(dataDir)
  const lock = acquireLock(join(dataDir, 'svcd.lock'), config.data_dir)
  try {
    const log = createLogger({ level: config.log_level, type: config.log_type, file: config.log_file, format: config.log_format })
    const token = adminToken(config, dataDir, log)
    const tls = config.https_mode === 'disable' ? undefined : tlsMaterial(config, dataDir, log)
    const svc = await compose({ config, dataDir, log, adminToken: token })
    let server: RunningServer
    try {
      // Start first, listen after: /health answers only once svcd is ready (testbed certified and published).
      await svc.start()
      const app = createApp({ services: svc.services, config, log, clock: svc.clock, addressSource })
      server = await listen(app, { ip: config.ip, port: config.port, tls, clock: svc.clock }).catch((e: NodeJS.ErrnoException) => {
        throw new StartError(`cannot listen on ${config.ip}:${config.port}: ${e.code === 'EADDRINUSE' ? 'the address is already in use' : e.message}`)
      })
    } catch (e) {
      await svc.shutdown()
      throw e
    }
    svc.startKeyPool()
    const watcher = config.https_mode === 'existing' ? watchTls(config, server, log) : undefined
    if (config.pid_file) writeFileSync(config.pid_file, `${process.pid}\n`)
    const scheme = tls ? 'https' : 'http'
    log.info('svcd started', { version: VERSION, listen: `${scheme}://${config.ip}:${server.port}/`, service_uri: config.service_uri, data_dir: config.data_dir })
    return { config, log, lock, svc, server, watcher }
  } catch (e) {
    lock.release()
    throw e
  }
}

async function shutdown(r: Running): Promise<void> {
  await r.server.close()
  await r.watcher?.close()
  await r.svc.shutdown()
  if (r.config.pid_file && existsSync(r.config.pid_file)) unlinkSync(r.config.pid_file)
  r.lock.release()
  r.log.info('svcd stopped')
  r.log.flush()
}

function ensureDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
  } catch (e) {
    throw new StartError(`cannot create the data directory '${dir}': ${(e as Error).message}`)
  }
}

/** The configured token, or the one in <data_dir>/admin_token, generated (mode 0600) at first start. */
function adminToken(config: Config, dataDir: string, log: Logger): string {
  if (config.admin_token) return config.admin_token
  const file = join(dataDir, 'admin_token')
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim()
    if (token.length < 16) throw new StartError(`the admin token file '${file}' is empty or shorter than 16 characters (as admin_token); remove it to generate a new one`)
    chmodSync(file, 0o600)
    log.info('using the admin token from the data directory', { file })
    return token
  }
  const token = randomBytes(32).toString('hex')
  writeFileSync(file, token + '\n', { mode: 0o600, flag: 'wx' })
  log.info('generated an admin token; use it as SVC_CLI_TOKEN', { file })
  return token
}

/** TLS key and certificate: generated once under <data_dir>/ssl/ (key 0600), or read from tls_cert/tls_key. */
function tlsMaterial(config: Config, dataDir: string, log: Logger): TlsMaterial {
  if (config.https_mode === 'existing') {
    const m = readTls(config.tls_cert!, config.tls_key!)
    if (typeof m === 'string') throw new StartError(m)
    return m
  }
  const dir = join(dataDir, 'ssl')
  const certFile = join(dir, 'cert.pem')
  const keyFile = join(dir, 'key.pem')
  if (existsSync(certFile) && existsSync(keyFile)) {
    const m = readTls(certFile, keyFile)
    if (typeof m !== 'string') return m
    log.warn('the generated TLS certificate cannot be used; generating a new one', { reason: m })
  }
  ensureDir(dir)
  const { certPem, keyPem } = generateTlsCertificate(systemClock.date())
  writeFileSync(keyFile, keyPem, { mode: 0o600 })
  chmodSync(keyFile, 0o600)
  writeFileSync(certFile, certPem)
  log.info('generated a self-signed TLS certificate', { cert: certFile })
  return { key: Buffer.from(keyPem), cert: Buffer.from(certPem) }
}

/** Read and check a certificate and key pair; a string says what is wrong. */
function readTls(certFile: string, keyFile: string): TlsMaterial | string {
  try {
    const cert = readFileSync(certFile)
    const key = readFileSync(keyFile)
    const x509 = new X509Certificate(cert)
    if (!x509.checkPrivateKey(createPrivateKey(key))) return `the TLS key '${keyFile}' does not match the certificate '${certFile}'`
    if (Date.parse(x509.validTo) < systemClock.now()) return `the TLS certificate '${certFile}' expired on ${x509.validTo}`
    return { cert, key }
  } catch (e) {
    return `cannot use TLS certificate '${certFile}' with key '${keyFile}': ${(e as Error).message}`
  }
}

function watchTls(config: Config, server: RunningServer, log: Logger): Watcher {
  const reload = () => {
    const m = readTls(config.tls_cert!, config.tls_key!)
    if (typeof m === 'string') return log.error('TLS certificate change ignored; the previous certificate stays in use', { reason: m })
    server.reloadTls(m)
    log.info('TLS certificate reloaded', { cert: config.tls_cert })
  }
  return watchFiles([config.tls_cert!, config.tls_key!], reload, (e) => log.error('TLS file watcher failed', { err: String(e) }), systemClock)
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (e) => {
    process.stderr.write(`svcd: fatal: ${(e as Error).stack ?? String(e)}\n`)
    process.exitCode = 1
  },
)

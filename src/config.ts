/**
 * svcd configuration: TOML (smol-toml), built-in defaults that are safe for production, `load(path)` and
 * `verify()`. A file needs to hold only what differs from the defaults; an unknown key or a wrong type stops
 * start-up with a message naming the key and the file. config/svcd.toml documents every option.
 */
import { readFileSync } from 'node:fs'
import { parse as parseToml } from 'smol-toml'
import { applyAuthTable, AUTH_TABLES, AUTH_TYPES, authDefaults, verifyAuth } from './config-auth.js'
import { alertsDefaults, parseAlerts, verifyAlerts } from './config-alerts.js'
import { parseSigners, signersDefaults, verifySigners } from './config-signers.js'
import { QUOTA_OPTIONS, quotaDefaults, SELF_SERVICE_OPTIONS, selfServiceDefaults } from './config-quotas.js'
import { parseStorageUri } from './util/storage-uri.js'
import { parseUri } from './util/uri.js'

import type { Config } from './config-types.js'

export type { HttpsMode, LogLevel, LogType, LogFormat, Config, LivenessConfig, RepositoryConfig, TestbedConfig, TimingConfig } from './config-types.js'

/** A start-up configuration problem; the message names the key and the file. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

type Kind = 'string' | 'integer' | 'boolean'
interface OptSpec {
  kind: Kind
  /** Allowed values for strings. */
  choices?: readonly string[]
  /** Extra check; returns a problem description or undefined. */
  check?: (v: never) => string | undefined
  min?: number
  max?: number
}

/** An integer option of at least `min` (and at most `max`). */
const integer = (min: number, max?: number): OptSpec => (max === undefined ? { kind: 'integer', min } : { kind: 'integer', min, max })
const BOOLEAN: OptSpec = { kind: 'boolean' }
const STRING: OptSpec = { kind: 'string' }

const HOUR = 3600
const WEEK = 7 * 24 * HOUR

const endsWithSlash = (v: string) => (v.endsWith('/') ? undefined : "must end with '/'")
const uriCheck = (scheme: string) => (v: string) => {
  try {
    const p = parseUri(v)
    if (p.scheme !== scheme) return `must be an ${scheme}:// URI`
  } catch (e) {
    return (e as Error).message
  }
  return endsWithSlash(v)
}

const TOP: Record<string, OptSpec> = {
  data_dir: { kind: 'string', check: endsWithSlash },
  storage_uri: { kind: 'string', check: (v: string) => storageProblem(v) },
  key_encryption_key_file: STRING,
  default_signer: STRING,
  one_off_signer: STRING,
  signer_probe_retry_seconds: integer(1, 86400),
  instance_id: { kind: 'string', check: (v: string) => (/^[A-Za-z0-9._:-]{1,100}$/.test(v) ? undefined : 'must be 1 to 100 letters, digits, and . _ : -') },
  cluster_lease_seconds: integer(2, 300),
  cluster_poll_ms: integer(50, 60000),
  ip: STRING,
  port: integer(1, 65535),
  https_mode: { kind: 'string', choices: ['generate', 'existing', 'disable'] },
  tls_cert: STRING,
  tls_key: STRING,
  service_uri: { kind: 'string', check: (v: string) => uriCheck('https')(v) ?? pathless(v) },
  admin_token: { kind: 'string', check: (v: string) => tokenProblem(v) },
  log_level: { kind: 'string', choices: ['off', 'error', 'warn', 'info', 'debug', 'trace'] },
  log_type: { kind: 'string', choices: ['stderr', 'file'] },
  log_format: { kind: 'string', choices: ['auto', 'json', 'text'] },
  log_file: STRING,
  pid_file: STRING,
  post_limit_api: integer(1024),
  post_limit_api_routes: integer(1024),
  post_limit_rfc6492: integer(1024),
  post_limit_rfc8181: integer(1024),
  key_pool_size: integer(1, 10000),
  bgp_riswhois_enabled: BOOLEAN,
  bgp_riswhois_v4_uri: { kind: 'string', check: (v: string) => dumpSource(v) },
  bgp_riswhois_v6_uri: { kind: 'string', check: (v: string) => dumpSource(v) },
  bgp_riswhois_refresh_seconds: integer(1),
  bgp_riswhois_min_peers: integer(0),
  bgp_riswhois_max_bytes: integer(1024 * 1024),
  metrics_public: BOOLEAN,
  change_control_four_eyes: BOOLEAN,
  metrics_hide_details: BOOLEAN,
  auth_type: { kind: 'string', choices: AUTH_TYPES },
  auth_session_idle_seconds: integer(60),
  auth_session_max_seconds: integer(60),
}

const SECTIONS: Record<string, Record<string, OptSpec>> = {
  repository: {
    enabled: BOOLEAN,
    // RFC 9674 §3: snapshot and delta URIs are on the notification's origin. All RRDP files are named under this one
    // URI (a plain https path: uriCheck refuses a query or fragment, which would not carry over to the file names).
    rrdp_base_uri: { kind: 'string', check: uriCheck('https') },
    rsync_base_uri: { kind: 'string', check: uriCheck('rsync') },
    rsync_daemon: { kind: 'string', choices: ['auto', 'off'] },
    rrdp_delta_files_min_nr: integer(0),
    rrdp_delta_files_min_seconds: integer(0),
    rrdp_delta_files_max_nr: integer(1),
    rrdp_delta_files_max_seconds: integer(1),
    rrdp_delta_interval_min_seconds: integer(0),
    rsync_tree_grace_seconds: integer(0),
    rsync_trees_max: integer(1, 10000),
    safety_min_objects: integer(0),
    safety_max_shrink_percent: integer(0, 100),
    output_lag_max_seconds: integer(1),
    ...QUOTA_OPTIONS,
  },
  liveness: {
    enabled: BOOLEAN,
    check_seconds: integer(1),
    after_publish_seconds: integer(0),
    rrdp_notification_uri: { kind: 'string', check: (v: string) => (v === '' ? undefined : uriCheck('https')(v)) },
    rsync: BOOLEAN,
    rsync_command: { kind: 'string', check: (v: string) => (v === '' ? 'must be the rsync client to run' : undefined) },
    fetch_timeout_seconds: integer(1),
    fetch_max_bytes: integer(1024 * 1024),
    expiry_margin_hours: integer(0),
    disagreement_seconds: integer(0),
    stall_seconds: integer(1),
    children: BOOLEAN,
    child_revoke_days: integer(1),
  },
  testbed: {
    enabled: BOOLEAN,
    self_service_per_minute: integer(1, 100000),
    ta_keyroll_old_key_seconds: integer(0),
    ...SELF_SERVICE_OPTIONS,
  },
  timing: {
    mft_next_update_seconds: integer(60),
    mft_reissue_seconds: integer(10),
    mft_reissue_jitter_seconds: integer(0),
    roa_valid_seconds: integer(120),
    roa_reissue_before_seconds: integer(60),
    child_cert_valid_seconds: integer(120),
    child_cert_reissue_before_seconds: integer(60),
    parent_refresh_seconds: integer(1),
    parent_refresh_jitter_seconds: integer(0),
    parent_sync_concurrency: integer(1, 1000),
    parent_request_timeout_seconds: integer(1),
    retry_seconds: integer(1),
    suspend_child_after_inactive_seconds: integer(0),
    roa_aggregate_threshold: integer(1),
    roa_deaggregate_threshold: integer(0),
  },
}

/** admin_token, from the file or SVC_ADMIN_TOKEN (issue 22 defect 10: `SVC_ADMIN_TOKEN=x` was accepted). */
const tokenProblem = (v: string) => (v.length >= 16 ? undefined : 'must be at least 16 characters (a long random string: openssl rand -hex 32)')
function storageProblem(v: string): string | undefined {
  try {
    parseStorageUri(v)
    return undefined
  } catch (e) {
    return (e as Error).message
  }
}

/** A RIS dump source: an http(s) or file URL, a path, or '' (none). */
function dumpSource(v: string): string | undefined {
  if (!v.includes('://')) return undefined
  return /^(https?|file):\/\/./i.test(v) ? undefined : 'must be an http://, https:// or file:// URL, or a file path'
}

function pathless(v: string): string | undefined {
  return parseUri(v).path === '/' ? undefined : 'must be https://<host>[:<port>]/ without a path'
}

/** The built-in defaults: safe for production (loopback only, no test trust anchor, no repository). */
export function defaults(): Config {
  return {
    data_dir: './data/',
    storage_uri: undefined,
    key_encryption_key_file: undefined,
    ...signersDefaults(),
    instance_id: undefined,
    cluster_lease_seconds: 10,
    cluster_poll_ms: 1000,
    ip: '127.0.0.1',
    port: 3000,
    https_mode: 'generate',
    tls_cert: undefined,
    tls_key: undefined,
    service_uri: '',
    admin_token: undefined,
    log_level: 'info',
    log_type: 'stderr',
    log_format: 'auto',
    log_file: './svcd.log',
    pid_file: undefined,
    post_limit_api: 256 * 1024,
    post_limit_api_routes: 32 * 1024 * 1024,
    post_limit_rfc6492: 1024 * 1024,
    post_limit_rfc8181: 32 * 1024 * 1024,
    key_pool_size: 32,
    bgp_riswhois_enabled: false,
    change_control_four_eyes: false,
    bgp_riswhois_v4_uri: 'https://www.ris.ripe.net/dumps/riswhoisdump.IPv4.gz',
    bgp_riswhois_v6_uri: 'https://www.ris.ripe.net/dumps/riswhoisdump.IPv6.gz',
    bgp_riswhois_refresh_seconds: 3600,
    bgp_riswhois_min_peers: 6,
    bgp_riswhois_max_bytes: 256 * 1024 * 1024,
    metrics_public: false,
    metrics_hide_details: false,
    ...authDefaults(),
    repository: {
      enabled: false,
      rrdp_base_uri: undefined,
      rsync_base_uri: undefined,
      rsync_daemon: 'off',
      rrdp_delta_files_min_nr: 5,
      rrdp_delta_files_min_seconds: 4 * HOUR,
      rrdp_delta_files_max_nr: 50,
      rrdp_delta_files_max_seconds: 8 * HOUR,
      rrdp_delta_interval_min_seconds: 0,
      rsync_tree_grace_seconds: 2 * HOUR,
      rsync_trees_max: 32,
      safety_min_objects: 0,
      safety_max_shrink_percent: 100,
      output_lag_max_seconds: 90,
      ...quotaDefaults(),
    },
    alerts: alertsDefaults(),
    liveness: {
      enabled: true,
      check_seconds: 600,
      after_publish_seconds: 45,
      rrdp_notification_uri: '',
      rsync: true,
      rsync_command: 'rsync',
      fetch_timeout_seconds: 60,
      fetch_max_bytes: 1024 * 1024 * 1024,
      expiry_margin_hours: 4,
      disagreement_seconds: 120,
      stall_seconds: 300,
      children: true,
      child_revoke_days: 90,
    },
    testbed: { enabled: false, self_service_per_minute: 20, ta_keyroll_old_key_seconds: 30 * 86400, ...selfServiceDefaults() },
    timing: {
      mft_next_update_seconds: 24 * HOUR,
      mft_reissue_seconds: 8 * HOUR,
      mft_reissue_jitter_seconds: 2 * HOUR,
      roa_valid_seconds: 52 * WEEK,
      roa_reissue_before_seconds: 4 * WEEK,
      child_cert_valid_seconds: 52 * WEEK,
      child_cert_reissue_before_seconds: 4 * WEEK,
      parent_refresh_seconds: HOUR,
      parent_refresh_jitter_seconds: 15 * 60,
      parent_sync_concurrency: 10,
      parent_request_timeout_seconds: 240,
      retry_seconds: 300,
      roa_aggregate_threshold: 100,
      roa_deaggregate_threshold: 90,
      suspend_child_after_inactive_seconds: 0,
    },
  }
}

/** Read a TOML file over the defaults (or just the defaults without a path), apply the environment, verify. */
export function loadConfig(path: string | undefined, env: NodeJS.ProcessEnv = process.env): Config {
  const config = defaults()
  if (path !== undefined) {
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch (e) {
      throw new ConfigError(`cannot read config file '${path}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
    }
    applyToml(config, text, path)
  }
  if (env.SVC_ADMIN_TOKEN && tokenProblem(env.SVC_ADMIN_TOKEN)) throw new ConfigError(`environment variable SVC_ADMIN_TOKEN ${tokenProblem('')}`)
  if (env.SVC_ADMIN_TOKEN) config.admin_token = env.SVC_ADMIN_TOKEN
  if (env.SVC_DATA_DIR) config.data_dir = env.SVC_DATA_DIR
  if (env.SVC_STORAGE_URI) config.storage_uri = env.SVC_STORAGE_URI
  verifyConfig(config, path ?? '<built-in defaults>')
  return config
}

/** Merge TOML text into a config, checking every key and type against the schema. */
export function applyToml(config: Config, text: string, file: string): void {
  let doc: Record<string, unknown>
  try {
    doc = parseToml(text) as Record<string, unknown>
  } catch (e) {
    throw new ConfigError(`${file}: invalid TOML: ${(e as Error).message.split('\n')[0]}`)
  }
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'alerts') {
      parseAlerts(value, config.alerts, (k, what) => new ConfigError(`${file}: key '${k}' ${what}`))
    } else if (key === 'signers') {
      config.signers = parseSigners(value, (k, what) => new ConfigError(`${file}: key '${k}' ${what}`))
    } else if ((AUTH_TABLES as readonly string[]).includes(key)) {
      applyAuthTable(config, key as (typeof AUTH_TABLES)[number], value, (k, what) => new ConfigError(`${file}: key '${k}' ${what}`))
    } else if (Object.hasOwn(SECTIONS, key)) { // own keys only: [__proto__] or [constructor] must not reach Object.prototype
      if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) {
        throw new ConfigError(`${file}: '${key}' must be a table ([${key}])`)
      }
      const target = config[key as keyof Config] as unknown as Record<string, unknown>
      for (const [sub, v] of Object.entries(value as Record<string, unknown>)) {
        target[sub] = checkOption(SECTIONS[key], sub, v, `${key}.${sub}`, file)
      }
    } else {
      ;(config as unknown as Record<string, unknown>)[key] = checkOption(TOP, key, value, key, file)
    }
  }
}

function checkOption(specs: Record<string, OptSpec>, key: string, value: unknown, name: string, file: string): unknown {
  const spec = Object.hasOwn(specs, key) ? specs[key] : undefined
  if (!spec) throw new ConfigError(`${file}: unknown key '${name}'`)
  const bad = (what: string) => new ConfigError(`${file}: key '${name}' ${what}`)
  if (spec.kind === 'integer') {
    if (typeof value !== 'number' || !Number.isInteger(value)) throw bad(`must be an integer, not ${describe(value)}`)
    if (spec.min !== undefined && value < spec.min) throw bad(`must be at least ${spec.min}`)
    if (spec.max !== undefined && value > spec.max) throw bad(`must be at most ${spec.max}`)
  } else if (spec.kind === 'boolean') {
    if (typeof value !== 'boolean') throw bad(`must be true or false, not ${describe(value)}`)
  } else {
    if (typeof value !== 'string') throw bad(`must be a string, not ${describe(value)}`)
    if (spec.choices && !spec.choices.includes(value)) throw bad(`must be one of ${spec.choices.map((c) => `"${c}"`).join(', ')}, not "${value}"`)
  }
  const problem = spec.check?.(value as never)
  if (problem) throw bad(problem)
  return value
}

function describe(v: unknown): string {
  if (v instanceof Date) return 'a date'
  if (Array.isArray(v)) return 'an array'
  return typeof v === 'object' ? 'a table' : `${typeof v} ${JSON.stringify(v)}`
}

/** Cross-field checks and derived defaults (service_uri from the port). */
export function verifyConfig(c: Config, file: string): void {
  const fail = (key: string, what: string): never => {
    throw new ConfigError(`${file}: key '${key}' ${what}`)
  }
  if (!c.data_dir.endsWith('/')) fail('data_dir', "must end with '/'")
  const storage = c.storage_uri === undefined ? undefined : storageProblem(c.storage_uri)
  if (storage) fail('storage_uri', storage)
  if (!c.key_encryption_key_file && c.storage_uri && parseStorageUri(c.storage_uri).kind === 'postgres') {
    fail('key_encryption_key_file', 'must be set when storage_uri is a PostgreSQL database (private keys are kept in it, sealed under this key)')
  }
  if (c.service_uri === '') c.service_uri = `https://localhost:${c.port}/`
  if (c.https_mode === 'existing' && (!c.tls_cert || !c.tls_key)) fail('https_mode', 'is "existing", so tls_cert and tls_key must be set')
  if (c.log_type === 'file' && !c.log_file) fail('log_file', 'must be set when log_type is "file"')
  if (c.bgp_riswhois_enabled && !c.bgp_riswhois_v4_uri && !c.bgp_riswhois_v6_uri) fail('bgp_riswhois_enabled', 'needs bgp_riswhois_v4_uri or bgp_riswhois_v6_uri')
  const r = c.repository
  if (r.enabled) {
    if (!r.rrdp_base_uri) fail('repository.rrdp_base_uri', 'must be set when the repository is enabled')
    if (!r.rsync_base_uri) fail('repository.rsync_base_uri', 'must be set when the repository is enabled')
  }
  if (r.rrdp_delta_files_max_seconds < r.rrdp_delta_files_min_seconds) fail('repository.rrdp_delta_files_max_seconds', 'must be at least repository.rrdp_delta_files_min_seconds')
  if (c.testbed.enabled && !r.enabled) fail('testbed.enabled', 'needs the embedded repository ([repository] enabled = true)')
  const t = c.timing
  if (t.mft_reissue_seconds >= t.mft_next_update_seconds) fail('timing.mft_reissue_seconds', 'must be less than timing.mft_next_update_seconds')
  if (t.roa_reissue_before_seconds >= t.roa_valid_seconds) fail('timing.roa_reissue_before_seconds', 'must be less than timing.roa_valid_seconds')
  if (t.child_cert_reissue_before_seconds >= t.child_cert_valid_seconds) {
    fail('timing.child_cert_reissue_before_seconds', 'must be less than timing.child_cert_valid_seconds')
  }
  if (t.roa_deaggregate_threshold >= t.roa_aggregate_threshold) fail('timing.roa_deaggregate_threshold', 'must be less than timing.roa_aggregate_threshold')
  verifyAuth(c, fail)
  verifySigners(c, fail)
  verifyAlerts(c.alerts, fail)
  const i = c.signers.findIndex((s) => s.keys_path !== undefined)
  if (i >= 0 && c.storage_uri && parseStorageUri(c.storage_uri).kind === 'postgres') {
    fail(`signers[${i}].keys_path`, 'cannot be used with PostgreSQL storage: software keys are kept in the database, sealed under key_encryption_key_file')
  }
}

/** The names of every option, "section.key" for sections: used by the reference-config test. */
export function optionNames(): string[] {
  const names = Object.keys(TOP)
  for (const [s, opts] of Object.entries(SECTIONS)) for (const k of Object.keys(opts)) names.push(`${s}.${k}`)
  return names
}

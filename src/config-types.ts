/**
 * The shape of svcd's configuration (config.ts reads, checks and defaults it): every option under its TOML name, as
 * config/svcd.toml documents it. Types only, so that the layers that carry a Config need not import the loader.
 */
import type { AuthConfig } from './config-auth.js'
import type { QuotaConfig, SelfServiceConfig } from './config-quotas.js'
import type { AlertsConfig } from './config-alerts.js'
import type { SignersConfig } from './config-signers.js'

export type HttpsMode = 'generate' | 'existing' | 'disable'
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
export type LogType = 'stderr' | 'file'
/** How log lines are written: 'auto' is text on a terminal, JSON otherwise (log.ts logFormat). */
export type LogFormat = 'auto' | 'json' | 'text'

/** Every option, with the TOML names (the config file is a wire format; style.md §6). */
export interface Config extends AuthConfig, SignersConfig {
  data_dir: string
  /** Where the state is kept (util/storage-uri.ts); undefined: SQLite in the data directory. */
  storage_uri: string | undefined
  /** With PostgreSQL: the file holding the key that seals private keys in the database (store/kek.ts). */
  key_encryption_key_file: string | undefined
  /** Several instances on one PostgreSQL database: this instance's name (default <host>:<port>), the leader's lease, and how often the others copy its RRDP serials. */
  instance_id: string | undefined
  cluster_lease_seconds: number
  cluster_poll_ms: number
  ip: string
  port: number
  https_mode: HttpsMode
  tls_cert: string | undefined
  tls_key: string | undefined
  service_uri: string
  admin_token: string | undefined
  log_level: LogLevel
  log_type: LogType
  log_format: LogFormat
  log_file: string
  pid_file: string | undefined
  post_limit_api: number
  /** The ROA delta routes (POST …/routes, …/routes/analysis/dryrun): 50,000 and more authorisations in one delta. */
  post_limit_api_routes: number
  post_limit_rfc6492: number
  post_limit_rfc8181: number
  key_pool_size: number
  /** BGP announcements for the ROA analysis: RIPE RIS whois dumps (krill-reference.md §2 `bgp_riswhois_*`). */
  bgp_riswhois_enabled: boolean
  /** http(s):// or file:// URLs, or file paths; gzip or plain; '' leaves the family out. */
  bgp_riswhois_v4_uri: string
  bgp_riswhois_v6_uri: string
  bgp_riswhois_refresh_seconds: number
  /** Route origins seen by fewer RIS peers are left out (Krill: 6). */
  bgp_riswhois_min_peers: number
  /** Bytes of one RIS dump after decompression, at most (a gzip bomb or a runaway source is cut off there). */
  bgp_riswhois_max_bytes: number
  /** Every CA's ROA/ASPA changes need a second user's approval (four-eyes, design.md §12); a CA can also turn it on alone. */
  change_control_four_eyes: boolean
  /** GET /metrics without the token (Krill serves it unauthenticated; svcd asks for the token by default). */
  metrics_public: boolean
  /** Leave out every per-CA and per-publisher series of /metrics (Krill's metrics_hide_* options, #654). */
  metrics_hide_details: boolean
  repository: RepositoryConfig
  liveness: LivenessConfig
  /** [alerts] and [[alerts.webhooks]] (config-alerts.ts). */
  alerts: AlertsConfig
  testbed: TestbedConfig
  timing: TimingConfig
}

export interface RepositoryConfig extends QuotaConfig {
  enabled: boolean
  rrdp_base_uri: string | undefined
  rsync_base_uri: string | undefined
  rsync_daemon: 'auto' | 'off'
  rrdp_delta_files_min_nr: number
  rrdp_delta_files_min_seconds: number
  rrdp_delta_files_max_nr: number
  rrdp_delta_files_max_seconds: number
  rrdp_delta_interval_min_seconds: number
  rsync_tree_grace_seconds: number
  rsync_trees_max: number
  safety_min_objects: number
  safety_max_shrink_percent: number
  /** An acknowledged change missing from RRDP or the rsync tree after this long is a problem (GET /ready, issues). */
  output_lag_max_seconds: number
}

/**
 * [liveness] (design.md §11, issue 26): svcd fetches what it published through the public URIs, as relying parties
 * do, and checks it; alarms follow from what it finds.
 */
export interface LivenessConfig {
  enabled: boolean
  /** Every CA's publication points are fetched and checked at least this often. */
  check_seconds: number
  /** A check follows each publication this long after it (rsync trails RRDP by design: the pacing's 30 s and the build). */
  after_publish_seconds: number
  /** Where relying parties fetch the embedded repository's notification (a CDN in front); '': rrdp_base_uri + notification.xml. */
  rrdp_notification_uri: string
  /** Fetch over rsync too (Debian's rsync client, `rsync_command`). */
  rsync: boolean
  rsync_command: string
  fetch_timeout_seconds: number
  /** Bytes one fetch of one repository may read, at most (per transport). */
  fetch_max_bytes: number
  /** A manifest or CRL relying parties see within this many hours of its nextUpdate raises manifest-expiring. */
  expiry_margin_hours: number
  /** RRDP and rsync may serve different bytes this long (rsync trails RRDP) before it is a finding. */
  disagreement_seconds: number
  /** Accepted changes not on RRDP after this long, or a scheduler, pacer or leadership without progress: a stall. */
  stall_seconds: number
  /** Check the delegated children that publish outside this svcd (read from the SIA of the certificates issued to them). */
  children: boolean
  /** The registry policy the child report assumes: revoked after this many days non-functional (RIPE NCC 2025-02: 90; APNIC prop-166: 60). */
  child_revoke_days: number
}

export interface TestbedConfig extends SelfServiceConfig {
  enabled: boolean
  /** Testbed self-service (/testbed/…, unauthenticated): requests a minute per source address, also the burst. */
  self_service_per_minute: number
  /** TA key roll (RFC 9691): how long the previous key stays published after `svcc ta keyroll activate`. */
  ta_keyroll_old_key_seconds: number
}

export interface TimingConfig {
  mft_next_update_seconds: number
  mft_reissue_seconds: number
  /** Manifests re-signed up to this much earlier, spread per CA key (at most a quarter of mft_reissue_seconds). */
  mft_reissue_jitter_seconds: number
  roa_valid_seconds: number
  roa_reissue_before_seconds: number
  child_cert_valid_seconds: number
  child_cert_reissue_before_seconds: number
  parent_refresh_seconds: number
  parent_refresh_jitter_seconds: number
  /** Parent syncs at once at most, over all CAs (issue 28 §4). */
  parent_sync_concurrency: number
  /** An RFC 6492 request to a parent fails after this long without an answer. */
  parent_request_timeout_seconds: number
  retry_seconds: number
  roa_aggregate_threshold: number
  roa_deaggregate_threshold: number
  /** Suspend a child that has not contacted its parent for this long (0: never; Krill's suspend_child_after_inactive_hours). */
  suspend_child_after_inactive_seconds: number
}

/**
 * The options of config.ts's [repository] and [testbed] tables that bound what publishers and the unauthenticated
 * testbed self-service may use (issue 22): publication quotas (pubd/quota.ts), the self-service's registration caps
 * and its request budget over all addresses. Kept here so config.ts stays one screenful per concern; config/svcd.toml
 * documents each option and why its default is what it is.
 */

const MIB = 1024 * 1024
const count = { kind: 'integer' as const, min: 1 }
const bytes = { kind: 'integer' as const, min: 1024 }

/** [repository]: what one publisher may hold, the whole server, and the self-service publishers (per one and together). */
export interface QuotaConfig {
  quota_objects: number
  quota_bytes: number
  quota_object_bytes: number
  quota_total_objects: number
  quota_total_bytes: number
  self_service_quota_objects: number
  self_service_quota_bytes: number
  self_service_quota_object_bytes: number
  self_service_quota_total_objects: number
  self_service_quota_total_bytes: number
}

export const QUOTA_OPTIONS = {
  quota_objects: count,
  quota_bytes: bytes,
  quota_object_bytes: bytes,
  quota_total_objects: count,
  quota_total_bytes: bytes,
  self_service_quota_objects: count,
  self_service_quota_bytes: bytes,
  self_service_quota_object_bytes: bytes,
  self_service_quota_total_objects: count,
  self_service_quota_total_bytes: bytes,
} satisfies Record<keyof QuotaConfig, unknown>

/**
 * A real CA fits the publisher defaults with room: a CA with thousands of ROAs or children holds a few MB (a
 * certificate or ROA is 1.5–2.5 KB; a manifest listing 10,000 files about 0.7 MB, under the 1 MiB largest object).
 * A self-service publisher (a test CA) gets a hundredth; all of them together 16 MiB, so that anonymous clients can
 * grow the data dir by a bounded amount only. The data dir holds object bytes several times over (the database, the
 * RRDP snapshot and deltas with gzip copies, superseded snapshots until the next serial's cleanup, the rsync trees):
 * 16 MiB published in 256 KiB objects grew it by 140-190 MB at the peak.
 */
export function quotaDefaults(): QuotaConfig {
  return {
    quota_objects: 10_000,
    quota_bytes: 64 * MIB,
    quota_object_bytes: MIB,
    quota_total_objects: 1_000_000,
    quota_total_bytes: 4096 * MIB,
    self_service_quota_objects: 100,
    self_service_quota_bytes: MIB,
    self_service_quota_object_bytes: 256 * 1024,
    self_service_quota_total_objects: 2_000,
    self_service_quota_total_bytes: 16 * MIB,
  }
}

/** [testbed]: self-service requests a minute from all addresses together; registrations it keeps, each kind. */
export interface SelfServiceConfig {
  self_service_total_per_minute: number
  self_service_children_max: number
  self_service_publishers_max: number
}

export const SELF_SERVICE_OPTIONS = {
  self_service_total_per_minute: { kind: 'integer' as const, min: 1, max: 1_000_000 },
  self_service_children_max: { kind: 'integer' as const, min: 0 },
  self_service_publishers_max: { kind: 'integer' as const, min: 0 },
} satisfies Record<keyof SelfServiceConfig, unknown>

export function selfServiceDefaults(): SelfServiceConfig {
  return { self_service_total_per_minute: 200, self_service_children_max: 100, self_service_publishers_max: 100 }
}

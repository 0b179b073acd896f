/**
 * The liveness gauges of /metrics (design.md §11, issue 26 §2), read from the relying-party view at scrape time
 * (LivenessView.all(), passed by the composition root) and the count of checks run. Names are fixed for the shipped
 * Prometheus rules (contrib/prometheus/svc.rules.yml). With `hideDetails` no series carries a `ca` or `child` label:
 * only svc_cas_nonfunctional, the check counts and the time of the last check.
 */
import { Counter, Gauge, type Registry } from 'prom-client'
import type { CaLiveness } from '../../liveness/model.js'

export interface LivenessMetricsDeps {
  /** Each CA's liveness as of its last check. */
  liveness: () => readonly CaLiveness[]
  /** The checks run since start, and when the last one ended (app/liveness/liveness-service.ts stats()). */
  checks?: () => LivenessChecks
  hideDetails: boolean
}

/** What the liveness service counts of its checks. */
export interface LivenessChecks {
  checks: { ok: number; failed: number }
  lastCheckAt?: number
}

const seconds = (ms: number) => ms / 1000

/** The earliest defined value of `pick` among the CA's points. */
function earliest(c: CaLiveness, pick: (p: CaLiveness['points'][number]) => number | undefined): number | undefined {
  let out: number | undefined
  for (const p of c.points) {
    const v = pick(p)
    if (v !== undefined && (out === undefined || v < out)) out = v
  }
  return out
}

/** Registers the liveness gauges and the checks counter on `registry`. */
export function livenessMetrics(registry: Registry, d: LivenessMetricsDeps): void {
  const registers = [registry]
  let rows: readonly CaLiveness[] = []
  // Read once per scrape: the first gauge collected reads the view, the others use what it read.
  const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge<string>, cas: readonly CaLiveness[]) => void, first = false) =>
    new Gauge({
      name, help, labelNames, registers,
      collect() {
        this.reset()
        if (first) {
          try {
            rows = d.liveness()
          } catch {
            rows = []
          }
        }
        fill(this, rows)
      },
    })
  const checked = (cas: readonly CaLiveness[]) => cas.filter((c) => c.checkedAt !== undefined)
  gauge('svc_cas_nonfunctional', 'CAs whose last relying-party check found them not functional (no current, valid manifest and CRL reachable)', [], (g, cas) => g.set(checked(cas).filter((c) => !c.functional).length), true)
  const stats = (): LivenessChecks | undefined => {
    try {
      return d.checks?.()
    } catch {
      return undefined
    }
  }
  // The service's time of its last check (a follower's: none), else the latest CA checked (what the leader stored).
  gauge('svc_liveness_last_check_timestamp_seconds', 'unix timestamp of the end of the last relying-party check', [], (g, cas) => {
    const at = [...checked(cas).map((c) => c.checkedAt!), ...[stats()?.lastCheckAt].filter((v): v is number => v !== undefined)]
    if (at.length) g.set(seconds(Math.max(...at)))
  })
  new Counter({
    name: 'svc_liveness_checks_total', help: 'relying-party checks of the repository run by this svcd since it started: ok (ran to the end, whatever it found) or failed', labelNames: ['outcome'], registers,
    collect() {
      this.reset()
      const s = stats()
      for (const outcome of ['ok', 'failed'] as const) this.inc({ outcome }, s?.checks[outcome] ?? 0)
    },
  })
  if (!d.hideDetails) perCa(gauge)
}

type GaugeOf = (name: string, help: string, labelNames: string[], fill: (g: Gauge<string>, cas: readonly CaLiveness[]) => void) => void

function perCa(gauge: GaugeOf): void {
  const each = (name: string, help: string, value: (c: CaLiveness) => number | undefined) =>
    gauge(name, help, ['ca'], (g, cas) => {
      for (const c of cas) {
        if (c.checkedAt === undefined) continue
        const v = value(c)
        if (v !== undefined) g.set({ ca: c.ca }, v)
      }
    })
  each('svc_ca_functional', 'whether relying parties find a current, valid manifest and CRL of the CA (1) or not (0), after its first check', (c) => (c.functional ? 1 : 0))
  const at = (pick: (p: CaLiveness['points'][number]) => number | undefined) => (c: CaLiveness) => {
    const v = earliest(c, pick)
    return v === undefined ? undefined : seconds(v)
  }
  each('svc_ca_manifest_expiry_timestamp_seconds', 'unix timestamp of the earliest nextUpdate among the manifests of the CA relying parties see', at((p) => p.manifestExpires))
  each('svc_ca_crl_expiry_timestamp_seconds', 'unix timestamp of the earliest nextUpdate among the CRLs of the CA relying parties see', at((p) => p.crlExpires))
  each('svc_ca_certificate_expiry_timestamp_seconds', 'unix timestamp of the earliest notAfter among the certificates of the CA', at((p) => p.certExpires))
  each('svc_ca_rsync_lag_seconds', 'how long rsync trailed RRDP in serving the current manifest of the CA, as last measured', (c) => {
    const lags = c.points.map((p) => p.rsyncLagMs).filter((v): v is number => v !== undefined)
    return lags.length ? seconds(Math.max(...lags)) : undefined
  })
  gauge('svc_ca_last_good_fetch_timestamp_seconds', 'unix timestamp of the last fetch of the CA repository that reached it, by transport', ['ca', 'transport'], (g, cas) => {
    for (const c of cas) for (const transport of ['rrdp', 'rsync'] as const) {
      const v = c.lastGoodFetch[transport]
      if (v !== undefined) g.set({ ca: c.ca, transport }, seconds(v))
    }
  })
  gauge('svc_ca_repository_findings', 'problems the last relying-party check found in the CA publication points, by kind (kinds without any are left out)', ['ca', 'kind'], (g, cas) => {
    for (const c of cas) {
      const counts = new Map<string, number>()
      for (const p of c.points) for (const f of p.findings) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1)
      for (const [kind, n] of counts) g.set({ ca: c.ca, kind }, n)
    }
  })
  gauge('svc_child_functional', 'whether a delegated child that publishes elsewhere is functional (1) or not (0)', ['ca', 'child'], (g, cas) => {
    for (const c of cas) for (const ch of c.children) g.set({ ca: c.ca, child: ch.child }, ch.point.functional ? 1 : 0)
  })
  gauge('svc_child_revoke_timestamp_seconds', 'unix timestamp at which a registry policy would revoke the non-functional delegated child ([liveness] child_revoke_days)', ['ca', 'child'], (g, cas) => {
    for (const c of cas) for (const ch of c.children) if (ch.revokeAt !== undefined) g.set({ ca: c.ca, child: ch.child }, seconds(ch.revokeAt))
  })
}

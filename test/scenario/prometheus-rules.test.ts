/**
 * The shipped Prometheus rules (contrib/prometheus/svc.rules.yml, issue 26 §3 and acceptance 4): `promtool check rules`
 * passes; `promtool test rules` runs their unit test (svc.rules.test.yml: series that make each rule fire and series
 * that must not); every rule has a `for:`, a severity and a summary and description; and every metric a rule reads is
 * one a real svcd exposes on /metrics, or one of the names reserved for the parts of issue 26 (common.md) — a rule
 * over a misspelt metric would never fire.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { repoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { parsePrometheusText } from '../helpers/prometheus-text.js'

const DIR = join(import.meta.dirname, '..', '..', 'contrib', 'prometheus')
const RULES = join(DIR, 'svc.rules.yml')
const PROMTOOL = '/usr/bin/promtool'

/** The metric names of issue 26 fixed before their parts were merged (common.md "Shared names"). */
const RESERVED = [
  'svc_ca_functional', 'svc_ca_manifest_expiry_timestamp_seconds', 'svc_ca_crl_expiry_timestamp_seconds', 'svc_ca_certificate_expiry_timestamp_seconds',
  'svc_ca_last_good_fetch_timestamp_seconds', 'svc_ca_repository_findings', 'svc_ca_rsync_lag_seconds', 'svc_child_functional', 'svc_child_revoke_timestamp_seconds',
  'svc_liveness_checks_total', 'svc_liveness_last_check_timestamp_seconds', 'svc_alarm_active', 'svc_alert_deliveries_total', 'svc_quarantined', 'svc_stalled',
]
/** Prometheus's own series: the scrape's `up`. */
const PROMETHEUS = ['up']
/** PromQL words that are not metric names. */
const PROMQL = new Set(['and', 'or', 'unless', 'on', 'ignoring', 'by', 'without', 'group_left', 'group_right', 'bool', 'time', 'increase', 'rate', 'sum', 'max', 'min', 'count', 'absent', 'offset'])

interface Rule {
  alert: string
  expr: string
  block: string
}

/** The rules of the file, each with its expr and its whole text (the file is written one key a line). */
function rules(): Rule[] {
  const text = readFileSync(RULES, 'utf8')
  return text.split(/\n(?=\s*- alert: )/).slice(1).map((block) => ({
    alert: /- alert: (\S+)/.exec(block)![1]!,
    expr: /\n\s*expr: (.+)/.exec(block)![1]!,
    block: block.split(/\n\s*- name: /)[0]!,
  }))
}

/** The metric names an expression reads: its identifiers without label matchers, numbers, ranges and PromQL words. */
function metricNames(expr: string): string[] {
  const bare = expr.replace(/\{[^}]*\}/g, ' ').replace(/\[[^\]]*\]/g, ' ').replace(/"[^"]*"/g, ' ').replace(/\bon\s*\([^)]*\)/g, ' ')
  return [...new Set((bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []).filter((w) => !PROMQL.has(w)))]
}

t.test('promtool check rules and promtool test rules pass', async (t) => {
  const check = spawnSync(PROMTOOL, ['check', 'rules', RULES], { encoding: 'utf8' })
  t.equal(check.status, 0, `promtool check rules: ${check.stdout}${check.stderr}`)
  t.match(check.stdout, new RegExp(`SUCCESS: ${rules().length} rules found`))
  const test = spawnSync(PROMTOOL, ['test', 'rules', 'svc.rules.test.yml'], { encoding: 'utf8', cwd: DIR })
  t.equal(test.status, 0, `promtool test rules: ${test.stdout}${test.stderr}`)
  t.match(test.stdout, /SUCCESS/)
  // Every rule is tested: each alert name is evaluated in the unit test.
  const tested = readFileSync(join(DIR, 'svc.rules.test.yml'), 'utf8')
  for (const r of rules()) t.match(tested, new RegExp(`alertname: ${r.alert}\\n`), `${r.alert} has a unit test`)
})

t.test('every rule waits (for:), has a severity, a summary and a description', async (t) => {
  const all = rules()
  t.ok(all.length >= 15, `${all.length} rules`)
  for (const r of all) {
    t.match(r.block, /\n\s*for: \d+[smh]\n/, `${r.alert}: for`)
    t.match(r.block, /\n\s*severity: (critical|warning)\n/, `${r.alert}: severity`)
    t.match(r.block, /\n\s*summary: "[^"]+"/, `${r.alert}: summary`)
    t.match(r.block, /\n\s*description: "[^"]+"/, `${r.alert}: description`)
  }
  t.ok(all.some((r) => r.expr === 'svc_alarm_active == 1'), "svcd's own alarms are forwarded")
  t.same(metricNames('(svc_child_revoke_timestamp_seconds - time() < 30 * 86400) and on (ca, child) svc_child_functional == 0'), ['svc_child_revoke_timestamp_seconds', 'svc_child_functional'])
  t.same(metricNames('increase(svc_alert_deliveries_total{outcome="gave-up"}[1h]) > 0'), ['svc_alert_deliveries_total'])
})

t.test('every metric the rules read is exposed by a real svcd or reserved for issue 26', async (t) => {
  const d = await repoDaemon(t, { logLevel: 'info' })
  const r = await httpsRequest(`${d.url}metrics`, { headers: { Authorization: `Bearer ${d.token}` } })
  t.equal(r.status, 200)
  const exposed = new Set([...parsePrometheusText(r.body).keys()])
  t.ok(exposed.has('svc_alarm_active') && exposed.has('svc_alert_deliveries_total'), "the alert service's metrics are declared")
  const known = new Set([...exposed, ...RESERVED, ...PROMETHEUS])
  const used = new Set(rules().flatMap((x) => metricNames(x.expr)))
  t.ok(used.size >= 15, `${used.size} metrics used`)
  for (const name of used) t.ok(known.has(name), `${name} is exposed (${exposed.has(name) ? 'now' : 'reserved'})`)
})

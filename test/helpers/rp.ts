/**
 * Relying parties against a running svcd: ../shared/tools/rp-validate runs rpki-client, FORT and OctoRPKI one-shot
 * over RRDP only or rsync only, with the daemon's TLS certificate as trust anchor, and compares VRPs exactly.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SHARED } from './paths.js'

const RP_VALIDATE = join(SHARED, 'tools', 'rp-validate')

/** Why relying-party tests cannot run here, or false. */
export function rpMissing(): string | false {
  if (!existsSync(RP_VALIDATE)) return `needs ${RP_VALIDATE} (../shared/tools)`
  for (const bin of ['/usr/sbin/rpki-client', '/usr/bin/fort', '/usr/bin/octorpki', '/usr/bin/rsync']) if (!existsSync(bin)) return `needs ${bin} (make test installs it)`
  return false
}

export interface RpResult {
  code: number | null
  summary: string
  /** RESULT/PROBLEM/DIFF/OVERALL lines, for test diagnostics. */
  lines: string
  /** Each validator's log (rp-validate's `<v>.log`: the command line, then everything the validator printed). */
  logs: Record<string, string>
  /** With `routerKeys`: the BGPsec router keys rpki-client (`bgpsec_keys`) and FORT (--output.bgpsec) report, as `AS<asn>,<SKI hex>` lines, sorted. */
  routerKeys?: { 'rpki-client'?: string[]; fort?: string[] }
  /** rpki-client's count of Trust Anchor Key objects (RFC 9691) it accepted: `taks` in its JSON metadata. */
  taks?: number
}

/**
 * The validator versions the e2e tests are written for (design.md §5: Debian bookworm-backports, installed by
 * `make test`). An older rpki-client or FORT is laxer (no RFC 9589, 9829 or 9981 checks), so a pass would prove less:
 * validate() then fails instead of passing.
 */
export const MIN_VERSIONS: Record<string, string> = { 'rpki-client': '9.7', fort: '1.6.6' }

/** The validators (of MIN_VERSIONS) whose RESULT line in `summary` shows an older version, as "name version" texts. */
export function tooOld(summary: string): string[] {
  const out: string[] = []
  for (const [v, min] of Object.entries(MIN_VERSIONS)) {
    const m = new RegExp(`^RESULT ${v} version=(\\S+)`, 'm').exec(summary)
    if (m && compareVersions(m[1]!, min) < 0) out.push(`${v} ${m[1]} (need ${min} or newer: make test installs it from bookworm-backports)`)
  }
  return out
}

/** Compare dotted numeric versions ("9.7" < "9.10"); non-numeric parts compare as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+~-]/).map((x) => Number.parseInt(x, 10) || 0)
  const pb = b.split(/[.+~-]/).map((x) => Number.parseInt(x, 10) || 0)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0)
  return 0
}

/**
 * Validate the repository behind `talUrl` with all three validators (or `validators`) over one transport, expecting
 * exactly `vrps` (`AS<n>,<prefix>,<maxlen>` lines), with `aspas` exactly those ASPAs (`AS<customer>,AS<p1> AS<p2>`; rpki-client
 * only, rp-validate --expect-aspa), and no warnings (--strict). `env` is added to the validators'
 * environment (a shifted clock, say). `verbose` runs rpki-client at -vv (and FORT/OctoRPKI at debug level): their
 * progress lines then count as problems for --strict, so the caller judges `logs` itself. `rpkiClientArgs` are extra
 * rpki-client arguments (word-split), e.g. `-P <seconds>` to validate at another time. `cacheDir` keeps each validator's
 * cache in `<cacheDir>/<validator>` (rp-validate --cache-dir), e.g. for a later `rpki-client -f`.
 */
export async function validate(opts: { talUrl: string; tlsCert: string; vrps: string[]; aspas?: string[]; transport: 'rrdp' | 'rsync'; validators?: string[]; env?: Record<string, string>; verbose?: boolean; rpkiClientArgs?: string; routerKeys?: boolean; cacheDir?: string }): Promise<RpResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rp-'))
  try {
    const tal = await (await fetchInsecure(opts.talUrl)).text()
    writeFileSync(join(dir, 'svc-ta.tal'), tal)
    writeFileSync(join(dir, 'expect.csv'), opts.vrps.join('\n') + '\n')
    if (opts.aspas) writeFileSync(join(dir, 'expect-aspa.csv'), opts.aspas.length ? opts.aspas.join('\n') + '\n' : '')
    const r = spawnSync(RP_VALIDATE, ['--tal', join(dir, 'svc-ta.tal'), '--ca-cert', opts.tlsCert, '--out', join(dir, 'out'), '--expect', join(dir, 'expect.csv'), '--transport', opts.transport, '--strict', ...(opts.aspas ? ['--expect-aspa', join(dir, 'expect-aspa.csv')] : []), '--timeout', '90', ...(opts.validators ? ['--validators', opts.validators.join(',')] : []), ...(opts.verbose ? ['--verbose'] : []), ...(opts.rpkiClientArgs ? ['--rpki-client-args', opts.rpkiClientArgs] : []), ...(opts.routerKeys ? ['--fort-args', `--output.bgpsec=${join(dir, 'fort-bgpsec.csv')}`] : []), ...(opts.cacheDir ? ['--cache-dir', opts.cacheDir] : [])], { encoding: 'utf8', timeout: 400_000, env: { ...process.env, ...opts.env } })
    const summary = existsSync(join(dir, 'out', 'summary.txt')) ? readFileSync(join(dir, 'out', 'summary.txt'), 'utf8') : r.stdout + r.stderr
    const lines = summary.split('\n').filter((l) => /^(RESULT|PROBLEM|DIFF|OVERALL)/.test(l)).join('\n')
    const logs: Record<string, string> = {}
    for (const v of ['rpki-client', 'fort', 'octorpki']) {
      const f = join(dir, 'out', `${v}.log`)
      if (existsSync(f)) logs[v] = readFileSync(f, 'utf8')
    }
    const old = tooOld(summary)
    if (old.length > 0) return { code: -1, summary, lines: `validators too old: ${old.join('; ')}\n${lines}`, logs }
    return { code: r.status, summary, lines, logs, ...(opts.routerKeys ? { routerKeys: readRouterKeys(dir) } : {}), ...readTaks(dir) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** rpki-client's `taks` count (JSON metadata), when it wrote its JSON. */
function readTaks(dir: string): { taks?: number } {
  const rc = join(dir, 'out', 'rpki-client.raw.json')
  if (!existsSync(rc)) return {}
  const taks = (JSON.parse(readFileSync(rc, 'utf8')) as { metadata?: { taks?: number } }).metadata?.taks
  return taks === undefined ? {} : { taks }
}

/** The router keys in rpki-client's JSON (`bgpsec_keys`) and FORT's BGPsec CSV, as sorted `AS<asn>,<SKI hex>` lines. */
function readRouterKeys(dir: string): { 'rpki-client'?: string[]; fort?: string[] } {
  const out: { 'rpki-client'?: string[]; fort?: string[] } = {}
  const hex = (ski: string) => (/^[0-9A-Fa-f:]+$/.test(ski) ? ski.replace(/:/g, '') : Buffer.from(ski, 'base64url').toString('hex')).toUpperCase()
  const rc = join(dir, 'out', 'rpki-client.raw.json')
  if (existsSync(rc)) {
    const keys = (JSON.parse(readFileSync(rc, 'utf8')) as { bgpsec_keys?: { asn: number; ski: string }[] }).bgpsec_keys ?? []
    out['rpki-client'] = keys.map((k) => `AS${k.asn},${hex(k.ski)}`).sort()
  }
  const fort = join(dir, 'fort-bgpsec.csv')
  if (existsSync(fort)) {
    const rows = readFileSync(fort, 'utf8').split('\n').filter((l) => /^(AS)?\d+,/.test(l.trim()))
    out.fort = rows.map((l) => l.trim().split(',')).map(([asn, ski]) => `AS${asn!.replace(/^AS/, '')},${hex(ski!)}`).sort()
  }
  return out
}

async function fetchInsecure(url: string): Promise<Response> {
  const { httpsGet } = await import('./daemon.js')
  const r = await httpsGet(url)
  if (r.status !== 200) throw new Error(`${url}: HTTP ${r.status}`)
  return new Response(r.body)
}

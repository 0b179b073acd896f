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
}

/**
 * Validate the repository behind `talUrl` with all three validators (or `validators`) over one transport, expecting
 * exactly `vrps` (`AS<n>,<prefix>,<maxlen>` lines) and no warnings (--strict). `env` is added to the validators'
 * environment (a shifted clock, say).
 */
export async function validate(opts: { talUrl: string; tlsCert: string; vrps: string[]; transport: 'rrdp' | 'rsync'; validators?: string[]; env?: Record<string, string> }): Promise<RpResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rp-'))
  try {
    const tal = await (await fetchInsecure(opts.talUrl)).text()
    writeFileSync(join(dir, 'svc-ta.tal'), tal)
    writeFileSync(join(dir, 'expect.csv'), opts.vrps.join('\n') + '\n')
    const r = spawnSync(RP_VALIDATE, ['--tal', join(dir, 'svc-ta.tal'), '--ca-cert', opts.tlsCert, '--out', join(dir, 'out'), '--expect', join(dir, 'expect.csv'), '--transport', opts.transport, '--strict', '--timeout', '90', ...(opts.validators ? ['--validators', opts.validators.join(',')] : [])], { encoding: 'utf8', timeout: 400_000, env: { ...process.env, ...opts.env } })
    const summary = existsSync(join(dir, 'out', 'summary.txt')) ? readFileSync(join(dir, 'out', 'summary.txt'), 'utf8') : r.stdout + r.stderr
    const lines = summary.split('\n').filter((l) => /^(RESULT|PROBLEM|DIFF|OVERALL)/.test(l)).join('\n')
    return { code: r.status, summary, lines }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function fetchInsecure(url: string): Promise<Response> {
  const { httpsGet } = await import('./daemon.js')
  const r = await httpsGet(url)
  if (r.status !== 200) throw new Error(`${url}: HTTP ${r.status}`)
  return new Response(r.body)
}

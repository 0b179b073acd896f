/**
 * Results of a bench run: every benchmark prints its detail lines through `BenchContext.log` and records the
 * figures that have a target (or that the summary should show) with `BenchContext.row`. The harness turns them into
 * the summary table (figure, target, ratio, machine limit, PASS/MISS) and bench/results/*.md.
 */

export type Status = 'PASS' | 'MISS' | 'INFO' | 'FAIL'

export interface Row {
  bench: string
  name: string
  /** The measured figure as printed ("1,234 /s", "0.82 s"). */
  figure: string
  /** The target as printed ("≥ 1,000 /s"), or '' for information rows. */
  target: string
  /** measured / target, oriented so that ≥ 1 passes ("1.23×"), or ''. */
  ratio: string
  /** The figure next to the machine's own limit measured in the same run ("87 % of keygen 11.8 keys/s"), or ''. */
  limit: string
  status: Status
  note?: string
}

export interface Target {
  /** 'min': the figure must be at least `value`; 'max': at most (or below, with `strict`). */
  kind: 'min' | 'max'
  value: number
  strict?: boolean
  /** How the target prints, e.g. '≥ 1,000 /s'. */
  text: string
}

export const atLeast = (value: number, text: string): Target => ({ kind: 'min', value, text })
export const below = (value: number, text: string): Target => ({ kind: 'max', value, strict: true, text })
export const atMost = (value: number, text: string): Target => ({ kind: 'max', value, text })

export class BenchContext {
  readonly rows: Row[] = []
  readonly lines: string[] = []
  bench = ''

  constructor(readonly quick: boolean) {}

  log(line = ''): void {
    this.lines.push(line)
    process.stdout.write(line + '\n')
  }

  /** Record a figure; with a target, the status is PASS or MISS and the ratio is measured/target (≥ 1 passes). */
  row(name: string, value: number, figure: string, target?: Target, extra: { limit?: string; note?: string } = {}): Row {
    let ratio = ''
    let status: Status = 'INFO'
    if (target) {
      if (!Number.isFinite(value)) status = 'FAIL'
      else {
        const r = target.kind === 'min' ? value / target.value : target.value / value
        ratio = `${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`
        const ok = target.kind === 'min' ? value >= target.value : target.strict ? value < target.value : value <= target.value
        status = ok ? 'PASS' : 'MISS'
      }
    }
    const row: Row = { bench: this.bench, name, figure, target: target?.text ?? '', ratio, limit: extra.limit ?? '', status, ...(extra.note ? { note: extra.note } : {}) }
    this.rows.push(row)
    return row
  }

  /** A yes/no requirement (no ratio). */
  check(name: string, ok: boolean, figure: string, target: string, extra: { limit?: string; note?: string } = {}): Row {
    const row: Row = { bench: this.bench, name, figure, target, ratio: '', limit: extra.limit ?? '', status: ok ? 'PASS' : 'MISS', ...(extra.note ? { note: extra.note } : {}) }
    this.rows.push(row)
    return row
  }

  /** A benchmark that could not run to the end. */
  failed(name: string, reason: string): void {
    this.rows.push({ bench: this.bench, name, figure: 'error', target: '', ratio: '', limit: '', status: 'FAIL', note: reason })
  }
}

//------------ Numbers ------------------------------------------------------------------------------------------

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[i]
}

export function median(xs: readonly number[]): number {
  return percentile([...xs].sort((a, b) => a - b), 50)
}

export function summary(xs: readonly number[]): { n: number; p50: number; p90: number; p99: number; max: number; min: number; mean: number } {
  const s = [...xs].sort((a, b) => a - b)
  return { n: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN, min: s[0] ?? NaN, mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length) }
}

/** 1234.5 → '1,235'; with digits, fixed decimals. */
export function num(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return String(n)
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

/** Milliseconds, printed as ms below 10 s and as s above. */
export function ms(n: number): string {
  if (!Number.isFinite(n)) return String(n)
  if (n >= 10_000) return `${(n / 1000).toFixed(1)} s`
  if (n >= 100) return `${n.toFixed(0)} ms`
  if (n >= 10) return `${n.toFixed(1)} ms`
  return `${n.toFixed(2)} ms`
}

export function mib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`
}

export function pct(x: number): string {
  return `${(x * 100).toFixed(0)} %`
}

//------------ Markdown -----------------------------------------------------------------------------------------

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

export function summaryTable(rows: readonly Row[]): string {
  const out = ['| bench | figure | measured | target | ratio | vs machine limit (same run) | status |', '|---|---|---:|---|---:|---|---|']
  for (const r of rows) out.push(`| ${cell(r.bench)} | ${cell(r.name)}${r.note ? ` (${cell(r.note)})` : ''} | ${cell(r.figure)} | ${cell(r.target)} | ${r.ratio} | ${cell(r.limit)} | ${r.status} |`)
  return out.join('\n')
}

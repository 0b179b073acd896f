/**
 * A strict parser of the Prometheus text exposition format 0.0.4 (prometheus.io/docs/instrumenting/exposition_formats):
 * `# HELP` and `# TYPE` lines, then samples `name{label="value",…} value`, label values with the escapes \\ \" \n.
 * It refuses what a Prometheus server would refuse (a bad name or label, a sample before its TYPE or of an undeclared
 * family, a duplicate series, a TYPE twice, a value that is not a float), so a test of /metrics also checks the format.
 */

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Family {
  name: string
  help: string
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped'
  samples: Sample[]
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count', ''], counter: [''], gauge: [''], untyped: [''] }

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>()
  const seen = new Set<string>()
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition must end with a newline')
  text.split('\n').forEach((line, i) => {
    const fail = (why: string): never => {
      throw new Error(`line ${i + 1}: ${why}: ${JSON.stringify(line)}`)
    }
    if (line === '') return
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line)
    if (meta) {
      const [, kind, name, rest] = meta
      if (!NAME.test(name!)) fail('bad metric name')
      const f = families.get(name!) ?? { name: name!, help: '', type: 'untyped' as const, samples: [] }
      if (kind === 'HELP') f.help = rest!.replace(/\\n/g, '\n').replace(/\\\\/g, '\\')
      else {
        if (!(rest! in SUFFIXES)) fail('unknown type')
        if (f.samples.length || (families.has(name!) && f.type !== 'untyped')) fail('TYPE after samples or twice')
        f.type = rest as Family['type']
      }
      families.set(name!, f)
      return
    }
    if (line.startsWith('#')) return
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$/.exec(line) ?? fail('not a sample')
    const [, name, , body, value] = m
    const labels = parseLabels(body ?? '', fail)
    const family = [...families.values()].find((f) => SUFFIXES[f.type]!.some((s) => f.name + s === name)) ?? fail('sample of an undeclared family')
    // Prometheus reads values with Go's strconv.ParseFloat: NaN and Inf in any case (prom-client writes `Nan`).
    if (!/^(nan|[+-]?inf(inity)?|[+-]?\d+(\.\d+)?(e[+-]?\d+)?)$/i.test(value!)) fail('bad value')
    const v = /^nan$/i.test(value!) ? NaN : /^-inf/i.test(value!) ? -Infinity : /inf/i.test(value!) ? Infinity : Number(value)
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`
    if (seen.has(key)) fail('duplicate series')
    seen.add(key)
    family.samples.push({ name: name!, labels, value: v })
  })
  return families
}

function parseLabels(body: string, fail: (why: string) => never): Record<string, string> {
  const labels: Record<string, string> = {}
  let rest = body
  while (rest !== '') {
    const m = /^([^=]+)="((?:[^"\\]|\\.)*)"(,|$)/.exec(rest) ?? fail('bad labels')
    const [all, name, raw] = m
    if (!LABEL.test(name!) || name! in labels) fail(`bad or repeated label name ${name}`)
    labels[name!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    rest = rest.slice(all!.length)
  }
  return labels
}

/** The value of the one sample of `name` with exactly these labels (undefined when there is none). */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort())
  for (const f of families.values()) for (const s of f.samples) if (s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want) return s.value
  return undefined
}

/** Every sample's name with its labels, e.g. `svc_ca_roas{ca="ca1"}`, for comparing whole expositions. */
export function seriesNames(families: Map<string, Family>): string[] {
  return [...families.values()].flatMap((f) => f.samples.map((s) => `${s.name}${Object.keys(s.labels).length ? `{${Object.entries(s.labels).map(([k, v]) => `${k}="${v}"`).join(',')}}` : ''}`))
}

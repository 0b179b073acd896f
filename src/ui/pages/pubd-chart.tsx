/**
 * The publication server over time: the console samples GET /pubd/stats while it is open (each visit and every 15 s
 * on the page) and keeps the samples for the browser session; the chart shows the objects held and the RRDP serial
 * (one step per publication) as an inline SVG.
 */
import type { JSX } from 'preact'
import type { Schemas } from '../api.js'
import { now } from '../clock.js'

export interface Sample {
  /** Milliseconds since the epoch. */
  t: number
  objects: number
  serial: number
}

const KEY = 'svc.pubd.samples'
const MAX = 500

export function samples(): Sample[] {
  try {
    const v = JSON.parse(sessionStorage.getItem(KEY) ?? '[]') as Sample[]
    return Array.isArray(v) ? v : []
  } catch {
    return []
  }
}

export function recordSample(stats: Schemas['RepoStats']): void {
  const objects = Object.values(stats.publishers).reduce((n, p) => n + p.objects, 0)
  const all = [...samples(), { t: now(), objects, serial: stats.serial }].slice(-MAX)
  sessionStorage.setItem(KEY, JSON.stringify(all))
}

const W = 600
const H = 200
const PAD = 36

export function Chart(props: { points: Sample[] }): JSX.Element {
  const p = props.points
  if (p.length === 0) return <p>No samples yet.</p>
  if (p.length === 1)
    return (
      <p data-testid="pubd-chart">
        {p[0].objects} objects, RRDP serial {p[0].serial} at {new Date(p[0].t).toISOString().slice(11, 19)} UTC. The console samples the server every 15 seconds while this page is open; the chart
        draws once there are two samples.
      </p>
    )
  const t0 = p[0].t
  const t1 = Math.max(p[p.length - 1].t, t0 + 1)
  const x = (t: number) => PAD + ((t - t0) / (t1 - t0)) * (W - 2 * PAD)
  const line = (v: (s: Sample) => number) => {
    const lo = Math.min(...p.map(v))
    const hi = Math.max(...p.map(v), lo + 1)
    return p.map((s) => `${x(s.t).toFixed(1)},${(H - PAD - ((v(s) - lo) / (hi - lo)) * (H - 2 * PAD)).toFixed(1)}`).join(' ')
  }
  const last = p[p.length - 1]
  const summary = `${p.length} samples since ${new Date(t0).toISOString()}: objects from ${p[0].objects} to ${last.objects}, RRDP serial from ${p[0].serial} to ${last.serial}`
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={summary} data-testid="pubd-chart">
        <title>{summary}</title>
        <line x1={PAD} y1={H - PAD} x2={W - PAD} y2={H - PAD} class="axis" />
        <line x1={PAD} y1={PAD} x2={PAD} y2={H - PAD} class="axis" />
        <polyline points={line((s) => s.objects)} class="objects" fill="none" />
        <polyline points={line((s) => s.serial)} class="serial" fill="none" />
        <text x={PAD} y={H - 8} class="tick">
          {new Date(t0).toISOString().slice(11, 19)}
        </text>
        <text x={W - PAD} y={H - 8} class="tick" text-anchor="end">
          {new Date(t1).toISOString().slice(11, 19)} UTC
        </text>
      </svg>
      <figcaption>
        <span class="key objects">Objects: {last.objects}</span> <span class="key serial">RRDP serial (publications): {last.serial}</span>
      </figcaption>
    </figure>
  )
}

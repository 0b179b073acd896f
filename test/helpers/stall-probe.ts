/**
 * How long svcd's event loop stalls while it works (issue 22 defect 8): GET /health polled one after another on a
 * keep-alive connection of its own; a stalled loop shows as a poll that waited. `worst()` is the longest wait (with
 * when it started, ms after the probe started) of the polls made so far.
 */
import https from 'node:https'
import { performance } from 'node:perf_hooks'

export class HealthProbe {
  private readonly agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })
  private readonly samples: { at: number; ms: number }[] = []
  private readonly t0 = performance.now()
  private running = true
  private readonly done: Promise<void>
  private failures = 0

  constructor(private readonly url: string, private readonly everyMs = 10) {
    this.done = this.loop()
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const start = performance.now()
      const ok = await new Promise<boolean>((resolve) => {
        const req = https.get(this.url + 'health', { agent: this.agent }, (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode === 200))
          res.on('error', () => resolve(false))
        })
        req.on('error', () => resolve(false))
      })
      if (!ok) this.failures++
      this.samples.push({ at: start - this.t0, ms: performance.now() - start })
      await new Promise((r) => setTimeout(r, this.everyMs))
    }
  }

  /** Resolves once a poll has been answered (the connection and its TLS handshake are set up). */
  async ready(): Promise<void> {
    while (this.samples.length === 0) await new Promise((r) => setTimeout(r, 5))
    this.samples.length = 0
  }

  /** The longest wait so far, when it started, the number of polls and of failed ones. */
  worst(): { max: number; at: number; polls: number; failed: number } {
    const w = this.samples.reduce((m, s) => (s.ms > m.ms ? s : m), { at: 0, ms: 0 })
    return { max: Math.round(w.ms), at: Math.round(w.at), polls: this.samples.length, failed: this.failures }
  }

  /** Stop polling (after the poll in flight) and free the connection. */
  async stop(): Promise<void> {
    this.running = false
    await this.done
    this.agent.destroy()
  }
}

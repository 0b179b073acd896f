/** The elements of the next RRDP delta (RFC 8182 §3.5.3), from the changes pending since the last serial. */
import type { DeltaElement } from '../protocol/rrdp.js'
import type { PubdView } from '../store/pubd-store.js'

/** The net change per URI since the last serial: publish (with the old hash when replacing) or withdraw. */
export function deltaElements(view: PubdView, before: Map<string, string | null>): DeltaElement[] {
  const out: DeltaElement[] = []
  for (const [uri, previous] of before) {
    const now = view.object(uri)
    if (now && now.hash === previous) continue
    if (now) out.push(previous ? { type: 'publish', uri, hash: previous, content: now.content } : { type: 'publish', uri, content: now.content })
    else if (previous) out.push({ type: 'withdraw', uri, hash: previous })
  }
  return out
}

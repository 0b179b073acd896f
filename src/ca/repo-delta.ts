/** The RFC 8181 delta that brings a repository in line with a CA's files (pure). */
import type { PublishPdu, WithdrawPdu } from '../protocol/publication.js'
import type { PublishedFile } from './object-model.js'

/** The delta that turns `held` into `wanted`: publishes (with the old hash when replacing) and withdraws. */
export function repoDelta(held: Map<string, string>, wanted: readonly PublishedFile[], jail: string): (PublishPdu | WithdrawPdu)[] {
  const pdus: (PublishPdu | WithdrawPdu)[] = []
  const want = new Map(wanted.filter((f) => f.uri.startsWith(jail)).map((f) => [f.uri, f]))
  for (const f of want.values()) {
    const have = held.get(f.uri)
    if (have === f.hash) continue
    pdus.push(have ? { type: 'publish', uri: f.uri, hash: have, content: f.der } : { type: 'publish', uri: f.uri, content: f.der })
  }
  for (const [uri, hash] of held) if (!want.has(uri)) pdus.push({ type: 'withdraw', uri, hash })
  return pdus
}

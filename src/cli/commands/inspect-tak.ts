/**
 * What `svcc inspect` shows of a Trust Anchor Key object (RFC 9691): each TAKey (current, predecessor, successor)
 * with its key identifier, certificate URIs and comments, then the signed-object envelope. Used by inspect.ts.
 */
import { keyIdentifier } from '../../crypto/key-id.js'
import type { TaKey, Tak } from '../../objects/tak.js'
import { toHex } from '../../util/hex.js'
import { envelope, label, type View } from './inspect-view.js'

function takeyJson(k: TaKey): Record<string, unknown> {
  return { key_id: toHex(keyIdentifier(k.spki)).toUpperCase(), certificate_uris: k.certificateURIs, comments: k.comments }
}

function takeyLines(role: string, k: TaKey): string[] {
  const lines = [`${role}:`, `  ${label('Key id', toHex(keyIdentifier(k.spki)).toUpperCase())}`, ...k.certificateURIs.map((u) => `  ${label('URI', u)}`)]
  return [...lines, ...k.comments.map((c) => `  # ${c}`)]
}

/** A TAK: its current key and, during a TA key roll, the predecessor or successor. */
export function takView(t: Tak): View {
  const env = envelope(t.signedObject)
  const keys = [['current', t.current], ['predecessor', t.predecessor], ['successor', t.successor]] as const
  const json: Record<string, unknown> = { type: 'tak', version: t.version }
  const lines = [label('Type', 'Trust Anchor Key (RFC 9691)')]
  for (const [role, k] of keys) {
    if (!k) continue
    json[role] = takeyJson(k)
    lines.push(...takeyLines(role.charAt(0).toUpperCase() + role.slice(1), k))
  }
  return { json: { ...json, ...env.json }, lines: [...lines, ...env.lines] }
}

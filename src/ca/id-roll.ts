/**
 * RFC 8183 identity key rolls (issue 25, beyond Krill): a CA gets a new BPKI identity key and self-signed certificate
 * beside the current one (`id-roll-init`), shows it in its child and publisher requests while its parents and
 * repository learn it, and switches to it (`id-roll-finish`): only then are its RFC 6492/8181 messages signed with the
 * new key. On the parent side, a child whose identity certificate was updated may still sign with the previous one
 * until its first message signed by the new one (`child-id-confirm` retires the previous certificate).
 */
import { AppError } from '../errors.js'
import type { CaState, ChildInfo } from './state.js'

/** Stored in the history: changing these shapes needs a migration. */
export type IdRollCommand =
  | { type: 'id-roll-init'; idKey: string; idCert: string }
  | { type: 'id-roll-finish' }
  | { type: 'child-id-confirm'; handle: string }

/** Stored in the history: changing these shapes needs a migration. */
export type IdRollEvent =
  | { type: 'id-key-roll-initiated'; idKey: string; idCert: string }
  | { type: 'id-key-roll-finished'; oldKey: string }
  | { type: 'child-previous-id-cert-retired'; handle: string }

/** A roll while one is pending is refused (finish it first); so is a "new" identity that is the current one. */
export function processIdRollInit(s: CaState, c: Extract<IdRollCommand, { type: 'id-roll-init' }>): IdRollEvent[] {
  if (s.idNext) throw new AppError('ca-id-roll-pending', { ca: s.handle })
  if (c.idKey === s.idKey || c.idCert === s.idCert) throw new AppError('ca-id-roll-none', { ca: s.handle, reason: 'the new identity is the current one' })
  return [{ type: 'id-key-roll-initiated', idKey: c.idKey, idCert: c.idCert }]
}

export function processIdRollFinish(s: CaState): IdRollEvent[] {
  if (!s.idNext) throw new AppError('ca-id-roll-none', { ca: s.handle, reason: 'no identity key roll is pending' })
  return [{ type: 'id-key-roll-finished', oldKey: s.idKey }]
}

/** The child signed with its current identity certificate: the previous one is no longer accepted. */
export function processChildIdConfirm(s: CaState, c: Extract<IdRollCommand, { type: 'child-id-confirm' }>): IdRollEvent[] {
  const ch = s.children[c.handle]
  if (!ch) throw new AppError('ca-child-unknown', { ca: s.handle, child: c.handle })
  return ch.prevIdCert ? [{ type: 'child-previous-id-cert-retired', handle: c.handle }] : []
}

export function applyIdRollEvent(s: CaState, e: IdRollEvent): void {
  switch (e.type) {
    case 'id-key-roll-initiated':
      s.idNext = { idKey: e.idKey, idCert: e.idCert }
      return
    case 'id-key-roll-finished':
      if (!s.idNext) return
      s.idKey = s.idNext.idKey
      s.idCert = s.idNext.idCert
      delete s.idNext
      return
    case 'child-previous-id-cert-retired':
      delete s.children[e.handle].prevIdCert
      return
  }
}

/** The identity certificates a child may sign with (RFC 6492 §3.1): the registered one, then the previous one. */
export function childIdCerts(ch: ChildInfo): string[] {
  return ch.prevIdCert ? [ch.idCert, ch.prevIdCert] : [ch.idCert]
}

/** The identity the CA hands out in RFC 8183 requests: the pending one while a roll is under way. */
export function offeredIdCert(s: CaState): string {
  return s.idNext?.idCert ?? s.idCert
}

export function idRollCommandSummary(c: IdRollCommand): { label: string; msg: string; args: Record<string, string> } {
  switch (c.type) {
    case 'id-roll-init': return { label: 'cmd-ca-id-roll-init', msg: 'Initialise an identity key roll: a new RFC 8183 identity key and certificate', args: {} }
    case 'id-roll-finish': return { label: 'cmd-ca-id-roll-finish', msg: 'Finish the identity key roll: sign RFC 6492/8181 messages with the new identity key', args: {} }
    case 'child-id-confirm': return { label: 'cmd-ca-child-id-confirm', msg: `Child '${c.handle}' signed with its new identity certificate: the previous one is retired`, args: { child: c.handle } }
  }
}

export function idRollEventSummary(e: IdRollEvent): string {
  switch (e.type) {
    case 'id-key-roll-initiated': return `identity key roll: new identity key ${e.idKey}`
    case 'id-key-roll-finished': return `identity key roll: the new identity key is in use, ${e.oldKey} retired`
    case 'child-previous-id-cert-retired': return `the previous identity certificate of child '${e.handle}' is no longer accepted`
  }
}

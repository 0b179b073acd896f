/**
 * CA commands in the audit trail (design.md §9): every command a CA's history stores, success or error, is also an
 * audit record of kind = the command's kind (`roas-update`, `child-add`, `ca-init`, `ca-delete`, `ta-keyroll-init`…)
 * naming the same actor, with the history's summary (for ROA and ASPA updates its args hold the counts) and the
 * history version. CaCommands calls this inside the transaction that stores the history entry.
 */
import type { StoredCommand } from '../../eventsourcing.js'
import type { AuditEntry } from '../access/audit-service.js'
import { currentActor, SYSTEM_ACTOR } from '../shared/acting.js'
import type { CommandAudit } from './ca-commands.js'

/** The audit record of a stored command (never its details: they may be large, and the history has them). */
export function commandAuditEntry(cmd: Omit<StoredCommand, 'seq'>, seq?: number): AuditEntry {
  const provider = cmd.provider ?? SYSTEM_ACTOR.provider
  const current = currentActor()
  // The peer address is the request's, when the command is that request's actor's.
  const source = current.id === cmd.actor && current.provider === provider ? current.source : undefined
  const actor = { id: cmd.actor, provider, ...(cmd.token === undefined ? {} : { token: cmd.token }), ...(source === undefined ? {} : { source }) }
  const error = cmd.effect.result === 'error' ? { error: { label: cmd.effect.label, msg: cmd.effect.msg } } : {}
  const details = { label: cmd.summary.label, msg: cmd.summary.msg, args: cmd.summary.args, ...(seq === undefined ? {} : { version: seq }), ...error }
  return { kind: cmd.kind, ca: cmd.handle, success: cmd.effect.result === 'success', details, actor }
}

/** The hook CaCommands.audited takes: each stored command recorded by `audit`. */
export function commandAudit(audit: { record(e: AuditEntry): number }): CommandAudit {
  return (cmd, seq) => void audit.record(commandAuditEntry(cmd, seq))
}

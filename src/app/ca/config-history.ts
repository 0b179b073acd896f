/**
 * A CA's ROA/ASPA configuration as it was right after a version of its history (issue 27: rollback, design.md §12):
 * the stored events replayed from the CA's creation up to that version, the ones that touch the configuration only
 * (`roas-updated`: ca/roas.ts applyRoaChanges; `aspa-config-*`: ca/aspas.ts applyAspaEvent; a plan's apply stores the
 * same events). Read a page at a time, pausing between pages (a CA may have thousands of history entries). No I/O of
 * its own: the history comes through the small interface below, so it is tested without a database.
 */
import { applyAspaEvent, type AspaConfig, type AspaEvent } from '../../ca/aspas.js'
import { applyRoaChanges, type RoaChanges, type RoaConfig } from '../../ca/roas.js'
import type { StoredCommand } from '../../eventsourcing.js'

/** What the replay reads: a CA's history oldest first (store/interfaces.ts CaStore.history, without publications) and one entry. */
export interface ConfigHistorySource {
  page(offset: number, rows: number): StoredCommand[]
  exists(version: number): boolean
}

/** A ROA/ASPA configuration as ca/plans.ts changeToReach takes it. */
export interface CaConfig {
  routes: Record<string, RoaConfig>
  aspas: Record<string, AspaConfig>
}

/** History entries read at a time. */
export const HISTORY_PAGE = 500

/**
 * The configuration right after history version `version`, or undefined when the CA has no such version. Versions
 * that changed nothing of it (other commands, refused commands, publications) leave it as the one before.
 */
export async function configAt(src: ConfigHistorySource, version: number, pause: () => Promise<void>, pageRows = HISTORY_PAGE): Promise<CaConfig | undefined> {
  if (!Number.isSafeInteger(version) || version < 1 || !src.exists(version)) return undefined
  const config: CaConfig = { routes: {}, aspas: {} }
  for (let offset = 0; ; offset += pageRows) {
    const page = src.page(offset, pageRows)
    for (const r of page) {
      if (r.seq > version) return config
      if (r.effect.result === 'success') for (const e of r.effect.events) applyConfigEvent(config, e as { type: string })
    }
    if (page.length < pageRows) return config
    await pause()
  }
}

/** Fold one stored CA event into the configuration; events of other kinds are left alone. */
export function applyConfigEvent(config: CaConfig, e: { type: string; changes?: RoaChanges }): void {
  if (e.type === 'roas-updated' && e.changes) applyRoaChanges(config.routes, structuredClone(e.changes))
  else if (e.type === 'aspa-config-added' || e.type === 'aspa-config-updated' || e.type === 'aspa-config-removed') applyAspaEvent(config.aspas, e as AspaEvent)
}

/**
 * The ordered list of schema migrations. Forward-only: a released migration is never edited; changes come as a
 * new numbered file (style.md §9). Each file exports its SQL so the build needs no asset copying.
 */
import { m001 } from './001-init.js'
import { m002 } from './002-pubd.js'
import { m003 } from './003-ca.js'
import { m004 } from './004-tasks.js'
import { m005 } from './005-pubd-replay.js'
import { m006 } from './006-ca-rows.js'
import { m007 } from './007-child-replay.js'
import { m008 } from './008-pubd-self-service.js'
import { m009 } from './009-access.js'
import { m010 } from './010-plans.js'
import { m011 } from './011-signers.js'
import { m012 } from './012-liveness.js'
import { m013 } from './013-alerts.js'
import { m014 } from './014-quarantine.js'

import type { Migration } from './migration.js'

export type { Migration } from './migration.js'

export const MIGRATIONS: readonly Migration[] = [m001, m002, m003, m004, m005, m006, m007, m008, m009, m010, m011, m012, m013, m014]

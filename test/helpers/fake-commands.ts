/** A read-only fake of CaCommands over a map of CA states, for unit tests of the CA services with fakes. */
import type { CaCommands } from '../../src/app/ca/ca-commands.js'
import type { CaState } from '../../src/ca/state.js'
import { AppError } from '../../src/errors.js'

export function fakeCommands(cas: Record<string, CaState>): Pick<CaCommands, 'exists' | 'handles' | 'state'> {
  return {
    exists: (h) => h in cas,
    handles: () => Object.keys(cas),
    state: (h) => {
      if (!cas[h]) throw new AppError('ca-unknown', { ca: h })
      return cas[h]
    },
  }
}

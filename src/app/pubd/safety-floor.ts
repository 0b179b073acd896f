/**
 * The publication server's safety floor (issue 12, after RIPE NCC's publication server): a cycle that would leave
 * fewer objects than a minimum, or remove more than a share of them at once, is held back until an operator has
 * looked and released it (`svcc publishers release`). A mass withdrawal by a broken CA then never reaches relying
 * parties unseen. Growth is never held. Used by the OutputService for the RRDP and rsync cycles.
 */

/** The settings ([repository] safety_min_objects and safety_max_shrink_percent; 0 and 100 turn them off). */
export interface SafetyFloorConfig {
  minObjects: number
  maxShrinkPercent: number
}

/** Why a cycle from `before` to `after` objects breaks the floor, or undefined when it does not. */
export function floorBroken(f: SafetyFloorConfig, before: number, after: number): string | undefined {
  if (after >= before) return undefined
  if (after < f.minObjects) return `${after} objects would remain (${before} now), fewer than the minimum of ${f.minObjects}`
  const shrink = ((before - after) * 100) / before
  if (shrink > f.maxShrinkPercent) return `${before - after} of ${before} objects would go at once (${shrink.toFixed(1)}%), more than ${f.maxShrinkPercent}%`
  return undefined
}

/**
 * The floor for each output ('rrdp', 'rsync'): `check` is the writers' hook; a release lets each output's next
 * cycle through once, whatever it removes.
 */
export class SafetyFloor {
  private readonly released = new Set<string>()

  constructor(private readonly f: SafetyFloorConfig) {}

  /** The writers' hook: why `output` must hold a cycle from `before` to `after` objects, or undefined (go ahead). */
  check(output: 'rrdp' | 'rsync', before: number, after: number): string | undefined {
    const broken = floorBroken(this.f, before, after)
    if (broken && this.released.has(output)) {
      this.released.delete(output)
      return undefined
    }
    return broken
  }

  /** The operator's release: the next cycle of each output goes ahead. */
  release(): void {
    this.released.add('rrdp')
    this.released.add('rsync')
  }
}

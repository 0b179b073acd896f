/**
 * File watchers turned into callbacks (design.md, style.md §4): the only home of chokidar. Used by svcd to reload
 * a renewed TLS certificate without a restart; the debounce runs on the injected Clock.
 */
import chokidar from 'chokidar'
import type { Clock, TimerHandle } from './util/clock.js'

export interface Watcher {
  close(): Promise<void>
}

/**
 * Call `onChange` (debounced) whenever one of the files is written, replaced (e.g. by a rename from certbot) or
 * re-created. Errors of the watcher itself go to `onError`.
 */
export function watchFiles(paths: string[], onChange: () => void, onError: (e: unknown) => void, clock: Clock, debounceMs = 200): Watcher {
  const watcher = chokidar.watch(paths, { ignoreInitial: true, awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 25 } })
  let timer: TimerHandle | undefined
  const fire = () => {
    clock.clear(timer)
    timer = clock.setTimeout(onChange, debounceMs)
  }
  watcher.on('change', fire).on('add', fire).on('error', onError)
  return {
    async close() {
      clock.clear(timer)
      await watcher.close()
    },
  }
}

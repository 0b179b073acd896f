/** Loading data in a component: state for the answer, the error and a reload, refetched when `deps` change. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError } from './api.js'

export interface Loaded<T> {
  data: T | undefined
  error: ApiError | Error | undefined
  loading: boolean
  reload(): void
}

export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true })
  const [n, setN] = useState(0)
  const seq = useRef(0)
  useEffect(() => {
    const mine = ++seq.current
    setState((s) => ({ ...s, loading: true }))
    fn().then(
      (data) => mine === seq.current && setState({ data, loading: false }),
      (error: Error) => mine === seq.current && setState({ error, loading: false }),
    )
  }, [...deps, n])
  const reload = useCallback(() => setN((x) => x + 1), [])
  return { data: state.data, error: state.error, loading: state.loading, reload }
}

/** Run an action (a button): busy while it runs, its error kept for display, `then` on success. */
export function useAction(): { busy: boolean; error: Error | undefined; run(fn: () => Promise<unknown>, then?: () => void): Promise<boolean>; clear(): void } {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error | undefined>()
  const run = useCallback(async (fn: () => Promise<unknown>, then?: () => void) => {
    setBusy(true)
    setError(undefined)
    try {
      await fn()
      then?.()
      return true
    } catch (e) {
      setError(e as Error)
      return false
    } finally {
      setBusy(false)
    }
  }, [])
  return { busy, error, run, clear: () => setError(undefined) }
}

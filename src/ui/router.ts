/**
 * History-API routing: each page has a stable URL under /ui/ (svcd answers index.html for all of them), links change
 * the URL without a reload, and back/forward work. A route is a pattern with `{name}` segments.
 */
import { useEffect, useState } from 'preact/hooks'

const NAVIGATE = 'svc:navigate'

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  dispatchEvent(new Event(NAVIGATE))
  window.scrollTo(0, 0)
}

/** The current location; re-renders on navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, tick] = useState(0)
  useEffect(() => {
    const update = () => tick((n) => n + 1)
    addEventListener('popstate', update)
    addEventListener(NAVIGATE, update)
    return () => {
      removeEventListener('popstate', update)
      removeEventListener(NAVIGATE, update)
    }
  }, [])
  return { path: location.pathname, query: new URLSearchParams(location.search) }
}

/** Match `/ui/cas/{ca}/roas` against a path: the decoded parameters, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split('/')
  const s = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/')
  if (p.length !== s.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < p.length; i++) {
    const m = /^\{(\w+)\}$/.exec(p[i])
    if (m) {
      if (!s[i]) return undefined
      params[m[1]] = decodeURIComponent(s[i])
    } else if (p[i] !== s[i]) return undefined
  }
  return params
}

/** A console URL with encoded parameters: url`/ui/cas/${ca}/roas`. */
export function url(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '')
}

/** Replace the query string of the current URL (search terms, page) without a new history entry. */
export function setQuery(params: Record<string, string | number | undefined>): void {
  const q = new URLSearchParams(location.search)
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') q.delete(k)
    else q.set(k, String(v))
  }
  const s = q.toString()
  history.replaceState(null, '', `${location.pathname}${s ? `?${s}` : ''}`)
}

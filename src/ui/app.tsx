/** The console's frame: login until there is a session, then the navigation and the page of the current URL. */
import type { JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { Link, onSubmit } from './components.js'
import { match, useLocation } from './router.js'
import { useAction } from './load.js'
import { currentSession, login, logout, onSessionChange, type Session } from './session.js'
import { AspasPage } from './pages/aspas.js'
import { BgpSecPage } from './pages/bgpsec.js'
import { CaPage } from './pages/ca.js'
import { CasPage } from './pages/cas.js'
import { ChildrenPage } from './pages/children.js'
import { Dashboard } from './pages/dashboard.js'
import { HistoryPage } from './pages/history.js'
import { ParentsPage } from './pages/parents.js'
import { PubdPage } from './pages/pubd.js'
import { RepositoryPage } from './pages/repository.js'
import { RoasPage } from './pages/roas.js'

type Page = (p: { ca: string }) => JSX.Element

/** Every page and its stable URL. */
const ROUTES: [pattern: string, title: string, page: Page][] = [
  ['/ui', 'Dashboard', Dashboard],
  ['/ui/cas', 'CAs', CasPage],
  ['/ui/cas/{ca}', 'CA', CaPage],
  ['/ui/cas/{ca}/roas', 'ROAs', RoasPage],
  ['/ui/cas/{ca}/aspas', 'ASPAs', AspasPage],
  ['/ui/cas/{ca}/bgpsec', 'BGPsec router keys', BgpSecPage],
  ['/ui/cas/{ca}/children', 'Children', ChildrenPage],
  ['/ui/cas/{ca}/parents', 'Parents', ParentsPage],
  ['/ui/cas/{ca}/repository', 'Repository', RepositoryPage],
  ['/ui/cas/{ca}/history', 'History', HistoryPage],
  ['/ui/pubd', 'Publication server', PubdPage],
]

export function App(): JSX.Element {
  const [session, setSession] = useState<Session | undefined>(currentSession())
  const [reason, setReason] = useState<string | undefined>()
  useEffect(
    () =>
      onSessionChange((s, why) => {
        setSession(s)
        setReason(why)
      }),
    [],
  )
  const { path } = useLocation()
  let found: { title: string; page: Page; params: Record<string, string> } | undefined
  for (const [pattern, title, page] of ROUTES) {
    const params = match(pattern, path)
    if (params) {
      found = { title, page, params }
      break
    }
  }
  useEffect(() => {
    document.title = !session ? 'Log in · svc' : `${found ? (found.params.ca ? `${found.title} · ${found.params.ca}` : found.title) : 'Not found'} · svc`
  })
  if (!session) return <Login reason={reason} />
  const Page = found?.page
  return (
    <>
      <a href="#main" class="skip">
        Skip to content
      </a>
      <header>
        <span class="brand">svc</span>
        <nav aria-label="Main">
          <Link href="/ui/" current={path === '/ui/' || path === '/ui'}>
            Dashboard
          </Link>
          <Link href="/ui/cas" current={path.startsWith('/ui/cas')}>
            CAs
          </Link>
          <Link href="/ui/pubd" current={path.startsWith('/ui/pubd')}>
            Publication server
          </Link>
        </nav>
        <span class="who">
          {session.id}
          <button type="button" onClick={() => void logout()}>
            Log out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {Page ? (
          <Page ca={found!.params.ca ?? ''} key={path} />
        ) : (
          <>
            <h1>Not found</h1>
            <p>
              There is no console page at <code>{path}</code>. <Link href="/ui/">Go to the dashboard</Link>.
            </p>
          </>
        )}
      </main>
    </>
  )
}

function Login(props: { reason?: string }): JSX.Element {
  const [token, setToken] = useState('')
  const act = useAction()
  const submit = () => act.run(() => login({ kind: 'token', token: token.trim() }))
  const label = (act.error as { label?: string } | undefined)?.label
  const error = act.error && `${label ? `${label}: ` : ''}${act.error.message}`
  const busy = act.busy
  return (
    <main id="main" class="login">
      <h1>svc console</h1>
      <form onSubmit={onSubmit(() => void submit())}>
        {props.reason && !error ? <p class="notice">{props.reason}</p> : null}
        <div class="field">
          <label for="token">Token</label>
          <input id="token" name="token" type="password" autocomplete="current-password" required value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
          <small class="hint">The admin token of svcd (admin_token in its config, or the file it names at start-up).</small>
        </div>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={busy || !token.trim()}>
          Log in
        </button>
      </form>
    </main>
  )
}

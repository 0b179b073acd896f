/** The console's frame: login until there is a session, then the navigation and the page of the current URL. */
import type { JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { allows, can } from './access.js'
import { Link } from './components.js'
import { match, navigate, useLocation } from './router.js'
import { currentSession, logout, onSessionChange, refreshWho, type Session } from './session.js'
import { AuditPage } from './pages/audit.js'
import { Login } from './pages/login.js'
import { TokensPage } from './pages/tokens.js'
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
import { PlanPage } from './pages/plan.js'
import { PlansPage } from './pages/plans.js'
import { AlertsPage } from './pages/alerts.js'
import { HealthPage } from './pages/health.js'

/** A page gets the CA and, on the one-plan page, the plan's id (the URL's parameters). */
type Page = (p: { ca: string; id: string }) => JSX.Element

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
  ['/ui/cas/{ca}/plans', 'Plans', PlansPage],
  ['/ui/cas/{ca}/plans/{id}', 'Plan', PlanPage],
  ['/ui/pubd', 'Publication server', PubdPage],
  ['/ui/tokens', 'API tokens', TokensPage],
  ['/ui/audit', 'Audit trail', AuditPage],
  ['/ui/alerts', 'Alarms', AlertsPage],
  ['/ui/health', 'Health', HealthPage],
]

/** How each provider is named in the header. */
const PROVIDERS: Record<string, string> = { 'admin-token': 'admin token', 'config-file': 'user', 'openid-connect': 'OpenID Connect', 'api-token': 'API token' }

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
  // A session kept from before whoami was asked: ask now (the controls its role cannot use stay hidden until then).
  useEffect(() => void (session && !session.who && refreshWho()), [session])
  const loginPage = path.startsWith('/ui/login')
  useEffect(() => {
    if (session && loginPage && !path.startsWith('/ui/login/callback')) navigate('/ui/', true)
  }, [session, loginPage])
  let found: { title: string; page: Page; params: Record<string, string> } | undefined
  for (const [pattern, title, page] of ROUTES) {
    const params = match(pattern, path)
    if (params) {
      found = { title, page, params }
      break
    }
  }
  useEffect(() => {
    document.title = !session || loginPage ? 'Log in · svc' : `${found ? (found.params.ca ? `${found.title} · ${found.params.ca}` : found.title) : 'Not found'} · svc`
  })
  if (!session || loginPage) return <Login reason={reason} />
  const who = session.who
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
          <Link href="/ui/health" current={path.startsWith('/ui/health')}>
            Health
          </Link>
          {can('pub-list') ? (
            <Link href="/ui/pubd" current={path.startsWith('/ui/pubd')}>
              Publication server
            </Link>
          ) : null}
          <Link href="/ui/tokens" current={path.startsWith('/ui/tokens')}>
            API tokens
          </Link>
          <Link href="/ui/audit" current={path.startsWith('/ui/audit')}>
            Audit
          </Link>
          {can('ca-list') ? (
            <Link href="/ui/alerts" current={path.startsWith('/ui/alerts')}>
              Alarms
            </Link>
          ) : null}
        </nav>
        <span class="who" data-testid="who">
          <span data-testid="who-id">{who?.id ?? session.id}</span>{' '}
          <small>
            ({who ? `${PROVIDERS[who.provider] ?? who.provider}${who.token ? ` ${who.token}` : ''}, ` : ''}role <span data-testid="who-role">{who?.role ?? session.role}</span>
            {who?.cas ? `, CAs ${who.cas.join(', ')}` : ''})
          </small>
          <button type="button" onClick={() => void logout()}>
            Log out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {Page && found?.params.ca !== undefined && who && !allows(who, 'ca-read', found.params.ca) ? (
          <>
            <h1>CA {found.params.ca}</h1>
            <p class="error" role="alert" data-testid="ca-refused">
              Your role ({who.role}) may not see CA {found.params.ca} (missing permission: <code>ca-read</code> on CA {found.params.ca}).
            </p>
          </>
        ) : Page ? (
          <Page ca={found!.params.ca ?? ''} id={found!.params.id ?? ''} key={path} />
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

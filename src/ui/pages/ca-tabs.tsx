/** The heading and tabs of every CA page. */
import type { JSX } from 'preact'
import { Link } from '../components.js'
import { url } from '../router.js'

const TABS: [suffix: string, label: string][] = [
  ['', 'Overview'],
  ['/roas', 'ROAs'],
  ['/aspas', 'ASPAs'],
  ['/bgpsec', 'BGPsec'],
  ['/children', 'Children'],
  ['/parents', 'Parents'],
  ['/repository', 'Repository'],
  ['/history', 'History'],
  ['/plans', 'Plans'],
]

export function CaHeader(props: { ca: string; title: string }): JSX.Element {
  const base = url`/ui/cas/${props.ca}`
  const here = location.pathname.replace(/\/$/, '')
  return (
    <>
      <h1>
        {props.title} <span class="ca-name">· CA {props.ca}</span>
      </h1>
      <nav class="tabs" aria-label={`CA ${props.ca}`}>
        {TABS.map(([suffix, label]) => (
          <Link key={suffix} href={base + suffix} current={here === base + suffix || (suffix !== '' && here.startsWith(`${base}${suffix}/`))}>
            {label}
          </Link>
        ))}
      </nav>
    </>
  )
}

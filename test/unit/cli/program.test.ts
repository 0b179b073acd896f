/** svcc in-process: help, usage errors, exit codes, offline config generators, --api rendering. */
import t from 'tap'
import { systemClock } from '../../../src/clock.js'
import { applyToml, defaults, verifyConfig } from '../../../src/config.js'
import { ALL_COMMANDS, runCli } from '../../../src/cli/program.js'
import { isoWithOffset } from '../../../src/cli/report.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createIdCert } from '../../../src/protocol/id-cert.js'
import { encodeChildRequest, encodeParentResponse, encodePublisherRequest, encodeRepositoryResponse } from '../../../src/protocol/idexchange.js'
import { testKey } from '../../helpers/keys.js'

async function run(args: string[], env: Record<string, string> = {}) {
  let out = ''
  let err = ''
  const code = await runCli(args, { out: (s) => (out += s), err: (s) => (err += s), env, readStdin: () => '', clock: systemClock })
  return { code, out, err }
}

const SPEC_SUBCOMMANDS = [
  'action', 'add', 'bulk publish', 'bulk refresh', 'bulk sync', 'children add', 'children info', 'children remove', 'children response',
  'children update', 'config simple', 'config repo', 'health', 'history', 'info', 'issues', 'keyroll init', 'keyroll activate', 'list',
  'parents add', 'parents contact', 'parents remove', 'parents request', 'parents update', 'publishers add', 'publishers list',
  'publishers remove', 'publishers response', 'publishers show', 'publishers stale', 'publishers stats', 'repo request', 'repo show',
  'repo state', 'repo update', 'roas list', 'roas update', 'show',
]

t.test('every subcommand of spec §4.1 is registered and listed by help', async (t) => {
  const registered = ALL_COMMANDS.map((c) => c.path.join(' '))
  for (const s of SPEC_SUBCOMMANDS) t.ok(registered.includes(s), `${s} registered`)
  const help = await run(['help'])
  t.equal(help.code, 0)
  t.match(help.out, /^svcc \d+\.\d+\.\d+\n/)
  for (const s of SPEC_SUBCOMMANDS) t.match(help.out, new RegExp(`^  ${s} `, 'm'), `help lists ${s}`)
  const one = await run(['help', 'children', 'add'])
  t.equal(one.code, 0)
  t.match(one.out, /--child <name>/)
  t.match(one.out, /-4, --ipv4 <resources>/)
  const version = await run(['-V'])
  t.match(version.out, /^svcc \d+\.\d+\.\d+/)
})

t.test('every registered subcommand is implemented', async (t) => {
  t.same(ALL_COMMANDS.filter((c) => !c.run).map((c) => c.path.join(' ')), [])
})

t.test('--api shows the call of every subcommand that talks to the server', async (t) => {
  const env = { SVC_CLI_SERVER: 'https://svc.example.net:3000/', SVC_CLI_TOKEN: 'secret-123', SVC_CLI_MY_CA: 'ca1' }
  const args: Record<string, string[]> = {
    action: ['--key', '3'], 'children add': ['--child', 'c', '--request', '/dev/null'], 'children info': ['--child', 'c'], 'children remove': ['--child', 'c'],
    'children response': ['--child', 'c'], 'children update': ['--child', 'c', '-4', '10.0.0.0/8'], 'parents add': ['-p', 'p', '-r', '/dev/null'],
    'parents contact': ['-p', 'p'], 'parents remove': ['-p', 'p'], 'parents update': ['-p', 'p', '-r', '/dev/null'], 'publishers add': ['-r', '/dev/null'],
    'publishers remove': ['-p', 'x'], 'publishers response': ['-p', 'x'], 'publishers show': ['-p', 'x'], 'publishers stale': ['--seconds', '10'],
    'repo update': ['-r', '/dev/null'], 'roas update': ['--delta', '/dev/null'],
    'aspas add': ['--aspa', 'AS65000 => AS65001'], 'aspas remove': ['--customer', 'AS65000'], 'aspas update': ['--customer', 'AS65000', '--add', 'AS65005'],
    'children suspend': ['--child', 'c'], 'children unsuspend': ['--child', 'c'],
    'bgpsec add': ['--asn', 'AS65000', '--csr', '/dev/null'], 'bgpsec remove': ['--asn', 'AS65000', '--key', 'AB'.repeat(20)],
    'rsc sign': ['--file', '/dev/null', '--out', '/nonexistent/x.sig'],
    'tokens add': ['--name', 'ci', '--permissions', 'routes-update', '--cas', 'ca1'], 'tokens revoke': ['AAAAAAAAAAAAAAAA'],
    'plan create': ['--add', '10.0.0.0/24 => 65000'], 'plan show': ['--plan', '1'], 'plan approve': ['--plan', '1'], 'plan apply': ['--plan', '1'], 'plan reject': ['--plan', '1'], 'plan withdraw': ['--plan', '1'],
    'roas import': ['--file', '/dev/null'], 'aspas import': ['--file', '/dev/null'], 'plan rollback': ['--to', '3'],
    'children export': ['--child', 'c'],
    'quarantine drop': ['3'],
  }
  const offline = ['config simple', 'config repo', 'config user', 'inspect']
  const needInput = ['children add', 'parents add', 'parents update', 'publishers add', 'repo update', 'bulk import', 'children import', 'publishers id-cert']
  for (const c of ALL_COMMANDS) {
    const name = c.path.join(' ')
    if (offline.includes(name) || needInput.includes(name)) continue
    const r = await run(['--api', ...c.path, ...(args[name] ?? [])], env)
    t.equal(r.code, 0, `${name}: ${r.err}`)
    t.match(r.out, /^(GET|POST|DELETE|PUT) https:\/\/svc\.example\.net:3000\/\S+\nAuthorization: Bearer \*\*\*\n/, name)
  }
})

t.test('--api also for subcommands that read an RFC 8183 document or a delta file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svcc-api-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const idCert = createIdCert(testKey(), new Date())
  const files = {
    child: encodeChildRequest({ childHandle: 'c', idCert }),
    parent: encodeParentResponse({ parentHandle: 'p', childHandle: 'c', serviceUri: 'https://svc.example.net/rfc6492/p', idCert }),
    publisher: encodePublisherRequest({ publisherHandle: 'x', idCert }),
    repository: encodeRepositoryResponse({ publisherHandle: 'ca1', serviceUri: 'https://svc.example.net/rfc8181/ca1/', siaBase: 'rsync://svc.example.net/repo/ca1/', rrdpNotificationUri: 'https://svc.example.net/rrdp/notification.xml', idCert }),
    delta: 'A: 10.0.0.0/24 => 65000 # office\n',
    exported: JSON.stringify({ name: 'c', id_cert: 'AAAA', resources: { asn: '', ipv4: '10.0.0.0/8', ipv6: '' }, issued_cert: { ca_repository: 'rsync://h/r/', rpki_manifest: 'rsync://h/r/x.mft', key: 'AAAA' } }),
  }
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  const env = { SVC_CLI_SERVER: 'https://svc.example.net:3000/', SVC_CLI_TOKEN: 'secret-123', SVC_CLI_MY_CA: 'ca1' }
  const cases: [string[], RegExp][] = [
    [['children', 'add', '--child', 'c', '--request', join(dir, 'child'), '-4', '10.0.0.0/8'], /^POST \S+\/api\/v1\/cas\/ca1\/children\n[^]*"handle": "c"/],
    [['parents', 'add', '-p', 'p', '-r', join(dir, 'parent')], /^POST \S+\/api\/v1\/cas\/ca1\/parents\n[^]*"parent_handle": "p"/],
    [['parents', 'update', '-p', 'p', '-r', join(dir, 'parent')], /^POST \S+\/api\/v1\/cas\/ca1\/parents\/p\n/],
    [['publishers', 'add', '-r', join(dir, 'publisher'), '-p', 'y'], /^POST \S+\/api\/v1\/pubd\/publishers\n[^]*"publisher_handle": "y"/],
    [['repo', 'update', '-r', join(dir, 'repository')], /^POST \S+\/api\/v1\/cas\/ca1\/repo\n[^]*"repository_response"/],
    [['roas', 'update', '--delta', join(dir, 'delta')], /^POST \S+\/api\/v1\/cas\/ca1\/routes\n[^]*"comment": "office"/],
    [['children', 'import', '--file', join(dir, 'exported')], /^POST \S+\/api\/v1\/cas\/ca1\/children\/c\/import\n[^]*"ca_repository": "rsync:\/\/h\/r\/"/],
  ]
  for (const [args, re] of cases) {
    const r = await run(['--api', ...args], env)
    t.equal(r.code, 0, `${args.slice(0, 2).join(' ')}: ${r.err}`)
    t.match(r.out, re)
    t.notMatch(r.out, /secret-123/)
  }
})

t.test('usage errors exit 2 with a message', async (t) => {
  const unknown = await run(['frobnicate'])
  t.equal(unknown.code, 2)
  const missing = await run(['children', 'add'], { SVC_CLI_SERVER: 'https://localhost:3000/', SVC_CLI_TOKEN: 'x' })
  t.equal(missing.code, 2)
  t.match(missing.err, /required option '--child <name>' not specified/)
  const format = await run(['info', '--format', 'yaml'])
  t.equal(format.code, 2)
  t.match(format.err, /--format 'yaml' is invalid: use one of none, json, text, xml/)
  const envFormat = await run(['info'], { SVC_CLI_FORMAT: 'yaml' })
  t.match(envFormat.err, /SVC_CLI_FORMAT 'yaml'/)
})

t.test('config simple and config repo print configs svcd accepts', async (t) => {
  const simple = await run(['config', 'simple', '-d', '/var/lib/svc/', '-l', '/var/log/svcd.log'])
  t.equal(simple.code, 0, simple.err)
  const c = defaults()
  applyToml(c, simple.out, 'simple')
  verifyConfig(c, 'simple')
  t.equal(c.data_dir, '/var/lib/svc/')
  t.equal(c.log_file, '/var/log/svcd.log')
  t.match(c.admin_token, /^[0-9a-f]{64}$/)
  const repo = await run(['config', 'repo', '--rrdp', 'https://rpki.example.net/rrdp/', '--rsync', 'rsync://rpki.example.net/repo/'])
  t.equal(repo.code, 0, repo.err)
  const r = defaults()
  applyToml(r, repo.out, 'repo')
  verifyConfig(r, 'repo')
  t.equal(r.repository.enabled, true)
  t.equal(r.repository.rsync_base_uri, 'rsync://rpki.example.net/repo/')
  t.equal(r.data_dir, './data/')
  t.not((await run(['config', 'simple'])).out.match(/admin_token = "(.*)"/)?.[1], c.admin_token, 'a fresh token each time')
})

t.test('config generators check every path and URI', async (t) => {
  const cases: [string[], RegExp][] = [
    [['config', 'simple', '-d', '/var/lib/svc'], /--data '\/var\/lib\/svc' must end with '\/'/],
    [['config', 'repo', '--rsync', 'rsync://h/repo/'], /required option '--rrdp <uri>'/],
    [['config', 'repo', '--rrdp', 'https://h/rrdp'], /required option '--rsync <uri>'/],
    [['config', 'repo', '--rrdp', 'https://h/rrdp', '--rsync', 'rsync://h/repo/'], /--rrdp 'https:\/\/h\/rrdp' is invalid: .*must end with '\/'/],
    [['config', 'repo', '--rrdp', 'http://h/rrdp/', '--rsync', 'rsync://h/repo/'], /--rrdp .* is not an https:\/\/ URI/],
    [['config', 'repo', '--rrdp', 'https://h/rrdp/', '--rsync', 'rsync://h/repo'], /--rsync .* must end with '\/'/],
  ]
  for (const [args, message] of cases) {
    const r = await run(args)
    t.equal(r.code, 2, args.join(' '))
    t.match(r.err, message, args.join(' '))
  }
})

t.test('--api renders method, URL, masked token and body without sending', async (t) => {
  const r = await run(['--api', 'health'], { SVC_CLI_SERVER: 'https://svc.example.net:3000/', SVC_CLI_TOKEN: 'tok-123456' })
  t.equal(r.code, 0)
  t.equal(r.out, 'GET https://svc.example.net:3000/api/v1/health/cas?offset=0&limit=1000\nAuthorization: Bearer ***\n')
  const one = await run(['--api', 'health', '-c', 'ca1'], { SVC_CLI_SERVER: 'https://svc.example.net:3000/', SVC_CLI_TOKEN: 'tok-123456' })
  t.equal(one.out, 'GET https://svc.example.net:3000/api/v1/health/cas/ca1\nAuthorization: Bearer ***\n')
  const check = await run(['--api', 'health', '--check'], { SVC_CLI_SERVER: 'https://svc.example.net:3000/', SVC_CLI_TOKEN: 'tok-123456' })
  t.equal(check.out, 'POST https://svc.example.net:3000/api/v1/health/check?offset=0&limit=1000\nAuthorization: Bearer ***\n')
})

t.test('times are printed in ISO 8601 with an offset', async (t) => {
  t.match(isoWithOffset(new Date(0)), /^19(69|70)-\d\d-\d\dT\d\d:\d\d:00[+-]\d\d:\d\d$/)
})

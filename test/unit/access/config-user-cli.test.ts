/**
 * `svcc config user` in-process (src/cli/commands/config-user.ts): the password from standard input (not a terminal
 * here), the entry printed as TOML that svcd's config loads and that logs the user in (Krill's scheme); empty or
 * mismatched passwords exit 1 with nothing printed; a missing role is a usage error (2). No server is contacted:
 * there is none configured.
 */
import t from 'tap'
import { ConfigUsers } from '../../../src/app/access/config-users.js'
import { runCli } from '../../../src/cli/program.js'
import { systemClock } from '../../../src/clock.js'
import { applyToml, defaults, verifyConfig } from '../../../src/config.js'

async function run(args: string[], stdin: string) {
  let out = ''
  let err = ''
  const code = await runCli(args, { out: (s) => (out += s), err: (s) => (err += s), env: {}, readStdin: () => stdin, clock: systemClock })
  return { code, out, err }
}

t.test('the printed entry loads in a config and its password logs in', async (t) => {
  const r = await run(['config', 'user', '--id', 'joe@example.com', '--role', 'readonly'], 'correct horse\ncorrect horse\n')
  t.equal(r.code, 0, r.err)
  t.match(r.out, /^\[auth_users\]\n"joe@example\.com" = \{ role = "readonly", password_hash = "[0-9a-f]{64}", salt = "[0-9a-f]{64}" \}\n$/)
  t.notMatch(r.out + r.err, /correct horse/, 'the password is not printed')
  const c = defaults()
  applyToml(c, `auth_type = "config-file"\n${r.out}`, 'users.toml')
  verifyConfig(c, 'users.toml')
  const users = new ConfigUsers({ users: c.auth_users, roles: c.auth_roles })
  const ok = await users.check('joe@example.com', 'correct horse')
  t.same(ok.ok && [ok.id, ok.role.name], ['joe@example.com', 'readonly'])
  t.same(await users.check('joe@example.com', 'correct horse!'), { ok: false, reason: 'invalid-credentials' })
  const again = await run(['config', 'user', '--id', 'joe@example.com', '--role', 'readonly'], 'correct horse\n')
  t.not(again.out, r.out, 'a fresh salt each time (one line of input is enough off a terminal)')
})

t.test("Krill's -a role=R form, and --format json", async (t) => {
  const r = await run(['config', 'user', '--id', 'ann', '-a', 'role=readwrite', '--format', 'json'], 'pw\n')
  t.equal(r.code, 0, r.err)
  const j = JSON.parse(r.out) as Record<string, string>
  t.same(Object.keys(j).sort(), ['id', 'password_hash', 'role', 'salt'])
  t.same([j.id, j.role], ['ann', 'readwrite'])
})

t.test('empty or mismatched passwords: a clear message, exit 1, nothing printed; no role: usage (2)', async (t) => {
  const cases: [string[], string, number, RegExp][] = [
    [['--role', 'readonly'], '', 1, /password is empty/],
    [['--role', 'readonly'], '   \n', 1, /password is empty/],
    [['--role', 'readonly'], 'one\ntwo\n', 1, /two passwords differ/],
    [[], 'pw\n', 2, /no role given/],
    [['-a', 'colour=blue'], 'pw\n', 2, /-a role=<role>/],
    [['--role', 'readonly', '-a', 'role=admin'], 'pw\n', 2, /disagree/],
  ]
  for (const [extra, stdin, code, message] of cases) {
    const r = await run(['config', 'user', '--id', 'joe', ...extra], stdin)
    t.equal(r.code, code, `${extra.join(' ')} / ${JSON.stringify(stdin)}`)
    t.match(r.err, message)
    t.equal(r.out, '', 'nothing printed')
  }
  const noId = await run(['config', 'user', '--role', 'readonly'], 'pw\n')
  t.equal(noId.code, 2)
  t.match(noId.err, /--id <id>/)
})

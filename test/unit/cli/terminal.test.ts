/**
 * Issue 22 defect 11: svcc never prints a server's text raw. A remote parent's or repository's error, a CA's issue, an
 * error message: C0 (but newline and tab), DEL and C1 control characters come out as visible `\xHH` escapes in text,
 * and as `\u00HH` escapes in JSON, so no escape sequence reaches the terminal. Checked on the helper and end to end:
 * svcc against an HTTPS server on 127.0.0.1 that answers with escape sequences.
 */
import t from 'tap'
import { systemClock } from '../../../src/clock.js'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from '../../../src/cli/program.js'
import { jsonSafe, terminalSafe } from '../../../src/cli/terminal.js'

const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

const EVIL = 'bad \u001b[31mred\u001b[0m \u001b]0;owned\u0007 \u009b2J \u001b]52;c;cGF5bG9hZA==\u0007 \r\u0008 over'

t.test('terminalSafe and jsonSafe', async (t) => {
  t.equal(terminalSafe(EVIL), 'bad \\x1b[31mred\\x1b[0m \\x1b]0;owned\\x07 \\x9b2J \\x1b]52;c;cGF5bG9hZA==\\x07 \\x0d\\x08 over')
  t.equal(terminalSafe('line 1\nline 2\tcolumn\r\nline 3'), 'line 1\nline 2\tcolumn\nline 3', 'newline, tab and CR LF stay line ends')
  t.equal(terminalSafe('ünïcödé ✓ 10.0.0.0/8 => AS65000'), 'ünïcödé ✓ 10.0.0.0/8 => AS65000', 'printable text is untouched')
  const json = jsonSafe(JSON.stringify({ msg: EVIL }))
  t.notMatch(json, RAW_CONTROL)
  t.same(JSON.parse(json), { msg: EVIL }, 'the JSON still holds the same value')
})

t.test('svcc prints a server error and a server list with escape sequences shown, not played', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-term-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' })
  const server: Server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
    if (req.url === '/api/v1/cas') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ cas: [{ handle: `ca1${EVIL}` }] }))
      return
    }
    res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ label: 'ca-parent-issue', msg: `parent said: ${EVIL}`, args: {}, detail: EVIL }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  const env = { SVC_CLI_SERVER: `https://127.0.0.1:${(server.address() as { port: number }).port}/`, SVC_CLI_TOKEN: 'secret' }
  const run = async (args: string[]) => {
    let out = ''
    let err = ''
    const code = await runCli(args, { out: (s) => (out += s), err: (s) => (err += s), env, readStdin: () => '', clock: systemClock })
    return { code, out, err }
  }

  const list = await run(['list'])
  t.equal(list.code, 0)
  t.notMatch(list.out, RAW_CONTROL, 'text: no control character printed')
  t.match(list.out, 'ca1bad \\x1b[31mred', 'the escape shows as text')
  const listJson = await run(['list', '-f', 'json'])
  t.notMatch(listJson.out, RAW_CONTROL, 'json: no control character printed')
  t.same(JSON.parse(listJson.out).cas[0].handle, `ca1${EVIL}`, 'json: the same value')

  const failed = await run(['show', '-c', 'ca1'])
  t.equal(failed.code, 1)
  t.notMatch(failed.err, RAW_CONTROL, 'an error: no control character printed')
  t.match(failed.err, 'svcc: error: parent said: bad \\x1b[31mred')
  t.match(failed.err, 'detail: bad \\x1b[31mred', 'and its details')
  const failedJson = await run(['show', '-c', 'ca1', '-f', 'json'])
  t.notMatch(failedJson.err, RAW_CONTROL, 'an error as json: no control character printed')
  t.same(JSON.parse(failedJson.err).detail, EVIL)
})

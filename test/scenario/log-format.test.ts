/**
 * svcd's log format (issue 11 item 8): readable text on a terminal, JSON lines everywhere else, log_format to force
 * either. The lines logged last before svcd stops, exits or crashes are written in both formats.
 *
 *   svcd ──stderr (pipe, or a pseudo-terminal under script(1))──► this test
 */
import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { freePort, httpsGet, startDaemon, tempDir } from '../helpers/daemon.js'
import { assertBuilt, ROOT, SVCD } from '../helpers/paths.js'

/** A text record as svcd writes it: UTC time, level word, pid, message. */
const TEXT_LINE = /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) \(\d+\): \S/

t.test('log_format = "text": readable lines on a pipe, without colour, from start to stop', async (t) => {
  const d = await startDaemon(t, { toml: 'log_format = "text"' })
  await httpsGet(d.url + 'api/v1/cas', { authorization: 'Bearer wrong-token' })
  t.equal(await d.stop(), 0)
  const lines = d.output().split('\n').filter((l) => l !== '')
  t.ok(lines.length >= 2, 'some lines')
  // A record is one line; only an error's stack continues on indented lines.
  const records = lines.filter((l) => !/^\s/.test(l))
  for (const l of records) t.match(l, TEXT_LINE, `readable: ${l.slice(0, 100)}`)
  t.same(lines.filter((l) => /^\s*[{}]/.test(l)), [], 'no line opens or closes a JSON object')
  t.match(d.output(), new RegExp(` INFO \\(\\d+\\): svcd started \\{"version":"[^"]+","listen":"https://127\\.0\\.0\\.1:${d.port}/"`), 'start: level word, message, fields')
  t.match(records.at(-1), / INFO \(\d+\): svcd stopped$/, 'the last line before exit is there')
  t.notMatch(d.output(), /\x1b\[/, 'no colour off a terminal')
  t.notOk(d.output().includes(d.token), 'the admin token is never logged')
})

t.test('without log_format, stderr that is not a terminal keeps JSON lines', async (t) => {
  const d = await startDaemon(t)
  t.equal(await d.stop(), 0)
  const lines = d.output().split('\n').filter((l) => l !== '')
  const objs = lines.map((l): Record<string, unknown> => {
    try {
      return JSON.parse(l) as Record<string, unknown>
    } catch {
      t.fail(`not a JSON line: ${l}`)
      return {}
    }
  })
  for (const o of objs) t.match(o, { level: /^(trace|debug|info|warn|error|fatal)$/, msg: String, time: /^\d{4}-\d\d-\d\dT.*Z$/, pid: Number })
  t.match(objs.find((o) => o.msg === 'svcd started'), { level: 'info', listen: `https://127.0.0.1:${d.port}/` })
  t.match(objs.at(-1), { level: 'info', msg: 'svcd stopped' }, 'the last line before exit is there')
})

t.test('lines logged just before process.exit or a crash are written, in both formats', async (t) => {
  assertBuilt()
  const dir = tempDir(t)
  const script = join(dir, 'exit.mjs')
  writeFileSync(
    script,
    `import { createLogger } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'log.js')).href)}
const [format, how] = process.argv.slice(2)
const log = createLogger({ level: 'info', type: 'stderr', format })
log.info('first', { token: 'secret-token' })
setTimeout(() => {
  log.error('last words', { how })
  if (how === 'exit') process.exit(3)
  throw new Error('crash')
}, 20)
`,
  )
  for (const format of ['json', 'text']) {
    for (const how of ['exit', 'crash']) {
      const r = spawnSync(process.execPath, [script, format, how], { encoding: 'utf8', timeout: 20_000 })
      t.equal(r.status, how === 'exit' ? 3 : 1, `${format}, ${how}: exit code`)
      const lines = r.stderr.split('\n')
      const want = format === 'json' ? /^\{"level":"error",.*"how":"\w+","msg":"last words"\}$/ : /^\[[^\]]+\] ERROR \(\d+\): last words \{"how":"\w+"\}$/
      t.ok(lines.some((l) => want.test(l)), `${format}, ${how}: the last line is there`)
      t.notOk(r.stderr.includes('secret-token'), `${format}, ${how}: the token is masked`)
    }
  }
})

// script(1) (util-linux) runs svcd on a pseudo-terminal: the real `make run` case.
const noScript = spawnSync('script', ['--version']).error ? 'needs script(1) from util-linux' : false

t.test('on a terminal, svcd writes coloured text by default', { skip: noScript }, async (t) => {
  assertBuilt()
  const dir = tempDir(t)
  const port = await freePort()
  const config = join(dir, 'svcd.toml')
  const pidFile = join(dir, 'svcd.pid')
  const typescript = join(dir, 'typescript')
  writeFileSync(config, `data_dir = "${join(dir, 'data')}/"\nport = ${port}\nadmin_token = "tty-test-token-0123"\npid_file = "${pidFile}"\n`)
  const proc = spawn('script', ['-qfec', `${process.execPath} ${SVCD} -c ${config}`, typescript], { stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, NO_COLOR: '' } })
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
  t.teardown(() => proc.kill('SIGKILL'))
  let healthy = false
  for (let i = 0; i < 300 && !healthy && proc.exitCode === null; i++) {
    healthy = (await httpsGet(`https://localhost:${port}/health`).then((r) => r.status, () => 0)) === 200
    if (!healthy) await new Promise((r) => setTimeout(r, 100))
  }
  t.ok(healthy, 'svcd started under script')
  process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM')
  t.equal(await exited, 0, 'and stopped cleanly')
  proc.stdin!.end()
  // Plain text once the colour codes are taken out; the terminal ends lines with \r\n.
  const out = readFileSync(typescript, 'utf8')
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '')
  t.match(out, /\x1b\[32mINFO\x1b\[39m/, 'the level is coloured')
  t.match(plain, new RegExp(`\\n\\[[^\\]]+\\] INFO \\(\\d+\\): svcd started \\{"version":"[^"]+","listen":"https://127\\.0\\.0\\.1:${port}/"`), 'readable start line')
  t.match(plain, / INFO \(\d+\): svcd stopped\n/, 'readable last line')
  t.notMatch(plain, /^\{"level"/m, 'no JSON line')
})

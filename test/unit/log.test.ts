/**
 * svcd's logger (src/log.ts): which format is written (text on a terminal, JSON elsewhere, or forced by
 * log_format), what each format looks like, and that secrets are masked in both.
 */
import t from 'tap'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createLogger, logFormat, LogFileError } from '../../src/log.js'
import { tempDir, type TestLike } from '../helpers/daemon.js'

/** A text line as pino-pretty writes it for us: UTC time, level word, pid, message. */
const TEXT_LINE = /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) \(\d+\): /

t.test('the format: auto is text only for stderr on a terminal; json and text are forced', async (t) => {
  const table: [Parameters<typeof logFormat>, 'json' | 'text'][] = [
    [['auto', 'stderr', true], 'text'],
    [['auto', 'stderr', false], 'json'],
    [['auto', 'file', true], 'json'],
    [['auto', 'file', false], 'json'],
    [['json', 'stderr', true], 'json'],
    [['json', 'file', false], 'json'],
    [['text', 'stderr', false], 'text'],
    [['text', 'file', false], 'text'],
    [['text', 'file', true], 'text'],
  ]
  for (const [args, want] of table) t.equal(logFormat(...args), want, args.join(', '))
})

/** Log a few lines to a file in the given format and return the file's lines. */
function logToFile(t: TestLike, format: 'auto' | 'json' | 'text', stderrIsTty: boolean): string[] {
  const dir = join(tempDir(t), 'logs')
  mkdirSync(dir)
  const file = join(dir, 'svcd.log')
  const log = createLogger({ level: 'debug', type: 'file', file, format, stderrIsTty, env: {} })
  log.info('svcd started', { listen: 'https://127.0.0.1:3000/', token: 'secret-token-1', request: { authorization: 'Bearer secret-token-2' } })
  log.child({ ca: 'ca1' }).warn('parent sync failed', { reason: 'refused', private_key: 'secret-key-3', user_pin: 'secret-pin-4' })
  log.debug('no fields')
  log.flush()
  return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '')
}

t.test('json lines: one object per line, level as a word, secrets masked', async (t) => {
  for (const [format, tty] of [['json', true], ['auto', true], ['auto', false]] as const) {
    const lines = logToFile(t, format, tty)
    t.equal(lines.length, 3, `${format}, tty ${tty}: three lines`)
    const objs = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    t.match(objs[0], { level: 'info', msg: 'svcd started', listen: 'https://127.0.0.1:3000/', token: '***', request: { authorization: '***' }, pid: Number, time: /^\d{4}-\d\d-\d\dT/ })
    t.match(objs[1], { level: 'warn', msg: 'parent sync failed', ca: 'ca1', private_key: '***', user_pin: '***' })
    t.match(objs[2], { level: 'debug', msg: 'no fields' })
    t.notMatch(lines.join('\n'), /secret-/, 'no secret')
  }
})

t.test('text lines: time, level word, message and fields on one line; no colour off a terminal; secrets masked', async (t) => {
  const lines = logToFile(t, 'text', false)
  t.equal(lines.length, 3)
  for (const l of lines) t.match(l, TEXT_LINE, `readable: ${l}`)
  t.match(lines[0], / INFO \(\d+\): svcd started \{"listen":"https:\/\/127\.0\.0\.1:3000\/","token":"\*\*\*","request":\{"authorization":"\*\*\*"\}\}$/)
  t.match(lines[1], / WARN \(\d+\): parent sync failed \{"ca":"ca1","reason":"refused","private_key":"\*\*\*","user_pin":"\*\*\*"\}$/)
  t.match(lines[2], / DEBUG \(\d+\): no fields$/)
  t.notMatch(lines.join('\n'), /secret-|\x1b\[/, 'no secret, no escape codes')
})

t.test('the level still filters in text', async (t) => {
  const file = join(tempDir(t), 'svcd.log')
  const log = createLogger({ level: 'warn', type: 'file', file, format: 'text', env: {} })
  log.info('dropped')
  log.error('kept')
  t.match(readFileSync(file, 'utf8'), /^\[[^\]]+\] ERROR \(\d+\): kept\n$/)
})

t.test('a log file that cannot be opened stops start-up, saying which and why (issue 22 defect 10)', async (t) => {
  const dir = tempDir(t)
  for (const format of ['json', 'text'] as const) {
    const file = join(dir, 'missing', 'svcd.log')
    t.throws(() => createLogger({ level: 'info', type: 'file', file, format, env: {} }), new LogFileError(`cannot open log_file '${file}': its directory '${join(dir, 'missing')}' does not exist (create it, or fix log_file)`), `${format}: a missing directory`)
    t.throws(() => createLogger({ level: 'info', type: 'file', file: dir, format, env: {} }), { name: 'LogFileError', message: /it is a directory/ }, `${format}: a directory as the file`)
  }
  t.throws(() => createLogger({ level: 'info', type: 'file', file: join(dir, 'x', 'y', 'svcd.log'), env: {} }), LogFileError)
  const file = join(dir, 'ok.log')
  const log = createLogger({ level: 'info', type: 'file', file, format: 'json', env: {} })
  log.info('at once')
  t.match(readFileSync(file, 'utf8'), /"msg":"at once"/, 'a file in an existing directory is written at once')
})

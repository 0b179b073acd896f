/** svcd configuration: defaults, strict TOML checking, environment overrides, and the reference config file. */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { applyToml, ConfigError, defaults, loadConfig, optionNames, verifyConfig, type Config } from '../../src/config.js'
import { fixture, ROOT } from '../helpers/paths.js'
import { join } from 'node:path'

void fixture
const load = (text: string, env: NodeJS.ProcessEnv = {}): Config => {
  const c = defaults()
  applyToml(c, text, 'test.toml')
  if (env.SVC_DATA_DIR) c.data_dir = env.SVC_DATA_DIR
  verifyConfig(c, 'test.toml')
  return c
}

t.test('built-in defaults are safe for production', async (t) => {
  const c = loadConfig(undefined, {})
  t.equal(c.ip, '127.0.0.1')
  t.equal(c.port, 3000)
  t.equal(c.data_dir, './data/')
  t.equal(c.https_mode, 'generate')
  t.equal(c.service_uri, 'https://localhost:3000/')
  t.equal(c.testbed.enabled, false, 'no test trust anchor')
  t.equal(c.repository.enabled, false)
  t.equal(c.admin_token, undefined, 'generated at first start')
  t.equal(c.timing.mft_reissue_seconds, 8 * 3600, 'spec §8: renewal every 8 hours')
})

t.test('a file holds only what differs; service_uri follows the port', async (t) => {
  const c = load('port = 3100\n')
  t.equal(c.port, 3100)
  t.equal(c.service_uri, 'https://localhost:3100/')
  t.equal(c.log_level, 'info')
  t.equal(c.log_format, 'auto', 'text on a terminal, JSON elsewhere')
  t.equal(load('log_format = "text"').log_format, 'text')
})

t.test('unknown keys and wrong types are refused, naming the key and the file', async (t) => {
  t.throws(() => load('nope = 1'), { message: "test.toml: unknown key 'nope'" })
  t.throws(() => load('[repository]\nnope = 1'), { message: "test.toml: unknown key 'repository.nope'" })
  t.throws(() => load('[nope]\na = 1'), { message: "test.toml: unknown key 'nope'" })
  t.throws(() => load('port = "1"'), /key 'port' must be an integer, not string "1"/)
  t.throws(() => load('port = 70000'), /key 'port' must be at most 65535/)
  t.throws(() => load('port = 1.5'), /key 'port' must be an integer/)
  t.throws(() => load('repository = 1'), /'repository' must be a table/)
  t.throws(() => load('[testbed]\nenabled = "yes"'), /key 'testbed.enabled' must be true or false/)
  t.throws(() => load('log_type = "syslog"'), /must be one of "stderr", "file"/)
  t.throws(() => load('log_format = "pretty"'), { message: `test.toml: key 'log_format' must be one of "auto", "json", "text", not "pretty"` })
  t.throws(() => load('data_dir = "/var/lib/svc"'), /key 'data_dir' must end with '\/'/)
  t.throws(() => load('service_uri = "https://h:3000"'), /key 'service_uri' must end with '\/'/)
  t.throws(() => load('service_uri = "https://h/api/"'), /without a path/)
  t.throws(() => load('service_uri = "http://h/"'), /must be an https:\/\/ URI/)
  t.throws(() => load('[repository]\nrsync_base_uri = "https://h/repo/"'), /must be an rsync:\/\/ URI/)
  t.throws(() => load('[repository]\nenabled = true'), /repository.rrdp_base_uri' must be set/)
  t.throws(() => load('[testbed]\nenabled = true'), /needs the embedded repository/)
  t.throws(() => load('https_mode = "existing"'), /tls_cert and tls_key must be set/)
  t.throws(() => load('admin_token = "short"'), /key 'admin_token' must be at least 16 characters/)
  t.throws(() => load('port = '), ConfigError)
  t.throws(() => load('[timing]\nmft_reissue_seconds = 100000'), /must be less than timing.mft_next_update_seconds/)
})

t.test('[__proto__], [constructor] and the like are unknown keys, named; Object.prototype stays clean (issue 22 defect 10)', async (t) => {
  const cases: [string, string][] = [
    ['[__proto__]\ntoString = "x"\n', '__proto__'],
    ['[__proto__]\nenabled = true\n', '__proto__'],
    ['[constructor]\nname = "x"\n', 'constructor'],
    ['[constructor.prototype]\nenabled = true\n', 'constructor'],
    ['[hasOwnProperty]\nx = 1\n', 'hasOwnProperty'],
    ['__proto__ = "x"\n', '__proto__'],
    ['toString = "x"\n', 'toString'],
    ['[repository.__proto__]\nenabled = true\n', 'repository.__proto__'],
    ['[repository]\nconstructor = "x"\n', 'repository.constructor'],
  ]
  for (const [text, key] of cases) {
    t.throws(() => load(text), { name: 'ConfigError', message: `test.toml: unknown key '${key}'` }, JSON.stringify(text))
  }
  t.equal(Object.prototype.toString, Object.getPrototypeOf({}).toString, 'Object.prototype.toString untouched')
  t.equal(Object.prototype.toString.call([]), '[object Array]')
  t.notOk(Object.hasOwn(Object.prototype, 'enabled'), 'no enabled on Object.prototype')
  t.equal(Object.name, 'Object')
  t.equal(({} as Record<string, unknown>).enabled, undefined)
})

t.test('admin_token: at least 16 characters, from the file and from SVC_ADMIN_TOKEN (issue 22 defect 10)', async (t) => {
  t.throws(() => loadConfig(undefined, { SVC_ADMIN_TOKEN: 'x' }), { name: 'ConfigError', message: /^environment variable SVC_ADMIN_TOKEN must be at least 16 characters/ })
  t.throws(() => loadConfig(undefined, { SVC_ADMIN_TOKEN: '123456789012345' }), /SVC_ADMIN_TOKEN must be at least 16/)
  t.throws(() => load('admin_token = "123456789012345"'), { message: /^test\.toml: key 'admin_token' must be at least 16 characters/ })
  t.equal(loadConfig(undefined, { SVC_ADMIN_TOKEN: '1234567890123456' }).admin_token, '1234567890123456', '16 characters are enough')
  t.equal(load('admin_token = "1234567890123456"').admin_token, '1234567890123456')
  t.throws(() => loadConfig(undefined, { SVC_ADMIN_TOKEN: 'weak-token' }), { message: /^(?!.*weak-token)/ }, 'the weak token is not echoed')
})

t.test('environment overrides token and data dir', async (t) => {
  const c = loadConfig(undefined, { SVC_ADMIN_TOKEN: 'from-the-environment', SVC_DATA_DIR: '/tmp/svc/' })
  t.equal(c.admin_token, 'from-the-environment')
  t.equal(c.data_dir, '/tmp/svc/')
  t.throws(() => loadConfig(undefined, { SVC_DATA_DIR: '/tmp/svc' }), /data_dir' must end with/)
})

t.test('config/svcd.toml documents every option at its default', async (t) => {
  const text = readFileSync(join(ROOT, 'config', 'svcd.toml'), 'utf8')
  // Uncomment '# key = value' and '# [section]' lines (not '## ' examples): the result must equal the defaults.
  const uncommented = text
    .split('\n')
    .filter((l) => /^# (\[[a-z]+\]|[a-z_]+ = )/.test(l))
    .map((l) => l.slice(2))
    .join('\n')
  const c = defaults()
  applyToml(c, uncommented, 'config/svcd.toml')
  t.same(c, defaults(), 'every documented default is the real default')
  for (const name of optionNames()) {
    const key = name.split('.').pop()!
    t.match(text, new RegExp(`^##? ${key} = `, 'm'), `${name} is documented`)
  }
})

t.test('config/embedded.toml loads', async (t) => {
  const c = loadConfig(join(ROOT, 'config', 'embedded.toml'), {})
  t.equal(c.data_dir, './data/')
})

t.test('issue 12: publication-server BCP defaults and checks', async (t) => {
  const r = defaults().repository
  t.ok(r.rrdp_delta_files_min_seconds >= 4 * 3600, 'deltas kept at least 4 hours by default')
  t.equal(r.rrdp_delta_interval_min_seconds, 0, 'no batching in the embedded default')
  t.equal(r.rsync_tree_grace_seconds, 7200, 'a replaced rsync tree stays 2 hours')
  t.throws(() => load('[repository]\nrrdp_delta_files_min_seconds = 14400\nrrdp_delta_files_max_seconds = 7200'), /rrdp_delta_files_max_seconds' must be at least/)
  const repo = (uri: string) => `[repository]\nenabled = true\nrrdp_base_uri = "${uri}"\nrsync_base_uri = "rsync://localhost/repo/"`
  t.throws(() => load(repo('https://localhost/rrdp/?x=1/')), /rrdp_base_uri/, 'RFC 9674: a query would not carry over to the snapshot and delta URIs')
  t.throws(() => load('[repository]\nsafety_max_shrink_percent = 101'), /must be at most 100/)
  t.equal(load(repo('https://localhost/rrdp/')).repository.rrdp_base_uri, 'https://localhost/rrdp/')
})

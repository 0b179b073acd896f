/** storage_uri (util/storage-uri.ts): SQLite by default or by file, PostgreSQL URIs, and clear refusals without passwords. */
import t from 'tap'
import { parseStorageUri } from '../../../src/util/storage-uri.js'

t.test('SQLite: unset, empty, sqlite:// and a file', async (t) => {
  for (const v of [undefined, '', 'sqlite://']) t.same(parseStorageUri(v), { kind: 'sqlite', path: undefined, display: 'sqlite://' })
  t.same(parseStorageUri('sqlite:///var/lib/svc/svcd.db'), { kind: 'sqlite', path: '/var/lib/svc/svcd.db', display: 'sqlite:///var/lib/svc/svcd.db' })
  t.same(parseStorageUri('sqlite://other.db'), { kind: 'sqlite', path: 'other.db', display: 'sqlite://other.db' })
})

t.test('PostgreSQL: postgresql:// and postgres://, the password never in display', async (t) => {
  t.same(parseStorageUri('postgresql://svc@db.example.net:5432/svc'), { kind: 'postgres', uri: 'postgresql://svc@db.example.net:5432/svc', display: 'postgresql://svc@db.example.net:5432/svc' })
  const p = parseStorageUri('postgres://svc:s3cret@127.0.0.1/svc?sslmode=require')
  t.equal(p.kind, 'postgres')
  t.equal(p.display, 'postgres://svc:***@127.0.0.1/svc?sslmode=require')
  t.same(parseStorageUri('postgresql:///svc?host=/run/postgresql').kind, 'postgres', 'a socket directory instead of a host')
  // Issue 22 defect 10: a password in the query string (libpq's password= and sslpassword=) is not shown either.
  const q = parseStorageUri('postgresql://svc@db.example.net/svc?sslmode=require&password=s3cret&sslpassword=k3y%20pw&application_name=a%20b')
  t.equal(q.display, 'postgresql://svc@db.example.net/svc?sslmode=require&password=***&sslpassword=***&application_name=a%20b')
  t.equal(q.kind === 'postgres' && q.uri, 'postgresql://svc@db.example.net/svc?sslmode=require&password=s3cret&sslpassword=k3y%20pw&application_name=a%20b', 'the URI used to connect keeps it')
  t.equal(parseStorageUri('postgresql://svc:a@db/svc?PASSWORD=b').display, 'postgresql://svc:***@db/svc?PASSWORD=***', 'both places, any case')
  t.notMatch(parseStorageUri('postgresql:///svc?host=/run/postgresql&password=s3cret').display, /s3cret/)
})

t.test('refusals say what is wrong and which forms are understood, without echoing a password', async (t) => {
  t.throws(() => parseStorageUri('mysql://u:pw@h/db'), /scheme 'mysql' is not supported: use sqlite:\/\/<file> or postgresql:\/\//)
  t.throws(() => parseStorageUri('/var/lib/svc.db'), /has no scheme/)
  t.throws(() => parseStorageUri('postgresql://u:pw@h:5432'), /storage URI 'postgresql:\/\/u:\*\*\*@h:5432' names no database/)
  t.throws(() => parseStorageUri('postgresql://u:pw@h:5432/a/b'), /names no database/)
  t.throws(() => parseStorageUri('postgresql:///svc'), /names no host/)
  t.throws(() => parseStorageUri('postgresql://u@h:5432?password=s3cret'), { message: /^(?!.*s3cret).*names no database/ }, 'a query password is not echoed in a refusal')
  for (const bad of ['postgresql://u:pw@h:99999/db', 'postgresql://u:pw@h:0x/db']) {
    const message = (() => {
      try {
        parseStorageUri(bad)
        return 'accepted'
      } catch (e) {
        return (e as Error).message
      }
    })()
    t.match(message, /storage URI/, `${bad.replace('pw', '…')} refused`)
    t.notMatch(message, /pw/, 'without the password')
  }
})

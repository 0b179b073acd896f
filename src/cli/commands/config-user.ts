/**
 * `svcc config user` (Krill's `krillc config user`): an `[auth_users]` entry for svcd's config file, for
 * `auth_type = "config-file"`. Asks for the password twice without echo on a terminal (reads it from standard input
 * otherwise: the first line, and the second must repeat it when there is one), draws a random salt and prints the
 * TOML to paste, hashed in Krill's scheme (crypto/password-hash.ts) so that Krill and svcd read the same entry. It
 * contacts no server. The role is `--role R` (svcc's) or `-a role=R` (Krill 0.14's attribute form).
 */
import { randomBytes } from 'node:crypto'
import { krillPasswordHash, PASSWORD_SALT_BYTES } from '../../crypto/password-hash.js'
import { option, required, type CommandDef, type CommandOptions } from '../command.js'
import { UsageError } from '../report.js'

export const configUserCommands: CommandDef[] = [
  {
    path: ['config', 'user'],
    summary: 'Print an [auth_users] entry (password hash and salt) for a user of auth_type = "config-file"; asks for the password',
    options: [
      required('--id <id>', 'the user id (what the user types as the user name), e.g. joe@example.com'),
      option('--role <role>', 'the role of the user: admin, readwrite, readonly or one of [auth_roles]'),
      option('-a, --attribute <key=value>', "Krill's form of the role: -a role=readonly"),
    ],
    async run(ctx, opts) {
      const id = String(opts.id)
      if (id.trim() === '' || id.includes('\n')) throw new UsageError('--id must be a non-empty user id on one line')
      const role = roleOf(opts)
      const password = await readPassword(ctx.readStdin)
      const salt = randomBytes(PASSWORD_SALT_BYTES)
      const hash = await krillPasswordHash(id, password, salt)
      const entry = { role, password_hash: hash.toString('hex'), salt: salt.toString('hex') }
      const text = `[auth_users]\n${toml(id)} = { role = ${toml(role)}, password_hash = ${toml(entry.password_hash)}, salt = ${toml(entry.salt)} }`
      return { text, json: { id, ...entry } }
    },
  },
]

/** `--role R` or `-a role=R` (one of them). */
function roleOf(opts: CommandOptions): string {
  const attribute = opts.attribute === undefined ? undefined : String(opts.attribute)
  let fromAttribute: string | undefined
  if (attribute !== undefined) {
    const m = /^role=(.+)$/.exec(attribute)
    if (!m) throw new UsageError(`-a '${attribute}' is not understood: the one attribute is the role, -a role=<role>`)
    fromAttribute = m[1]
  }
  const role = opts.role === undefined ? fromAttribute : String(opts.role)
  if (role === undefined || role.trim() === '') throw new UsageError('no role given: use --role <role> (or -a role=<role>), e.g. --role readonly')
  if (fromAttribute !== undefined && opts.role !== undefined && fromAttribute !== role) throw new UsageError(`--role '${role}' and -a role=${fromAttribute} disagree`)
  return role
}

/** The password: asked twice on a terminal, else read from standard input. Empty or different → exit code 1. */
async function readPassword(readStdin: () => string): Promise<string> {
  let first: string
  let second: string | undefined
  if (process.stdin.isTTY) {
    first = await askHidden('Enter the password: ')
    second = await askHidden('Enter it again: ')
  } else {
    const lines = readStdin().split(/\r?\n/)
    first = lines[0] ?? ''
    second = lines.length > 1 && lines[1] !== '' ? lines[1] : undefined
  }
  if (first.trim() === '') throw new Error('the password is empty: nothing printed')
  if (second !== undefined && second !== first) throw new Error('the two passwords differ: nothing printed')
  return first
}

/** One line typed on the terminal without echo (raw mode); Ctrl-C or Ctrl-D gives up. */
function askHidden(prompt: string): Promise<string> {
  const input = process.stdin
  input.setRawMode(true) // before the prompt: what is typed once it shows is never echoed
  process.stderr.write(prompt)
  return new Promise((resolve, reject) => {
    let line = ''
    const done = (f: () => void) => {
      input.setRawMode(false)
      input.pause()
      input.off('data', onData)
      process.stderr.write('\n')
      f()
    }
    const onData = (chunk: Buffer) => {
      for (const c of chunk.toString('utf8')) {
        if (c === '\r' || c === '\n') return done(() => resolve(line))
        if (c === '\u0003' || c === '\u0004') return done(() => reject(new Error('no password given: nothing printed')))
        if (c === '\u007f' || c === '\b') line = line.slice(0, -1)
        else if (c >= ' ') line += c
      }
    }
    input.resume()
    input.on('data', onData)
  })
}

/** A TOML basic string (JSON's escapes are TOML's). */
function toml(s: string): string {
  return JSON.stringify(s)
}

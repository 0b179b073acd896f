/**
 * `svcc tokens add|list|revoke`: scoped API tokens (beyond Krill; api/tokens.ts). `add` prints the secret once: as
 * text the secret alone on the first line (for scripts: `TOKEN=$(svcc tokens add … | head -1)`), then what the
 * token may do; `--format json` prints the whole answer. Several CAs: `--cas ca1,ca2` (`-c/--ca` is svcc's global
 * option and takes one CA; SVC_CLI_MY_CA never limits a token).
 */
import type { AddTokenJson, TokenJson } from '../../api/tokens.js'
import { calls } from '../../client/calls.js'
import { LOCAL_HANDLE } from '../../util/handle.js'
import { action, option, required, view, type CommandDef, type CommandOptions } from '../command.js'
import { UsageError } from '../report.js'
import type { CliContext } from '../args.js'

const DAY_MS = 86_400_000

export const tokensCommands: CommandDef[] = [
  {
    path: ['tokens', 'add'],
    summary: 'Create an API token (its secret is shown this once); its role no wider than yours',
    options: [
      required('--name <name>', 'name of the token: 1 to 64 of A-Z, a-z, 0-9, ".", "_", "-"'),
      option('--role <role>', 'a configured role: admin, readwrite, readonly, or one of [auth_roles]'),
      option('--permissions <list>', 'or permissions, comma-separated, e.g. routes-read,routes-update (shortcuts any, read, update)'),
      option('--cas <list>', 'limit the token to these CAs, comma-separated (or -c/--ca for one)'),
      option('--expires <time>', 'when it expires, ISO 8601, e.g. 2027-01-01T00:00:00Z (at most 400 days; default 90 days)'),
      option('--days <n>', 'or: expires after this many days'),
    ],
    async run(ctx, opts) {
      const made = await ctx.send(calls.tokenAdd(addBody(ctx, opts)))
      return { json: made, text: [made.token, `id: ${made.id}`, ...describe(made), 'The secret above is shown only now: keep it safe.'].join('\n') }
    },
  },
  view(['tokens', 'list'], 'List API tokens: yours (all of them with the admin token), with their last use; never a secret', [], () => calls.tokenList(), (list) => listText(list.tokens)),
  { ...action(['tokens', 'revoke'], 'Revoke an API token (by its id): refused at once on every instance', [], (ctx, opts, args) => calls.tokenRevoke(tokenId(args[0]))), args: '<id>' },
]

function addBody(ctx: CliContext, opts: CommandOptions): AddTokenJson {
  const name = String(opts.name)
  const role = typeof opts.role === 'string' ? opts.role : undefined
  const permissions = typeof opts.permissions === 'string' ? list(opts.permissions, '--permissions') : undefined
  if ((role === undefined) === (permissions === undefined)) throw new UsageError('give either --role or --permissions')
  const flag = ctx.caFlag()
  const cas = [...new Set([...(flag === undefined ? [] : [flag]), ...(typeof opts.cas === 'string' ? list(opts.cas, '--cas') : [])])]
  const bad = cas.find((c) => !LOCAL_HANDLE.test(c))
  if (bad !== undefined) throw new UsageError(`'${bad}' is not a CA name: use only a-z, A-Z, 0-9, '-' and '_'`)
  if (opts.expires !== undefined && opts.days !== undefined) throw new UsageError('give --expires or --days, not both')
  let expires: string | undefined
  if (typeof opts.expires === 'string') expires = opts.expires
  if (typeof opts.days === 'string') {
    if (!/^[0-9]{1,4}$/.test(opts.days) || Number(opts.days) < 1) throw new UsageError(`--days '${opts.days}' is not a number of days`)
    expires = new Date(ctx.now() + Number(opts.days) * DAY_MS).toISOString()
  }
  return { name, ...(role === undefined ? {} : { role }), ...(permissions === undefined ? {} : { permissions }), ...(cas.length ? { cas } : {}), ...(expires === undefined ? {} : { expires }) }
}

function list(text: string, flag: string): string[] {
  const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '')
  if (items.length === 0) throw new UsageError(`${flag} is empty`)
  return items
}

function tokenId(id: string | undefined): string {
  if (id === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new UsageError(`'${id ?? ''}' is not a token id (the 16 characters after svct_; svcc tokens list shows them)`)
  return id
}

function describe(t: TokenJson): string[] {
  return [
    `name: ${t.name}`,
    `owner: ${t.owner} (${t.owner_provider})`,
    `role: ${t.role}: ${t.permissions.join(', ')}`,
    `cas: ${t.cas === null ? 'all' : t.cas.join(', ')}`,
    `expires: ${t.expires ?? 'never'}`,
  ]
}

function listText(tokens: TokenJson[]): string {
  if (tokens.length === 0) return 'no API tokens'
  const state = (t: TokenJson) => (t.revoked ? `revoked ${t.revoked}` : `expires ${t.expires ?? 'never'}`)
  return ['id,name,owner,role,cas,last used,state', ...tokens.map((t) => [t.id, t.name, `${t.owner} (${t.owner_provider})`, t.role, t.cas === null ? 'all' : t.cas.join(' '), t.last_used ?? 'never', state(t)].join(','))].join('\n')
}

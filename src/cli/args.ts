/**
 * svcc's global options and their environment variables (spec §4.1 rules 1–5): an argument beats the variable,
 * a missing value gives a friendly message naming both, SVC_CLI_SERVER must be https://<host:port>/, and a CA
 * name may only hold a-z, A-Z, 0-9, '-' and '_'.
 */
import { readFileSync } from 'node:fs'
import { LOCAL_HANDLE } from '../util/handle.js'
import { parseUri } from '../util/uri.js'
import { ApiClient, type ApiCall } from '../client/api-client.js'
import type { Clock } from '../util/clock.js'
import { ApiPrinted, FORMATS, UsageError, type Format } from './report.js'

export interface GlobalOptions {
  api?: boolean
  ca?: string
  format?: string
  server?: string
  token?: string
}

/** Everything a command needs: resolved globals, the client, and I/O. */
export class CliContext {
  readonly format: Format
  readonly api: boolean
  private clientCache: ApiClient | undefined

  constructor(
    private readonly globals: GlobalOptions,
    private readonly env: NodeJS.ProcessEnv,
    readonly out: (s: string) => void,
    readonly readStdin: () => string,
    private readonly clock: Pick<Clock, 'setTimeout' | 'now'>,
  ) {
    this.format = resolveFormat(globals.format, env.SVC_CLI_FORMAT)
    this.api = globals.api === true || ['1', 'true', 'yes'].includes((env.SVC_CLI_API ?? '').toLowerCase())
  }

  /** The CA to control: `-c/--ca`, else SVC_CLI_MY_CA. */
  ca(): string {
    const value = this.globals.ca ?? this.env.SVC_CLI_MY_CA
    const source = this.globals.ca !== undefined ? '--ca' : 'SVC_CLI_MY_CA'
    if (value === undefined || value === '') throw new UsageError('no CA given: use -c/--ca <name> or set SVC_CLI_MY_CA')
    if (!LOCAL_HANDLE.test(value)) throw new UsageError(`${source} '${value}' is not a valid CA name: use only a-z, A-Z, 0-9, '-' and '_' (at most 255)`)
    return value
  }

  /** The CA given with -c/--ca on the command line only (not SVC_CLI_MY_CA): `tokens add` limits a token to it. */
  caFlag(): string | undefined {
    return this.globals.ca
  }

  /** The client's time, in milliseconds since the epoch (`tokens add --days`). */
  now(): number {
    return this.clock.now()
  }

  /** True when a CA was given (argument or environment): commands that work on one CA or all CAs. */
  hasCa(): boolean {
    return (this.globals.ca ?? this.env.SVC_CLI_MY_CA ?? '') !== ''
  }

  /** The API client for the configured server and token. */
  client(): ApiClient {
    if (!this.clientCache) this.clientCache = new ApiClient({ server: this.server(), token: this.token(), clock: this.clock })
    return this.clientCache
  }

  /** Send a call, or with `--api` print it and stop without any network traffic. */
  async send<T>(call: ApiCall<T>): Promise<T> {
    if (this.api) {
      this.out(this.client().describe(call))
      throw new ApiPrinted()
    }
    return this.client().send(call)
  }

  /** Read a file named by an option; a problem is a usage error naming the option. */
  readFile(path: string, option: string): string {
    try {
      return readFileSync(path === '-' ? 0 : path, 'utf8')
    } catch (e) {
      throw new UsageError(`cannot read ${option} file '${path}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
    }
  }

  private server(): string {
    const value = this.globals.server ?? this.env.SVC_CLI_SERVER
    const source = this.globals.server !== undefined ? '--server' : 'SVC_CLI_SERVER'
    if (value === undefined || value === '') {
      throw new UsageError('no server given: use -s/--server https://<host>:<port>/ or set SVC_CLI_SERVER (e.g. https://localhost:3000/)')
    }
    const problem = serverProblem(value)
    if (problem) throw new UsageError(`${source} '${value}' is invalid: ${problem}; it must have the form https://<host:port>/, e.g. https://localhost:3000/`)
    return value
  }

  private token(): string {
    const value = this.globals.token ?? this.env.SVC_CLI_TOKEN
    if (value === undefined || value === '') {
      throw new UsageError('no token given: use -t/--token <token> or set SVC_CLI_TOKEN (svcd writes a generated one to <data_dir>/admin_token)')
    }
    return value
  }
}

/** Spec §4.1 rule 1: https, a host and optional port, and a path of exactly '/'. */
export function serverProblem(value: string): string | undefined {
  let p
  try {
    p = parseUri(value)
  } catch (e) {
    return (e as Error).message.replace(/^[^:]*: /, '')
  }
  if (p.scheme !== 'https') return `the scheme is '${p.scheme}', not https`
  if (p.path !== '/') return p.path === '' ? "it must end with '/'" : 'it must not have a path'
  return undefined
}

function resolveFormat(arg: string | undefined, env: string | undefined): Format {
  const value = arg ?? env ?? 'text'
  if (!(FORMATS as readonly string[]).includes(value)) {
    throw new UsageError(`${arg !== undefined ? '--format' : 'SVC_CLI_FORMAT'} '${value}' is invalid: use one of ${FORMATS.join(', ')}`)
  }
  return value as Format
}

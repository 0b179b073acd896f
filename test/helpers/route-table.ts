/**
 * The route table of svcd's Koa app, as `METHOD /path` lines: the routers' layers (`:p` written `{p}`, HEAD left
 * out, a trailing / dropped) and the RRDP middleware as `GET /rrdp/{file}`. test/unit/openapi.test.ts runs this file
 * in a child process without type checking (`routeTable()`), because tap's type-checking loader resolves
 * @koa/router's CommonJS typings for ESM files and refuses the routers (tsc accepts them).
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Config } from '../../src/config.js'
import type { HttpServices } from '../../src/http/app.js'
import { ROOT } from './paths.js'

type Middleware = { name: string; router?: { stack: { path: string | RegExp; methods: string[] }[] } }

/** Build the app as svcd does (no service is called) and list what it serves. */
async function listRoutes(): Promise<string[]> {
  const { createApp } = await import('../../src/http/app.js')
  const { silentLogger } = await import('../../src/log.js')
  const { systemClock } = await import('../../src/clock.js')
  const { addressSource } = await import('../../src/resources/address-source.js')
  const config = { post_limit_api: 1024, post_limit_rfc6492: 1024, post_limit_rfc8181: 1024 } as Config
  const app = createApp({ services: {} as HttpServices, config, log: silentLogger(), clock: systemClock, addressSource })
  const served = new Set<string>()
  for (const mw of app.middleware as Middleware[]) {
    if (mw.name === 'rrdp') served.add('GET /rrdp/{file}')
    for (const layer of mw.router?.stack ?? []) {
      if (typeof layer.path !== 'string') throw new Error(`a route with a RegExp path cannot be checked: ${String(layer.path)}`)
      const path = layer.path.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/(.)\/$/, '$1')
      for (const m of layer.methods) if (m !== 'HEAD') served.add(`${m} ${path}`)
    }
  }
  return [...served].sort()
}

/** The route table, computed in a child process (transpile only). */
export function routeTable(): string[] {
  const loader = '@isaacs/ts-node-temp-fork-for-pr-2009/esm'
  const r = spawnSync(process.execPath, ['--no-warnings', '--loader', loader, fileURLToPath(import.meta.url)], { cwd: ROOT, env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1' }, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`route table failed (${r.status}): ${r.stderr}`)
  return JSON.parse(r.stdout) as string[]
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(JSON.stringify(await listRoutes()) + '\n')
}

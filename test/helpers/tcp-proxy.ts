/**
 * A TCP load balancer for tests of several svcd instances (issue 14): one stable loopback address in front of the
 * instances, as an operator's load balancer is, so that the TAL, the RRDP notification and the snapshot URIs (which
 * all name one host and port) reach whichever instance the test chooses. TLS passes through untouched: every
 * instance is given the same certificate. New connections go to the current target; connections are counted per
 * target, so a test can show which instance served a relying party. It runs in a process of its own
 * (tcp-proxy.mjs): relying parties run with spawnSync, which blocks the test's own event loop.
 */
import { fork } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from './paths.js'

export interface TcpProxy {
  port: number
  /** Send new connections to this loopback port. */
  route(target: number): Promise<void>
  /** Connections accepted so far, per target port. */
  connections(): Promise<Map<number, number>>
  close(): void
}

export async function startTcpProxy(t: { teardown(fn: () => unknown): void }, port: number, target: number): Promise<TcpProxy> {
  const child = fork(join(ROOT, 'test', 'helpers', 'tcp-proxy.mjs'), [String(port), String(target)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const close = () => {
    if (child.connected) child.disconnect()
    child.kill()
  }
  t.teardown(close)
  const next = () => new Promise<{ counts?: Record<string, number>; listening?: number }>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the TCP proxy exited (${code})`))
    child.once('exit', onExit)
    child.once('message', (m) => {
      child.off('exit', onExit)
      resolve(m as { counts?: Record<string, number> })
    })
  })
  await next()
  const ask = async (m: object) => {
    const answer = next()
    child.send(m)
    return new Map(Object.entries((await answer).counts ?? {}).map(([k, v]) => [Number(k), v]))
  }
  return {
    port,
    async route(to: number) {
      await ask({ target: to })
    },
    connections: () => ask({ counts: true }),
    close,
  }
}

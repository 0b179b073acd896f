/**
 * A TCP load balancer for tests of several svcd instances (issue 14): one stable loopback address in front of the
 * instances, as an operator's load balancer is, so that the TAL, the RRDP notification and the snapshot URIs (which
 * all name one host and port) reach whichever instance the test chooses. TLS passes through untouched: every
 * instance is given the same certificate. Connections go to `target` at the moment they are accepted; each accepted
 * connection is counted per target port, so a test can show which instance served a relying party.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  port: number
  /** The loopback port new connections are forwarded to. */
  target: number
  /** Connections accepted so far, per target port. */
  readonly connections: Map<number, number>
  close(): Promise<void>
}

export async function startTcpProxy(t: { teardown(fn: () => unknown): void }, port: number, target: number): Promise<TcpProxy> {
  const open = new Set<Socket>()
  const connections = new Map<number, number>()
  const proxy: TcpProxy = { port, target, connections, close }
  const server: Server = createServer((client) => {
    const to = proxy.target
    connections.set(to, (connections.get(to) ?? 0) + 1)
    const upstream = connect({ host: '127.0.0.1', port: to })
    for (const s of [client, upstream]) {
      open.add(s)
      s.once('close', () => open.delete(s))
      // A peer that goes away (an instance killed with -9) ends both sides; the client sees the connection drop.
      s.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  function close(): Promise<void> {
    for (const s of open) s.destroy()
    return new Promise((resolve) => server.close(() => resolve()))
  }
  t.teardown(close)
  return proxy
}

/**
 * A loopback TCP relay to a port (used by the parents-dead scenario and the parents bench): it forwards until `hang()`,
 * after which it accepts new connections and never answers them (counted by `hung()`); `close()` refuses them.
 */
import net from 'node:net'

export interface TcpRelay {
  port: number
  hung: () => number
  hang: () => void
  close: () => Promise<void>
}

export async function tcpRelay(target: number): Promise<TcpRelay> {
  let hanging = false
  let hung = 0
  const sockets = new Set<net.Socket>()
  const track = (s: net.Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
    s.on('error', () => s.destroy())
  }
  const server = net.createServer((s) => {
    track(s)
    if (hanging) return void hung++
    const up = net.connect(target, '127.0.0.1')
    track(up)
    up.on('close', () => s.destroy())
    s.on('close', () => up.destroy())
    s.pipe(up).pipe(s)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const drop = () => sockets.forEach((s) => s.destroy())
  return {
    port: (server.address() as net.AddressInfo).port,
    hung: () => hung,
    hang: () => ((hanging = true), drop()),
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), drop())),
  }
}

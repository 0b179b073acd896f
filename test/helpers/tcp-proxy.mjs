// The TCP load balancer of test/helpers/tcp-proxy.ts, in a process of its own: a test that runs a relying party
// with spawnSync blocks its own event loop, so an in-process proxy would forward nothing meanwhile. Started with
// fork(); argv: listen port, first target port. IPC: { target } sets where new connections go, { counts: true }
// asks for the connections accepted per target; each is answered with { counts }.
import { connect, createServer } from 'node:net'

const [port, first] = process.argv.slice(2).map(Number)
let target = first
const counts = {}
const server = createServer((client) => {
  const to = target
  counts[to] = (counts[to] ?? 0) + 1
  const upstream = connect({ host: '127.0.0.1', port: to })
  for (const s of [client, upstream]) s.on('error', () => { client.destroy(); upstream.destroy() })
  client.pipe(upstream)
  upstream.pipe(client)
})
server.listen(port, '127.0.0.1', () => process.send({ listening: port }))
process.on('message', (m) => {
  if (typeof m.target === 'number') target = m.target
  process.send({ counts })
})
process.on('disconnect', () => process.exit(0))

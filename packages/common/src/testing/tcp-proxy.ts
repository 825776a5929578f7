import { connect, createServer, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number
  /** A URL like `url` with its host and port replaced by the proxy's. */
  via(url: string): string
  /**
   * An outage: `refuse` closes every connection and refuses new ones (the server stopped), `blackhole`
   * keeps accepting but forwards nothing either way (the network dropped every packet).
   */
  cut(mode?: 'refuse' | 'blackhole'): Promise<void>
  restore(): Promise<void>
  close(): Promise<void>
}

/**
 * A TCP proxy in front of a server (PostgreSQL in the outage tests) that a test can cut and restore,
 * so that it controls its own database path without stopping the shared server.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>()
  let mode: 'open' | 'refuse' | 'blackhole' = 'open'
  let server: Server | undefined
  let port = 0

  const onConnection = (client: Socket) => {
    if (mode === 'blackhole') {
      // Held open and silent until the outage ends, then dropped.
      client.pause()
      pairs.add([client, client])
      return
    }
    const upstream = connect(target.port, target.host)
    const pair: [Socket, Socket] = [client, upstream]
    pairs.add(pair)
    const drop = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    client.pipe(upstream)
    upstream.pipe(client)
  }

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer(onConnection)
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        const address = server!.address()
        if (address && typeof address === 'object') port = address.port
        resolve()
      })
    })
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve()
      server.close(() => resolve())
      server = undefined
    })
  const dropAll = () => {
    for (const [a, b] of pairs) {
      a.destroy()
      b.destroy()
    }
    pairs.clear()
  }

  await listen()
  return {
    get port() {
      return port
    },
    via(url: string) {
      const parsed = new URL(url)
      parsed.hostname = '127.0.0.1'
      parsed.port = String(port)
      return parsed.toString()
    },
    async cut(how = 'refuse') {
      mode = how
      if (how === 'refuse') {
        dropAll()
        await stopListening()
        return
      }
      // Existing connections stop forwarding: their pipes are cut and their sockets left open.
      for (const [a, b] of pairs) {
        a.unpipe()
        b.unpipe()
        a.pause()
        b.pause()
      }
    },
    async restore() {
      if (mode === 'open') return
      const was = mode
      mode = 'open'
      dropAll()
      if (was === 'refuse') await listen()
    },
    async close() {
      mode = 'open'
      dropAll()
      await stopListening()
    },
  }
}

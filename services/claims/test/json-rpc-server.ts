import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeReceipt {
  to: string
  status: 0 | 1
}

/**
 * A tiny Ethereum JSON-RPC endpoint on loopback, for a real ethers JsonRpcProvider to talk to:
 * eth_chainId, eth_blockNumber and eth_getTransactionReceipt (null for hashes it does not know), batches
 * included. `fail` makes every call answer a JSON-RPC error, as a node that is down would.
 */
export async function startJsonRpcServer(chainId: number) {
  const receipts = new Map<string, FakeReceipt>()
  const calls: string[] = []
  let fail = false

  const answer = (request: { id: number; method: string; params?: unknown[] }) => {
    calls.push(request.method)
    if (fail) return { jsonrpc: '2.0', id: request.id, error: { code: -32000, message: 'node is down' } }
    const result = (() => {
      switch (request.method) {
        case 'eth_chainId':
          return `0x${chainId.toString(16)}`
        case 'eth_blockNumber':
          return '0x10'
        case 'eth_getTransactionReceipt': {
          const hash = String(request.params?.[0]).toLowerCase()
          const receipt = receipts.get(hash)
          return receipt ? receiptJson(hash, receipt) : null
        }
        default:
          return undefined
      }
    })()
    if (result === undefined) {
      return { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `no ${request.method}` } }
    }
    return { jsonrpc: '2.0', id: request.id, result }
  }

  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      const parsed = JSON.parse(body)
      const reply = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(reply))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    setReceipt: (hash: string, receipt: FakeReceipt) => receipts.set(hash.toLowerCase(), receipt),
    setFailing: (value: boolean) => {
      fail = value
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const receiptJson = (hash: string, receipt: FakeReceipt) => ({
  transactionHash: hash,
  transactionIndex: '0x0',
  blockHash: `0x${'b'.repeat(64)}`,
  blockNumber: '0xf',
  from: '0x00000000000000000000000000000000000000aa',
  to: receipt.to,
  contractAddress: null,
  cumulativeGasUsed: '0x5208',
  gasUsed: '0x5208',
  effectiveGasPrice: '0x3b9aca00',
  logs: [],
  logsBloom: `0x${'0'.repeat(512)}`,
  status: receipt.status === 1 ? '0x1' : '0x0',
  type: '0x2',
})

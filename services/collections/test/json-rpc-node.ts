import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Interface, toBeHex } from 'ethers'
import { COLLECTION_ABI, REGISTRY_ABI } from '../src/chain/chain-reader.js'

interface RpcRequest {
  jsonrpc: '2.0'
  id: number | string
  method: string
  params: unknown[]
}

/**
 * A small Ethereum JSON-RPC node on loopback, with the state a test gives it: code at addresses and
 * the receipts of the third-party registry. The service talks to it with a real ethers JsonRpcProvider.
 */
export class JsonRpcNode {
  readonly code = new Map<string, string>()
  /** `${thirdPartyId} ${messageHash}` → consumed quantity. */
  readonly receipts = new Map<string, bigint>()
  /** Collection contract address (lower-case) → its `isApproved()`; answered where code is set. */
  readonly approved = new Map<string, boolean>()
  readonly calls: { method: string; params: unknown[] }[] = []
  failing = false
  private server: Server | null = null
  private readonly registry = new Interface(REGISTRY_ABI)
  private readonly collection = new Interface(COLLECTION_ABI)

  constructor(
    readonly chainId: number,
    readonly registryAddress: string,
  ) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(
        (body) => {
          res.writeHead(this.failing ? 500 : 200, { 'content-type': 'application/json' })
          res.end(JSON.stringify(body))
        },
        () => {
          res.writeHead(400)
          res.end()
        },
      )
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }

  private async handle(req: IncomingMessage): Promise<unknown> {
    let raw = ''
    for await (const chunk of req) raw += chunk
    const payload = JSON.parse(raw) as RpcRequest | RpcRequest[]
    return Array.isArray(payload) ? payload.map((p) => this.answer(p)) : this.answer(payload)
  }

  private answer(request: RpcRequest) {
    this.calls.push({ method: request.method, params: request.params })
    const reply = (result: unknown) => ({ jsonrpc: '2.0', id: request.id, result })
    if (this.failing)
      return { jsonrpc: '2.0', id: request.id, error: { code: -32000, message: 'node is down' } }
    switch (request.method) {
      case 'eth_chainId':
        return reply(toBeHex(this.chainId))
      case 'eth_blockNumber':
        return reply('0x1')
      case 'eth_getCode': {
        const [address] = request.params as [string]
        return reply(this.code.get(address.toLowerCase()) ?? '0x')
      }
      case 'eth_call': {
        const [tx] = request.params as [{ to: string; data: string }]
        const to = tx.to.toLowerCase()
        if (to !== this.registryAddress.toLowerCase()) {
          // a collection contract: only where code is, like a real node (no code answers 0x)
          if (
            !this.code.has(to) ||
            this.collection.parseTransaction({ data: tx.data })?.name !== 'isApproved'
          )
            return reply('0x')
          return reply(this.collection.encodeFunctionResult('isApproved', [this.approved.get(to) ?? false]))
        }
        const call = this.registry.parseTransaction({ data: tx.data })
        if (call?.name !== 'receipts') return reply('0x')
        const [thirdPartyId, messageHash] = call.args as unknown as [string, string]
        const qty = this.receipts.get(`${thirdPartyId} ${messageHash}`) ?? 0n
        return reply(this.registry.encodeFunctionResult('receipts', [qty]))
      }
      default:
        return {
          jsonrpc: '2.0',
          id: request.id,
          error: { code: -32601, message: `method ${request.method} not found` },
        }
    }
  }
}

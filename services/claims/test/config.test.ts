import { ConfigError } from '@genesis/common'
import { describe, expect, it } from 'vitest'
import { loadConfig, parseRpcUrls } from '../src/config.js'

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({})
    expect(config.PORT).toBe(3001)
    expect(config.CLAIM_TTL_S).toBe(3600)
    expect(config.CLAIMS_CONFIRMATIONS).toBe(12)
    expect(config.CLAIMS_ADMIN_TOKEN).toBeUndefined()
    expect(config.rpcUrls.size).toBe(0)
  })

  it('reads RPC_URL_<chain_id> for the spec chains', () => {
    const urls = parseRpcUrls({
      RPC_URL_137: 'https://polygon.example/rpc',
      RPC_URL_1: 'http://127.0.0.1:8545',
      OTHER: 'x',
    })
    expect([...urls.entries()]).toEqual([
      ['137', 'https://polygon.example/rpc'],
      ['1', 'http://127.0.0.1:8545'],
    ])
  })

  it('lists every bad variable in one error', () => {
    let error: unknown
    try {
      loadConfig({
        CLAIM_TTL_S: 'soon',
        CLAIMS_ADMIN_TOKEN: 'short',
        RPC_URL_999: 'https://x',
        RPC_URL_5: 'ftp://x',
        CLAIMS_CONFIRMATIONS: '-1',
      })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    const problems = (error as ConfigError).problems.join('\n')
    expect(problems).toMatch(/CLAIM_TTL_S/)
    expect(problems).toMatch(/CLAIMS_ADMIN_TOKEN/)
    expect(problems).toMatch(/RPC_URL_999: chain "999"/)
    expect(problems).toMatch(/RPC_URL_5: the value must be an http\(s\) URL, not ftp/)
    expect(problems).toMatch(/CLAIMS_CONFIRMATIONS/)
  })

  it('RPC_URL_<chain_id> takes a comma-separated list of providers, and never prints a refused one', () => {
    const config = loadConfig({ RPC_URL_80002: 'http://127.0.0.1:8545, https://amoy.example/v2/key' })
    expect(config.rpcUrls.get('80002')).toBe('http://127.0.0.1:8545, https://amoy.example/v2/key')
    let error: unknown
    try {
      loadConfig({ RPC_URL_80002: 'https://user:s3cret@amoy.example/v2/k3y, ws://node.example' })
    } catch (e) {
      error = e
    }
    expect((error as ConfigError).problems).toEqual([
      'RPC_URL_80002: entry 2 of 2 must be an http(s) URL, not ws',
    ])
    expect((error as ConfigError).message).not.toMatch(/s3cret|k3y/)
  })
})

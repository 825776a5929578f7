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
    expect(problems).toMatch(/RPC_URL_5: must be an http\(s\) URL/)
    expect(problems).toMatch(/CLAIMS_CONFIRMATIONS/)
  })
})

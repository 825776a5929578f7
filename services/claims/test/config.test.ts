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

  it('a refused secret is named with what is wrong, never printed (a key file ending in a line break)', () => {
    const key = `0x${'4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'}`
    const refusal = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(env)
      } catch (error) {
        return (error as ConfigError).message
      }
      throw new Error('accepted')
    }
    const newline = refusal({ CLAIMS_SIGNER_PRIVATE_KEY: `${key}\n` })
    expect(newline).toMatch(
      /CLAIMS_SIGNER_PRIVATE_KEY: .*the value, not shown, has blanks or a line break around it/,
    )
    expect(newline).not.toContain(key.slice(2, 12))
    const short = refusal({ CLAIMS_SIGNER_PRIVATE_KEY: key.slice(0, 40), CLAIMS_ADMIN_TOKEN: 'tok3n' })
    expect(short).toMatch(/CLAIMS_SIGNER_PRIVATE_KEY: .*the value, not shown, has 40 characters/)
    expect(short).toMatch(/CLAIMS_ADMIN_TOKEN: .*the value, not shown, has 5 characters/)
    expect(short).not.toMatch(/4c0883a6|tok3n/)
    // A plain setting is still quoted, so an operator sees the typo.
    expect(refusal({ CLAIM_TTL_S: 'soon' })).toMatch(/CLAIM_TTL_S: .*got "soon"/)
  })
})

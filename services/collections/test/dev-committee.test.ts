import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet } from 'ethers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { committeeOf, DEV_COMMITTEE_KEY_FILE } from '../src/domain/dev-committee.js'

let dataDir: string
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'collections-committee-'))
})
afterEach(() => rm(dataDir, { recursive: true, force: true }))

describe('the committee', () => {
  it('is COMMITTEE_ADDRESSES when set', async () => {
    const addresses = '0x1111111111111111111111111111111111111111'
    expect(await committeeOf({ COMMITTEE_ADDRESSES: addresses, DATA_DIR: dataDir })).toEqual({
      addresses,
      source: 'env',
    })
  })

  it('on the embedded database outside production: one development member whose key is kept in DATA_DIR', async () => {
    const first = await committeeOf({ COMMITTEE_ADDRESSES: '', DATA_DIR: dataDir })
    expect(first.source).toBe('generated')
    const key = (await readFile(join(dataDir, DEV_COMMITTEE_KEY_FILE), 'utf8')).trim()
    expect(first.addresses).toBe(new Wallet(key).address.toLowerCase())
    expect((await stat(first.path!)).mode & 0o777).toBe(0o600)
    expect(await committeeOf({ COMMITTEE_ADDRESSES: ' ', DATA_DIR: dataDir })).toEqual({
      ...first,
      source: 'file',
    })
  })

  it('is empty in production or on a real database', async () => {
    await committeeOf({ COMMITTEE_ADDRESSES: '', DATA_DIR: dataDir })
    expect(await committeeOf({ COMMITTEE_ADDRESSES: '', DATA_DIR: dataDir, NODE_ENV: 'production' })).toEqual(
      {
        addresses: '',
        source: 'none',
      },
    )
    expect(
      await committeeOf({
        COMMITTEE_ADDRESSES: '',
        DATA_DIR: dataDir,
        DATABASE_URL: 'postgres://x@127.0.0.1/db',
      }),
    ).toEqual({ addresses: '', source: 'none' })
  })
})

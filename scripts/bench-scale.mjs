#!/usr/bin/env node
// `pnpm bench:scale [options]`: each service's scale bench (bench/scale.ts) in turn, the options passed
// on (`--small`, `--duration=…`, `--server=…`; each service's file lists its own). Not part of CI.
import { spawnSync } from 'node:child_process'

const services = ['@genesis/claims', '@genesis/collections']
const args = process.argv.slice(2)
let failed = false
for (const service of services) {
  const run = spawnSync('pnpm', ['--silent', '--filter', service, 'bench:scale', ...args], {
    stdio: 'inherit',
  })
  if (run.status !== 0) {
    console.error(`${service}: bench:scale exited with ${run.status ?? run.signal}`)
    failed = true
  }
}
process.exit(failed ? 1 : 0)

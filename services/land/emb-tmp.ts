import { formatEmbeddedMemory, runEmbeddedMemory } from './bench/embedded.js'
import { NODE_FLAGS } from './bench/harness.js'
import { loadavg } from 'node:os'
console.log('load', loadavg().map((n) => n.toFixed(1)).join(' / '))
console.log(formatEmbeddedMemory(await runEmbeddedMemory([...NODE_FLAGS, 'dist/server.js'], process.cwd())))
console.log('load', loadavg().map((n) => n.toFixed(1)).join(' / '))
process.exit(0)

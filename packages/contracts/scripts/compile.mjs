// Compiles src/solidity/*.sol with the pinned solc (npm, no download) and writes dist/artifacts/<Contract>.json:
// { contractName, abi, bytecode, deployedBytecode }. OpenZeppelin imports resolve from node_modules.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import solc from 'solc'

const root = new URL('..', import.meta.url).pathname
const sourcesDir = join(root, 'src/solidity')
const outDir = join(root, 'dist/artifacts')
const require = createRequire(import.meta.url)

const sources = Object.fromEntries(
  readdirSync(sourcesDir)
    .filter((f) => f.endsWith('.sol'))
    .sort()
    .map((f) => [f, { content: readFileSync(join(sourcesDir, f), 'utf8') }]),
)

const input = {
  language: 'Solidity',
  sources,
  settings: {
    evmVersion: 'cancun',
    optimizer: { enabled: true, runs: 200 },
    // No metadata hash in the bytecode: the init code (and so every collection's CREATE2 address) depends on
    // the code alone, not on comments or file paths.
    metadata: { bytecodeHash: 'none', appendCBOR: false },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
  },
}

const findImports = (path) => {
  try {
    return { contents: readFileSync(require.resolve(path), 'utf8') }
  } catch {
    return { error: `not found: ${path}` }
  }
}

const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }))
const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
for (const e of output.errors ?? []) console.error(e.formattedMessage)
if (errors.length > 0) process.exit(1)

mkdirSync(outDir, { recursive: true })
const written = []
for (const file of Object.keys(sources)) {
  for (const [contractName, contract] of Object.entries(output.contracts[file] ?? {})) {
    if (!contract.evm.bytecode.object) continue // interfaces
    const artifact = {
      contractName,
      abi: contract.abi,
      bytecode: `0x${contract.evm.bytecode.object}`,
      deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
    }
    writeFileSync(join(outDir, `${contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`)
    written.push(contractName)
  }
}
console.log(`solc ${solc.version()}: ${written.join(', ')} → dist/artifacts`)

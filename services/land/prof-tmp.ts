import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import autocannon from 'autocannon'
import { migrate } from '@genesis/common'
import { createTestDatabase } from '@genesis/common/testing'
import { migrationsDir } from './src/paths.js'
import { seed } from './src/seed.js'
const path = process.argv[2] ?? '/v2/tiles/info'
const db = await createTestDatabase()
await migrate(db.sql, migrationsDir); await seed(db.sql)
const sides = [['base', '/work/wt/base34/services/land/dist/server.js', 47132], ['this', '/work/main/services/land/dist/server.js', 47131]] as const
for (const [name, js, port] of sides) {
  const dir = `/tmp/prof/${name}`; mkdirSync(dir, { recursive: true })
  const child = spawn('taskset', ['-c', '1', 'node', '--single-threaded-gc', '--cpu-prof', `--cpu-prof-dir=${dir}`, js], { env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '65536', DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', LAND_AUTO_SEED: 'never' }, stdio: 'inherit' })
  for (;;) { try { const r = await fetch(`http://127.0.0.1:${port}/health/ready`); if (r.ok) break } catch {} ; await new Promise(r => setTimeout(r, 300)) }
  console.log(name, 'ready', await (await fetch(`http://127.0.0.1:${port}${path}`)).text())
  await new Promise(r => setTimeout(r, 3000))
  const r = await autocannon({ url: `http://127.0.0.1:${port}${path}`, connections: 10, duration: 15 })
  console.log(name, r.requests.average, r.non2xx)
  const exited = new Promise((res) => child.on('exit', res)); child.kill('SIGTERM'); await exited
  console.log(name, 'exited')
}
await db.drop(); process.exit(0)

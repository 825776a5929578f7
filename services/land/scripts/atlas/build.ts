// Bundles the Atlas view (scripts/atlas/page.ts, React and react-tile-map) with esbuild into dist/atlas-page/:
// run by `pnpm build` after tsc, and by the browser test. The bundle is built, never committed.
import { copyFile, mkdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const here = dirname(fileURLToPath(import.meta.url))
export const ATLAS_OUT_DIR = join(here, '..', '..', 'dist', 'atlas-page')

export async function buildAtlasPage(outdir = ATLAS_OUT_DIR): Promise<void> {
  await mkdir(outdir, { recursive: true })
  await build({
    entryPoints: { atlas: join(here, 'page.ts') },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  })
  await copyFile(join(here, 'index.html'), join(outdir, 'index.html'))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildAtlasPage()

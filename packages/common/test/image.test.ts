import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { imageRuntime } from '../src/testing/image.js'

function dockerfile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'image-runtime-')), 'Dockerfile')
  writeFileSync(path, text)
  return path
}

describe('imageRuntime', () => {
  it("reads the repository's image: its command's Node flags and its allocator settings", () => {
    expect(imageRuntime()).toEqual({
      nodeFlags: [
        '--single-threaded-gc',
        '--max-semi-space-size=8',
        '--min-semi-space-size=8',
        '--max-valid-polymorphic-map-count=32',
      ],
      env: { MALLOC_MMAP_THRESHOLD_: '65536' },
    })
  })

  it("takes the last stage's only, with continued lines, quotes and several settings in one ENV", () => {
    const path = dockerfile(
      [
        'FROM node:20 AS build',
        'ENV MALLOC_ARENA_MAX=8',
        'CMD ["node", "--build-only", "x.js"]',
        'FROM node:20 AS runtime',
        '# ENV MALLOC_COMMENTED=1',
        'ENV NODE_ENV=production \\',
        '    MALLOC_ARENA_MAX="2" \\',
        '    MALLOC_MMAP_THRESHOLD_=65536',
        'CMD ["node", "--single-threaded-gc", "dist/server.js"]',
      ].join('\n'),
    )
    expect(imageRuntime(path)).toEqual({
      nodeFlags: ['--single-threaded-gc'],
      env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536' },
    })
  })

  it('refuses an image whose command is not node with an entry', () => {
    expect(() => imageRuntime(dockerfile('FROM node:20\nCMD ["npm", "start"]\n'))).toThrow(/CMD is not/)
    expect(() => imageRuntime(dockerfile('FROM node:20\n'))).toThrow(/CMD is not/)
  })
})

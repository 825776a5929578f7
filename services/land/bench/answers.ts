/**
 * The cached reads bench/run.ts measures against bare Fastify, and the answers both baselines serve: the
 * very bytes and content type the service sent for each path, recorded once (answers.json in `dir`).
 * bench/bare-server.ts and bench/kit-server.ts read that file, so every path measured here is served by
 * all three servers.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface RecordedAnswer {
  path: string
  file: string
  type: string
  bytes: number
}

/**
 * Every read a client repeats and the service answers from memory: a parcel, the districts and one of
 * them, the default PNG map, the explorers' parcel view and estate map, atlas-server's ping and district.
 */
export async function cachedReads(serviceUrl: string): Promise<string[]> {
  const districts = (await (await fetch(`${serviceUrl}/districts`)).json()) as { data: Array<{ id: string }> }
  const district = districts.data[0]?.id
  if (!district) throw new Error('the service lists no district')
  return [
    '/parcels/0/0',
    '/districts',
    `/v2/districts/${district}`,
    '/map.png',
    '/v1/minimap.png',
    '/v1/estatemap.png',
    '/v2/ping',
  ]
}

export async function recordAnswers(
  serviceUrl: string,
  paths: string[],
  dir: string,
): Promise<RecordedAnswer[]> {
  const answers: RecordedAnswer[] = []
  for (const [i, path] of paths.entries()) {
    const response = await fetch(`${serviceUrl}${path}`)
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`)
    const body = Buffer.from(await response.arrayBuffer())
    const file = `answer-${i}`
    writeFileSync(join(dir, file), body)
    answers.push({
      path,
      file,
      type: response.headers.get('content-type') ?? 'application/octet-stream',
      bytes: body.length,
    })
  }
  writeFileSync(join(dir, 'answers.json'), JSON.stringify(answers))
  return answers
}

/** The recorded answers, each with its bytes, for a baseline server. */
export function readAnswers(dir: string): Array<RecordedAnswer & { body: Buffer }> {
  const answers = JSON.parse(readFileSync(join(dir, 'answers.json'), 'utf8')) as RecordedAnswer[]
  return answers.map((answer) => ({ ...answer, body: readFileSync(join(dir, answer.file)) }))
}

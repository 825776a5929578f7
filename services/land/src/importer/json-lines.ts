/**
 * JSON.parse says nothing about where a value was, but an import error must name its line. This scanner
 * finds the line on which each element starts: of the root array, or of each array under a key of the
 * root object (`{ "parcels": [...] }`).
 */
export interface ElementLines {
  root: number[]
  byKey: Map<string, number[]>
}

interface Frame {
  kind: 'array' | 'object'
  /** Where element start lines go (only for the arrays we report on). */
  lines?: number[]
  awaitingElement: boolean
  expectingKey: boolean
  lastKey?: string
}

export function elementLines(text: string): ElementLines {
  const result: ElementLines = { root: [], byKey: new Map() }
  const stack: Frame[] = []
  let line = 1
  let i = 0
  while (i < text.length) {
    const c = text[i] as string
    if (c === '\n') {
      line++
      i++
      continue
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++
      continue
    }
    const top = stack[stack.length - 1]
    if (top?.kind === 'array' && top.awaitingElement && c !== ']') {
      top.awaitingElement = false
      top.lines?.push(line)
    }
    if (c === '"') {
      let j = i + 1
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1
      if (top?.kind === 'object' && top.expectingKey) {
        try {
          top.lastKey = JSON.parse(text.slice(i, j + 1)) as string
        } catch {
          top.lastKey = undefined
        }
      }
      i = j + 1
      continue
    }
    switch (c) {
      case '[': {
        let lines: number[] | undefined
        if (stack.length === 0) lines = result.root
        else if (stack.length === 1 && top?.kind === 'object' && top.lastKey !== undefined) {
          lines = []
          result.byKey.set(top.lastKey, lines)
        }
        stack.push({ kind: 'array', lines, awaitingElement: true, expectingKey: false })
        break
      }
      case '{':
        stack.push({ kind: 'object', awaitingElement: false, expectingKey: true })
        break
      case ']':
      case '}':
        stack.pop()
        break
      case ',':
        if (top?.kind === 'array') top.awaitingElement = true
        else if (top) top.expectingKey = true
        break
      case ':':
        if (top) top.expectingKey = false
        break
    }
    i++
  }
  return result
}

/** The 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === '\n') line++
  return line
}

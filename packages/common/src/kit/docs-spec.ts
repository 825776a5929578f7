import { randomUUID } from 'node:crypto'

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null

/**
 * The security schemes no route uses, removed: a service with no signed or bearer route must not show an
 * Authorize button in /docs. The spec is the one @fastify/swagger built; changed in place.
 */
export function withUsedSecuritySchemes<T extends Json>(spec: T): T {
  const components = spec.components
  if (!isObject(components) || !isObject(components.securitySchemes)) return spec
  const used = new Set<string>()
  for (const path of Object.values(isObject(spec.paths) ? spec.paths : {}))
    for (const operation of Object.values(isObject(path) ? path : {}))
      if (isObject(operation) && Array.isArray(operation.security))
        for (const requirement of operation.security)
          if (isObject(requirement)) for (const name of Object.keys(requirement)) used.add(name)
  const schemes = Object.fromEntries(
    Object.entries(components.securitySchemes).filter(([name]) => used.has(name)),
  )
  if (Object.keys(schemes).length === 0) delete components.securitySchemes
  else components.securitySchemes = schemes
  return spec
}

/**
 * Every uuid field of the spec given a fresh example, each time /docs loads it: "Try it out" would otherwise
 * send swagger-ui's one fixed uuid, and a second reader's grant or collection would then collide with the
 * first one's.
 */
export function withFreshUuidExamples<T extends Json>(spec: T): T {
  const visit = (node: unknown) => {
    if (Array.isArray(node)) for (const item of node) visit(item)
    else if (isObject(node)) {
      if (node.type === 'string' && node.format === 'uuid') node.example = randomUUID()
      for (const value of Object.values(node)) visit(value)
    }
  }
  visit(spec.paths)
  visit(spec.components)
  return spec
}

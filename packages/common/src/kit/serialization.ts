import fastJsonStringify from 'fast-json-stringify'
import type { FastifyInstance } from 'fastify'

type Node = Record<string, unknown>

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const isNull = (member: unknown) => isNode(member) && member.type === 'null'

/** The one type of every member, when they all have the same single type. */
function sharedType(members: readonly Node[]): string | undefined {
  const type = members[0]?.type
  return typeof type === 'string' && members.every((member) => member.type === type) ? type : undefined
}

/**
 * A union as fast-json-stringify writes it without asking ajv: for `anyOf` it compiles a validator per
 * member and runs them on every value, to learn which member to write it by (a pattern or format checked
 * again on every nullable field of every answer, PERFORMANCE.md). The unions our schemas use have a
 * cheaper form that writes the same JSON: a type or null (TypeBox's `Union([T, Null])`) is T with
 * `nullable: true`, and a union of literals of one type is that type (its `enum` is only read by people).
 * Other unions are kept.
 */
function withoutUnion(node: Node): Node {
  const { anyOf, ...rest } = node
  if (!Array.isArray(anyOf) || !anyOf.every(isNode)) return node
  const members = anyOf.filter((member) => !isNull(member))
  if (anyOf.length - members.length > 1) return node
  const nullable = members.length < anyOf.length ? { nullable: true } : {}
  const [only] = members
  if (members.length === 1 && only && typeof only.type === 'string') return { ...rest, ...only, ...nullable }
  const type = sharedType(members)
  if (type !== undefined && members.every((member) => 'const' in member))
    return { ...rest, type, enum: members.map((member) => member.const), ...nullable }
  return node
}

/**
 * The response schema as the serialiser is given it: a copy (the route's own schema, which the OpenAPI
 * document shows, is left as written) with its unions in the form fast-json-stringify writes without
 * validating (`withoutUnion`), at every depth.
 */
export function serializable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializable)
  if (!isNode(schema)) return schema
  const node: Node = {}
  for (const [key, value] of Object.entries(schema)) node[key] = serializable(value)
  return withoutUnion(node)
}

/** Every response schema compiled by fast-json-stringify (as Fastify does) from its `serializable` form. */
export function installSerialization(app: FastifyInstance): void {
  app.setSerializerCompiler(({ schema }) => fastJsonStringify(serializable(schema) as object))
}

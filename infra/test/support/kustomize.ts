import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parse, parseAllDocuments } from 'yaml'

export interface K8sObject {
  apiVersion: string
  kind: string
  metadata: {
    name: string
    namespace?: string
    labels?: Record<string, string>
    annotations?: Record<string, string>
  }
  [field: string]: unknown
}

interface ImageRule {
  name: string
  newName?: string
  newTag?: string
}

interface PatchOp {
  op: 'add' | 'replace' | 'remove'
  path: string
  value?: unknown
}

interface Patch {
  target: { kind?: string; name?: string }
  patch: string
}

interface Kustomization {
  apiVersion?: string
  kind?: string
  namespace?: string
  resources?: string[]
  images?: ImageRule[]
  patches?: Patch[]
}

/** The fields of a kustomization.yaml this renderer implements; anything else is refused, never ignored. */
const SUPPORTED = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'images', 'patches'])
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'IngressClass',
  'PriorityClass',
])

export function parseYamlObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('\n'))
      return doc.toJS() as K8sObject | null
    })
    .filter((o): o is K8sObject => o !== null)
}

function pointer(path: string): string[] {
  if (!path.startsWith('/')) throw new Error(`bad JSON pointer ${path}`)
  return path
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
}

/** RFC 6902 add / replace / remove, the operations kustomize's JSON patches use. */
export function applyJsonPatch(target: unknown, ops: PatchOp[]): void {
  for (const op of ops) {
    const parts = pointer(op.path)
    const last = parts.pop()!
    let parent = target as Record<string, unknown> | unknown[]
    for (const part of parts) {
      const next = Array.isArray(parent) ? parent[Number(part)] : parent[part]
      if (next === undefined || next === null || typeof next !== 'object') {
        throw new Error(`${op.op} ${op.path}: ${part} does not exist`)
      }
      parent = next as Record<string, unknown> | unknown[]
    }
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last)
      if (!Number.isInteger(index) || index < 0 || index > parent.length)
        throw new Error(`${op.op} ${op.path}: bad index`)
      if (op.op === 'add') parent.splice(index, 0, op.value)
      else if (index >= parent.length) throw new Error(`${op.op} ${op.path}: no element ${index}`)
      else if (op.op === 'replace') parent[index] = op.value
      else parent.splice(index, 1)
    } else {
      if (op.op !== 'add' && !(last in parent)) throw new Error(`${op.op} ${op.path}: ${last} does not exist`)
      if (op.op === 'remove') delete parent[last]
      else parent[last] = op.value
    }
  }
}

/** Every container list of a workload's pod template. */
export function podSpecOf(
  object: K8sObject,
): { containers: Array<{ image: string; name: string }> } | undefined {
  const spec = object.spec as { template?: { spec?: { containers: Array<{ image: string; name: string }> } } }
  return spec?.template?.spec
}

function retag(object: K8sObject, rule: ImageRule): void {
  for (const container of podSpecOf(object)?.containers ?? []) {
    const match = /^([^@]+?)(?::([^:/@]+))?$/.exec(container.image)
    if (!match || match[1] !== rule.name) continue
    const tag = rule.newTag ?? match[2]
    container.image = `${rule.newName ?? rule.name}${tag ? `:${tag}` : ''}`
  }
}

/**
 * Renders a kustomization the way `kustomize build` does, for the features this repository's
 * kustomizations use: resources (files and directories), namespace, images and JSON 6902 patches.
 */
export function renderKustomization(dir: string): K8sObject[] {
  const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization
  const unsupported = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key))
  if (unsupported.length > 0)
    throw new Error(`${dir}: the test renderer does not implement ${unsupported.join(', ')}`)

  const objects: K8sObject[] = []
  for (const resource of kustomization.resources ?? []) {
    const path = join(dir, resource)
    if (statSync(path).isDirectory()) objects.push(...renderKustomization(path))
    else objects.push(...parseYamlObjects(readFileSync(path, 'utf8')))
  }
  if (kustomization.namespace) {
    for (const object of objects) {
      if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = kustomization.namespace
    }
  }
  for (const patch of kustomization.patches ?? []) {
    const targets = objects.filter(
      (o) =>
        (!patch.target.kind || o.kind === patch.target.kind) &&
        (!patch.target.name || o.metadata.name === patch.target.name),
    )
    if (targets.length === 0) throw new Error(`patch target ${JSON.stringify(patch.target)} matches nothing`)
    for (const target of targets) applyJsonPatch(target, parse(patch.patch) as PatchOp[])
  }
  for (const rule of kustomization.images ?? []) for (const object of objects) retag(object, rule)
  return objects
}

export const objectKey = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`

import { join } from 'node:path'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler'
import { Job } from 'kubernetes-models/batch/v1/Job'
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress'
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget'
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { Namespace } from 'kubernetes-models/v1/Namespace'
import { Service } from 'kubernetes-models/v1/Service'
import ts from 'typescript'
import type { K8sObject } from './kustomize.js'
import { infraDir } from './paths.js'

interface Validatable {
  validate(): void
}

/** The Kubernetes models (with their OpenAPI schema validators) of every kind the manifests use. */
const models: Record<string, { create: (data: K8sObject) => Validatable; module: string; type: string }> = {
  'v1/ConfigMap': { create: (d) => new ConfigMap(d as never), module: 'v1/ConfigMap', type: 'IConfigMap' },
  'v1/Namespace': { create: (d) => new Namespace(d as never), module: 'v1/Namespace', type: 'INamespace' },
  'v1/Service': { create: (d) => new Service(d as never), module: 'v1/Service', type: 'IService' },
  'apps/v1/Deployment': {
    create: (d) => new Deployment(d as never),
    module: 'apps/v1/Deployment',
    type: 'IDeployment',
  },
  'batch/v1/Job': { create: (d) => new Job(d as never), module: 'batch/v1/Job', type: 'IJob' },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    create: (d) => new HorizontalPodAutoscaler(d as never),
    module: 'autoscaling/v2/HorizontalPodAutoscaler',
    type: 'IHorizontalPodAutoscaler',
  },
  'policy/v1/PodDisruptionBudget': {
    create: (d) => new PodDisruptionBudget(d as never),
    module: 'policy/v1/PodDisruptionBudget',
    type: 'IPodDisruptionBudget',
  },
  'networking.k8s.io/v1/NetworkPolicy': {
    create: (d) => new NetworkPolicy(d as never),
    module: 'networking.k8s.io/v1/NetworkPolicy',
    type: 'INetworkPolicy',
  },
  'networking.k8s.io/v1/Ingress': {
    create: (d) => new Ingress(d as never),
    module: 'networking.k8s.io/v1/Ingress',
    type: 'IIngress',
  },
}

const modelOf = (object: K8sObject) => {
  const model = models[`${object.apiVersion}/${object.kind}`]
  if (!model) throw new Error(`no Kubernetes model for ${object.apiVersion} ${object.kind}`)
  return model
}

/** Validates one object against its OpenAPI schema (types, formats, required fields, enums). */
export function validateObject(object: K8sObject): void {
  modelOf(object).create(object).validate()
}

/**
 * The OpenAPI schemas allow unknown fields, which the API server then rejects (kubectl's strict field
 * validation) or silently drops: a misspelt `readinessprobe` would pass validate(). The models' TypeScript
 * interfaces are generated from the same schemas, so the objects are type-checked as object literals of
 * those interfaces, where TypeScript reports every property the schema does not define.
 * Returns the diagnostics, one line each (empty when every field is known).
 */
export function unknownFieldDiagnostics(objects: K8sObject[]): string[] {
  const file = join(infraDir, 'test', '__rendered_k8s_objects__.ts')
  const used = [...new Set(objects.map((o) => modelOf(o)))]
  const source = [
    ...used.map((m) => `import type { ${m.type} } from 'kubernetes-models/${m.module}'`),
    ...objects.map(
      (o, i) =>
        `// ${o.kind} ${o.metadata.name}\nexport const object${i}: ${modelOf(o).type} = ${JSON.stringify(o, null, 1)}`,
    ),
  ].join('\n')
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  }
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (name, version, onError) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, onError)
  const fileExists = host.fileExists.bind(host)
  host.fileExists = (name) => name === file || fileExists(name)
  const program = ts.createProgram([file], options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ')
    if (!d.file || d.start === undefined) return message
    const line = d.file.getLineAndCharacterOfPosition(d.start).line
    const owner =
      source
        .split('\n')
        .slice(0, line + 1)
        .reverse()
        .find((l) => l.startsWith('// ')) ?? ''
    return `${owner.slice(3)}: ${message}`
  })
}

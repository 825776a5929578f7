/**
 * The Kubernetes manifests: the base and the example overlay are rendered (the way kustomize does, and
 * compared with `kubectl kustomize` where that exists), every object is validated against the Kubernetes
 * OpenAPI schemas (kubernetes-models) with unknown fields refused, and the objects are checked to fit
 * together: probes, resources, security, secrets by reference, selectors, autoscaling, migrations, Ingress.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { unknownFieldDiagnostics, validateObject } from './support/k8s-schema.js'
import { type K8sObject, objectKey, parseYamlObjects, renderKustomization } from './support/kustomize.js'
import { infraDir, SERVICES, type ServiceName } from './support/paths.js'
import { RUNTIME_VARIABLES, serviceReads } from './support/service-variables.js'

const baseDir = join(infraDir, 'k8s', 'base')
const overlayDir = join(infraDir, 'k8s', 'overlays', 'example')

interface Probe {
  httpGet?: { path: string; port: string | number }
}
interface EnvVar {
  name: string
  value?: string
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; configMapKeyRef?: unknown }
}
interface Container {
  name: string
  image: string
  args?: string[]
  command?: string[]
  ports?: Array<{ name?: string; containerPort: number }>
  env?: EnvVar[]
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> }
  readinessProbe?: Probe
  livenessProbe?: Probe
  startupProbe?: Probe
  lifecycle?: { preStop?: { exec?: { command: string[] } } }
  securityContext?: {
    allowPrivilegeEscalation?: boolean
    readOnlyRootFilesystem?: boolean
    runAsNonRoot?: boolean
    capabilities?: { drop?: string[] }
  }
  volumeMounts?: Array<{ name: string; mountPath: string }>
}
interface PodSpec {
  containers: Container[]
  restartPolicy?: string
  terminationGracePeriodSeconds?: number
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number }
  volumes?: Array<{ name: string }>
}
interface Workload extends K8sObject {
  spec: {
    replicas?: number
    selector?: { matchLabels: Record<string, string> }
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec }
  }
}

const find = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name)
  if (!found) throw new Error(`no ${kind} ${name}`)
  return found
}
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value)
const SECRET_NAMED = /(DATABASE_URL|PASSWORD|TOKEN|PRIVATE_KEY|SECRET|RPC_URL)/

/** Whether a kubectl with its built-in kustomize is on the PATH (CI machines of this project have one). */
const kubectlAvailable = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'pipe', timeout: 30_000 })
    return true
  } catch {
    return false
  }
})()

const kubectlKustomize = (dir: string) =>
  parseYamlObjects(
    execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: 'pipe', timeout: 60_000 }),
  )

describe('the Kubernetes manifests', () => {
  let base: K8sObject[] = []
  let overlay: K8sObject[] = []

  beforeAll(() => {
    base = renderKustomization(baseDir)
    overlay = renderKustomization(overlayDir)
  })

  it('render to the expected objects: per service a ConfigMap, Deployment, Service, HPA, PDB, migration Job and NetworkPolicy', () => {
    const expected = SERVICES.flatMap((s) => [
      `ConfigMap/${s}-config`,
      `Deployment/${s}`,
      `Service/${s}`,
      `HorizontalPodAutoscaler/${s}`,
      `PodDisruptionBudget/${s}`,
      `Job/${s}-migrate`,
      `NetworkPolicy/${s}`,
    ])
    expect(base.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      [...expected, 'Ingress/genesis'].sort(),
    )
    expect(overlay.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      [...expected, 'Ingress/genesis', 'Namespace/genesis'].sort(),
    )
    expect(new Set(overlay.map(objectKey)).size).toBe(overlay.length)
  })

  it('validate against the Kubernetes object schemas', () => {
    for (const object of [...base, ...overlay]) {
      expect(() => validateObject(object), objectKey(object)).not.toThrow()
    }
  })

  it('use no field the Kubernetes schemas do not define', () => {
    expect(unknownFieldDiagnostics([...base, ...overlay])).toEqual([])
  })

  it('would catch a broken object (the validation is not a no-op)', () => {
    const deployment = structuredClone(find(base, 'Deployment', 'claims')) as Workload
    deployment.spec.template.spec.containers[0]!.ports = [
      { name: 'http', containerPort: 'eighty' as unknown as number },
    ]
    expect(() => validateObject(deployment)).toThrow(/containerPort/)
    const misspelt = structuredClone(find(base, 'Deployment', 'claims')) as Workload
    ;(misspelt.spec.template.spec.containers[0] as unknown as Record<string, unknown>).readinessprobe = {}
    expect(unknownFieldDiagnostics([misspelt]).join('\n')).toMatch(/readinessprobe/)
  })

  it.skipIf(!kubectlAvailable)('render exactly as `kubectl kustomize` does', () => {
    for (const [dir, ours] of [
      [baseDir, base],
      [overlayDir, overlay],
    ] as const) {
      const theirs = kubectlKustomize(dir)
      const byKey = (objects: K8sObject[]) => Object.fromEntries(objects.map((o) => [objectKey(o), o]))
      expect(byKey(ours)).toEqual(byKey(theirs))
    }
  })

  it('hold no secret values: Secrets are referenced, never defined, and no secret is a literal env value', () => {
    for (const object of [...base, ...overlay]) {
      expect(object.kind).not.toBe('Secret')
      if (object.kind === 'ConfigMap') {
        for (const key of Object.keys((object as { data?: Record<string, string> }).data ?? {})) {
          expect(key, `${object.metadata.name} holds ${key}`).not.toMatch(SECRET_NAMED)
        }
      }
      const spec = (object as Workload).spec?.template?.spec
      for (const container of spec?.containers ?? []) {
        for (const variable of container.env ?? []) {
          if (SECRET_NAMED.test(variable.name)) {
            expect(variable.value, `${object.metadata.name} ${variable.name}`).toBeUndefined()
            expect(variable.valueFrom?.secretKeyRef?.name).toBe(
              `genesis-${object.metadata.name.replace(/-migrate$/, '')}`,
            )
          }
        }
      }
    }
  })

  describe.each(SERVICES)('%s', (service: ServiceName) => {
    let deployment: Workload
    let job: Workload
    let container: Container
    let config: Record<string, string>

    beforeAll(() => {
      deployment = find(overlay, 'Deployment', service) as Workload
      job = find(overlay, 'Job', `${service}-migrate`) as Workload
      container = deployment.spec.template.spec.containers[0]!
      config = (
        find(overlay, 'ConfigMap', `${service}-config`) as K8sObject & { data: Record<string, string> }
      ).data
    })

    it('runs the overlay’s image, non-root, read-only, without privileges', () => {
      expect(deployment.spec.template.spec.containers).toHaveLength(1)
      expect(container.image).toBe(`ghcr.io/example-org/genesis-${service}:1.0.0`)
      expect((find(base, 'Deployment', service) as Workload).spec.template.spec.containers[0]!.image).toBe(
        `genesis/${service}:latest`,
      )
      for (const pod of [deployment.spec.template.spec, job.spec.template.spec]) {
        expect(pod.securityContext?.runAsNonRoot).toBe(true)
        expect(pod.securityContext?.runAsUser).toBeGreaterThan(0)
        for (const c of pod.containers) {
          expect(c.securityContext).toMatchObject({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          })
          // the read-only root needs a writable /tmp
          expect(c.volumeMounts?.map((m) => m.mountPath)).toContain('/tmp')
        }
      }
    })

    it('probes the health routes on the named container port the service listens on', () => {
      const port = container.ports?.find((p) => p.name === 'http')
      expect(port?.containerPort).toBe(Number(config.PORT))
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'http' })
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/health/live', port: 'http' })
      expect(container.startupProbe?.httpGet).toEqual({ path: '/health/live', port: 'http' })
    })

    it('requests and limits CPU and memory', () => {
      for (const c of [container, job.spec.template.spec.containers[0]!]) {
        expect(Object.keys(c.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory'])
        expect(Object.keys(c.resources?.limits ?? {}).sort()).toEqual(['cpu', 'memory'])
      }
    })

    it('has time to drain: preStop pause + shutdown deadline fit in the grace period', () => {
      const grace = deployment.spec.template.spec.terminationGracePeriodSeconds ?? 30
      const pause = Number(container.lifecycle?.preStop?.exec?.command.at(-1) ?? 0)
      expect(grace).toBeGreaterThan(pause + Number(config.SHUTDOWN_TIMEOUT_MS) / 1000)
    })

    it('takes configuration from its ConfigMap and secrets from its Secret, all variables the service reads', () => {
      expect(container.envFrom).toEqual([{ configMapRef: { name: `${service}-config` } }])
      const database = container.env?.find((v) => v.name === 'DATABASE_URL')
      expect(database?.valueFrom?.secretKeyRef).toEqual({ name: `genesis-${service}`, key: 'database-url' })
      for (const name of [...Object.keys(config), ...(container.env ?? []).map((v) => v.name)]) {
        expect(
          serviceReads(service, name) || RUNTIME_VARIABLES.has(name),
          `${service} does not read ${name}`,
        ).toBe(true)
      }
    })

    it('is selected by its Service, autoscaled by its HPA and protected by its PDB', () => {
      const labels = deployment.spec.template.metadata.labels
      expect(matches(deployment.spec.selector!.matchLabels, labels)).toBe(true)
      const svc = find(overlay, 'Service', service) as K8sObject & {
        spec: { selector: Record<string, string>; ports: Array<{ name: string; targetPort: string }> }
      }
      expect(matches(svc.spec.selector, labels)).toBe(true)
      expect(container.ports?.map((p) => p.name)).toContain(svc.spec.ports[0]!.targetPort)

      const hpa = find(overlay, 'HorizontalPodAutoscaler', service) as K8sObject & {
        spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number; maxReplicas: number }
      }
      expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: service })
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2)
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas)
      // the HPA owns the replica count; a fixed count in the Deployment would fight it on every apply
      expect(deployment.spec.replicas).toBeUndefined()

      const pdb = find(overlay, 'PodDisruptionBudget', service) as K8sObject & {
        spec: { selector: { matchLabels: Record<string, string> } }
      }
      expect(matches(pdb.spec.selector.matchLabels, labels)).toBe(true)
    })

    it('migrates in a Job with the same image, database and configuration, outside the Service', () => {
      const migrate = job.spec.template.spec.containers[0]!
      expect(migrate.image).toBe(container.image)
      expect([...(migrate.command ?? []), ...(migrate.args ?? [])]).toEqual(['node', 'dist/migrate.js'])
      expect(job.spec.template.spec.restartPolicy).toBe('Never')
      expect(migrate.env?.find((v) => v.name === 'DATABASE_URL')).toEqual(
        container.env?.find((v) => v.name === 'DATABASE_URL'),
      )
      expect(migrate.envFrom).toEqual(container.envFrom)
      expect(matches(deployment.spec.selector!.matchLabels, job.spec.template.metadata.labels)).toBe(false)
    })
  })

  it('keeps /metrics off the public path, and lets only the Ingress controller and the scraper reach the pods', () => {
    for (const service of SERVICES) {
      const config = find(overlay, 'ConfigMap', `${service}-config`) as K8sObject & {
        data: Record<string, string>
      }
      expect(config.data.METRICS_PORT).toBe('9090')
      const deployment = find(overlay, 'Deployment', service) as Workload
      const template = deployment.spec.template as Workload['spec']['template'] & {
        metadata: { annotations?: Record<string, string> }
      }
      expect(template.spec.containers[0]!.ports).toEqual([
        { name: 'http', containerPort: 8080, protocol: 'TCP' },
        { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
      ])
      expect(template.metadata.annotations?.['prometheus.io/port']).toBe('9090')
      // the Service (which the Ingress routes to) exposes http alone
      const svc = find(overlay, 'Service', service) as K8sObject & {
        spec: { ports: Array<{ name: string }> }
      }
      expect(svc.spec.ports.map((p) => p.name)).toEqual(['http'])
      const policy = find(overlay, 'NetworkPolicy', service) as K8sObject & {
        spec: {
          podSelector: { matchLabels: Record<string, string> }
          policyTypes: string[]
          ingress: Array<{
            from: Array<{ namespaceSelector: { matchLabels: Record<string, string> } }>
            ports: Array<{ port: string }>
          }>
        }
      }
      expect(matches(policy.spec.podSelector.matchLabels, template.metadata.labels)).toBe(true)
      expect(policy.spec.policyTypes).toEqual(['Ingress'])
      expect(
        policy.spec.ingress.map((rule) => [
          rule.from.map((f) => f.namespaceSelector.matchLabels['kubernetes.io/metadata.name']),
          rule.ports.map((p) => p.port),
        ]),
      ).toEqual([
        [['ingress-nginx'], ['http']],
        [['monitoring'], ['metrics']],
      ])
    }
  })

  it('routes one Ingress rule per hostname to its Service, paths unchanged', () => {
    const ingress = find(overlay, 'Ingress', 'genesis') as K8sObject & {
      spec: {
        tls: Array<{ hosts: string[] }>
        rules: Array<{
          host: string
          http: {
            paths: Array<{
              path: string
              pathType: string
              backend: { service: { name: string; port: { name: string } } }
            }>
          }
        }>
      }
    }
    const routes = Object.fromEntries(ingress.spec.rules.map((r) => [r.host, r.http.paths]))
    expect(Object.keys(routes).sort()).toEqual([
      'builder.genesis.example.com',
      'claims.genesis.example.com',
      'land.genesis.example.com',
    ])
    const expected: Record<string, ServiceName> = {
      'claims.genesis.example.com': 'claims',
      'builder.genesis.example.com': 'collections',
      'land.genesis.example.com': 'land',
    }
    for (const [host, service] of Object.entries(expected)) {
      expect(routes[host]).toEqual([
        { path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { name: 'http' } } } },
      ])
      const svc = find(overlay, 'Service', service) as K8sObject & {
        spec: { ports: Array<{ name: string }> }
      }
      expect(svc.spec.ports.map((p) => p.name)).toContain('http')
    }
    expect(ingress.spec.tls[0]!.hosts.sort()).toEqual(Object.keys(expected).sort())
    const annotations = ingress.metadata.annotations ?? {}
    expect(Object.keys(annotations).filter((a) => /rewrite|app-root|use-regex/.test(a))).toEqual([])
    expect(annotations['nginx.ingress.kubernetes.io/proxy-body-size']).toBe('8m')
  })

  it('puts every namespaced object of the overlay in its namespace', () => {
    for (const object of overlay.filter((o) => o.kind !== 'Namespace')) {
      expect(object.metadata.namespace, objectKey(object)).toBe('genesis')
    }
  })
})

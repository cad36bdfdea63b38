/**
 * Builds both overlays with `kubectl kustomize` (kustomize v5; see deploy/ensure-kubectl.sh),
 * validates every object against its schema, and checks the properties operations rely on.
 */
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import {
  PrometheusRule,
  ServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { parse } from 'yaml';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import { startNodeFlags } from '../support/start-node-flags';
import type { K8sObject } from './deploy-helpers';
import {
  REPO_ROOT,
  byName,
  kustomizeBuild,
  ofKind,
  readRepoFile,
  selectorMatches,
  validateObject,
} from './deploy-helpers';

const SECRET_ENV = ['ADMIN_JWT_SECRET', 'DATABASE_URL', 'REDIS_URL'] as const;
const CONFIG_FILES = ['datasets.yaml', 'gateway.yaml', 'plans.yaml', 'upstreams.yaml'] as const;
const MONITORING_NS = { 'kubernetes.io/metadata.name': 'monitoring' };

/** int-or-string, as in probe and Service ports. */
type IntOrString = NonNullable<NonNullable<IContainer['livenessProbe']>['httpGet']>['port'];

interface Workload {
  kind: string;
  name: string;
  template: IPodTemplateSpec;
}

function workloads(objects: readonly K8sObject[]): Workload[] {
  return [
    ...ofKind(objects, 'Deployment', Deployment).map((d) => ({
      kind: 'Deployment',
      name: d.metadata!.name!,
      template: d.spec!.template,
    })),
    ...ofKind(objects, 'StatefulSet', StatefulSet).map((s) => ({
      kind: 'StatefulSet',
      name: s.metadata!.name!,
      template: s.spec!.template,
    })),
  ];
}

function podLabels(w: Workload): Record<string, string> {
  return w.template.metadata?.labels ?? {};
}

/** A numeric port, resolving a named container port. */
function resolvePort(port: IntOrString | undefined, containers: readonly IContainer[]): number | undefined {
  if (typeof port === 'number') return port;
  for (const c of containers) for (const p of c.ports ?? []) if (p.name === port) return p.containerPort;
  return undefined;
}

function container(w: Workload, name?: string): IContainer {
  const c =
    name === undefined
      ? w.template.spec!.containers[0]
      : w.template.spec!.containers.find((x) => x.name === name);
  if (c === undefined) throw new Error(`${w.name} has no container ${name ?? ''}`);
  return c;
}

function envMap(c: IContainer): Map<string, NonNullable<IContainer['env']>[number]> {
  return new Map((c.env ?? []).map((e) => [e.name, e]));
}

function checkHardening(w: Workload): void {
  const pod = w.template.spec!;
  expect(pod.securityContext?.runAsNonRoot).toBe(true);
  expect(pod.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
  expect(pod.automountServiceAccountToken).toBe(false);
  for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
    const sc = c.securityContext;
    expect({
      workload: w.name,
      container: c.name,
      allowPrivilegeEscalation: sc?.allowPrivilegeEscalation,
    }).toEqual({
      workload: w.name,
      container: c.name,
      allowPrivilegeEscalation: false,
    });
    expect(sc?.readOnlyRootFilesystem).toBe(true);
    expect(sc?.capabilities?.drop).toContain('ALL');
    expect(sc?.capabilities?.add ?? []).toEqual([]);
    expect(sc?.privileged ?? false).toBe(false);
    expect(sc?.runAsUser ?? pod.securityContext?.runAsUser).toBeGreaterThan(0);
    for (const kind of ['requests', 'limits'] as const) {
      expect(c.resources?.[kind]?.cpu).toBeDefined();
      expect(c.resources?.[kind]?.memory).toBeDefined();
    }
    expect(c.livenessProbe).toBeDefined();
    expect(c.readinessProbe).toBeDefined();
    expect(c.image).toBeDefined();
    expect(c.image).not.toMatch(/:latest$/);
  }
}

/** The gateway's graceful-drain budget from config/gateway.yaml. */
function shutdownSeconds(): number {
  const cfg = parse(readRepoFile('config/gateway.yaml')) as { shutdown_timeout_ms?: number };
  return (cfg.shutdown_timeout_ms ?? 10_000) / 1000;
}

function checkGatewayPod(w: Workload): void {
  const c = container(w, 'gateway');
  const containers = w.template.spec!.containers;
  expect(resolvePort(c.livenessProbe?.httpGet?.port, containers)).toBe(9090);
  expect(c.livenessProbe?.httpGet?.path).toBe('/healthz');
  expect(resolvePort(c.readinessProbe?.httpGet?.port, containers)).toBe(9090);
  expect(c.readinessProbe?.httpGet?.path).toBe('/readyz');
  expect((c.ports ?? []).map((p) => p.containerPort).sort()).toEqual([8080, 9090]);
  // preStop sleep, then SIGTERM drain: the grace period must cover both.
  const preStop = c.lifecycle?.preStop?.exec?.command ?? [];
  expect(preStop[0]).toBe('sleep');
  const sleep = Number(preStop[1]);
  expect(sleep).toBeGreaterThan(0);
  expect(w.template.spec!.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(sleep + shutdownSeconds());
  // Config from the ConfigMap, mounted as a directory (subPath mounts never update: no hot reload).
  const env = envMap(c);
  const configDir = env.get('CONFIG_DIR')?.value;
  const mount = (c.volumeMounts ?? []).find((m) => m.mountPath === configDir);
  expect(mount).toBeDefined();
  expect(mount!.subPath).toBeUndefined();
  const volume = (w.template.spec!.volumes ?? []).find((v) => v.name === mount!.name);
  expect(volume?.configMap?.name).toBe('lookup-config');
  // Writable places under a read-only root: DATA_DIR and /tmp are volumes.
  const volumeByMount = (path: string) => {
    const m = (c.volumeMounts ?? []).find((x) => x.mountPath === path);
    return (w.template.spec!.volumes ?? []).find((v) => v.name === m?.name);
  };
  const dataDir = env.get('DATA_DIR')?.value;
  expect(dataDir).toBeDefined();
  expect(volumeByMount(dataDir!)).toBeDefined();
  expect(volumeByMount('/tmp')?.emptyDir).toBeDefined();
  expect(env.get('PORT')?.value).toBe('8080');
  expect(env.get('ADMIN_PORT')?.value).toBe('9090');
  // The node flags `npm start` runs the gateway with, which the benchmark measured (on the command
  // line: NODE_OPTIONS refuses --min-semi-space-size and --no-memory-reducer).
  expect(c.command).toEqual(['node', ...startNodeFlags(REPO_ROOT), 'dist/main.js']);
  expect(env.get('NODE_OPTIONS')).toBeUndefined();
}

describe.each(['dev', 'prod'])('kustomize overlay %s', (overlay) => {
  const objects = kustomizeBuild(overlay);

  it('builds', () => {
    expect(objects.length).toBeGreaterThan(0);
  });

  it.each(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o] as const))(
    '%s is valid against its Kubernetes schema',
    (_id, obj) => {
      expect(() => validateObject(obj)).not.toThrow();
    },
  );

  it('puts every namespaced object in the overlay namespace and commits no Secret', () => {
    const ns = objects.find((o) => o.kind === 'Namespace')?.metadata.name;
    expect(ns).toBe(overlay === 'prod' ? 'lookup' : 'lookup-dev');
    for (const o of objects.filter((x) => x.kind !== 'Namespace')) expect(o.metadata.namespace).toBe(ns);
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
  });

  it('hardens every pod (non-root, read-only root, no capabilities, seccomp, probes, resources)', () => {
    const ws = workloads(objects);
    expect(ws.length).toBeGreaterThan(0);
    ws.forEach(checkHardening);
  });

  it('runs the gateway with admin-port probes, graceful drain and the config directory', () => {
    const gw = workloads(objects).find((w) => w.name === 'lookup-gateway');
    expect(gw).toBeDefined();
    checkGatewayPod(gw!);
  });

  it('exposes only port 8080 on the public Service; admin 9090 only on the ClusterIP admin Service', () => {
    const services = ofKind(objects, 'Service', Service);
    const gw = workloads(objects).find((w) => w.name === 'lookup-gateway')!;
    const containers = gw.template.spec!.containers;
    const pub = byName(services, 'lookup-gateway');
    expect(pub.spec?.type ?? 'ClusterIP').toBe('ClusterIP');
    expect(pub.spec!.ports!.map((p) => [p.port, resolvePort(p.targetPort ?? p.port, containers)])).toEqual([
      [8080, 8080],
    ]);
    const admin = byName(services, 'lookup-gateway-admin');
    expect(admin.spec?.type ?? 'ClusterIP').toBe('ClusterIP');
    expect(admin.spec!.ports!.map((p) => resolvePort(p.targetPort ?? p.port, containers))).toEqual([9090]);
    // No other Service reaches the gateway's admin port, and none is exposed outside the cluster.
    for (const s of services) {
      expect(['ClusterIP', undefined]).toContain(s.spec?.type);
      if (s.metadata!.name === 'lookup-gateway-admin') continue;
      if (!selectorMatches({ matchLabels: s.spec?.selector ?? {} }, podLabels(gw))) continue;
      for (const p of s.spec!.ports!) expect(resolvePort(p.targetPort ?? p.port, containers)).not.toBe(9090);
    }
  });

  it('generates ConfigMap lookup-config from config/ (stable name, for hot reload)', () => {
    const cm = byName(ofKind(objects, 'ConfigMap', ConfigMap), 'lookup-config');
    expect(Object.keys(cm.data ?? {}).sort()).toEqual([...CONFIG_FILES]);
    const replaced = overlay === 'prod' ? ['upstreams.yaml', 'gateway.yaml'] : [];
    for (const file of CONFIG_FILES) {
      const expected = replaced.includes(file)
        ? readRepoFile(`deploy/k8s/overlays/${overlay}/${file}`)
        : readRepoFile(`config/${file}`);
      expect(cm.data![file]).toBe(expected);
    }
  });
});

describe('dev overlay: one pod, embedded default', () => {
  const objects = kustomizeBuild('dev');

  it('runs only the gateway, one replica, with no database, Redis or Secret', () => {
    const deployments = ofKind(objects, 'Deployment', Deployment);
    expect(deployments.map((d) => d.metadata!.name)).toEqual(['lookup-gateway']);
    expect(deployments[0]!.spec!.replicas).toBe(1);
    expect(ofKind(objects, 'StatefulSet', StatefulSet)).toEqual([]);
    expect(objects.filter((o) => o.kind === 'HorizontalPodAutoscaler')).toEqual([]);
    const c = deployments[0]!.spec!.template.spec!.containers[0]!;
    const env = envMap(c);
    expect(env.has('DATABASE_URL')).toBe(false);
    expect(env.has('REDIS_URL')).toBe(false);
    expect(JSON.stringify(deployments[0])).not.toContain('secretKeyRef');
    // The embedded upstreams listen on 127.0.0.1 inside the pod: dev keeps config/upstreams.yaml.
    expect(deployments[0]!.spec!.strategy?.type).toBe('Recreate');
  });
});

describe('prod overlay', () => {
  const objects = kustomizeBuild('prod');
  const deployments = ofKind(objects, 'Deployment', Deployment);
  const services = ofKind(objects, 'Service', Service);
  const all = workloads(objects);
  const gateway = all.find((w) => w.name === 'lookup-gateway')!;
  const prodUpstreams = parse(readRepoFile('deploy/k8s/overlays/prod/upstreams.yaml')) as {
    upstreams: Record<string, { url: string; timeout_ms?: number; pool_size?: number }>;
  };
  const repoUpstreams = parse(readRepoFile('config/upstreams.yaml')) as typeof prodUpstreams;

  it('keeps at least 3 gateway replicas: HPA (autoscaling/v2, CPU) owns the count', () => {
    const gwDeployment = byName(deployments, 'lookup-gateway');
    // No replicas in the manifest (re-applying must not undo the autoscaler), or at least 3.
    if (gwDeployment.spec!.replicas !== undefined)
      expect(gwDeployment.spec!.replicas).toBeGreaterThanOrEqual(3);
    const hpa = byName(ofKind(objects, 'HorizontalPodAutoscaler', HorizontalPodAutoscaler), 'lookup-gateway');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec!.scaleTargetRef).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'lookup-gateway',
    });
    expect(hpa.spec!.minReplicas).toBeGreaterThanOrEqual(3);
    expect(hpa.spec!.maxReplicas).toBeGreaterThan(hpa.spec!.minReplicas!);
    expect(hpa.spec!.metrics?.some((m) => m.type === 'Resource' && m.resource?.name === 'cpu')).toBe(true);
  });

  it('spreads gateway pods across zones and nodes', () => {
    const keys = (gateway.template.spec!.topologySpreadConstraints ?? []).map((t) => t.topologyKey);
    expect(keys).toEqual(expect.arrayContaining(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']));
    for (const t of gateway.template.spec!.topologySpreadConstraints!) {
      expect(selectorMatches(t.labelSelector, podLabels(gateway))).toBe(true);
    }
  });

  it('reads DATABASE_URL, REDIS_URL and ADMIN_JWT_SECRET from a Secret, never from literals', () => {
    const env = envMap(container(gateway, 'gateway'));
    for (const name of SECRET_ENV) {
      const e = env.get(name);
      expect({ name, value: e?.value, ref: e?.valueFrom?.secretKeyRef?.name }).toEqual({
        name,
        value: undefined,
        ref: 'lookup-secrets',
      });
      expect(e!.valueFrom!.secretKeyRef!.key).toBe(name);
    }
    for (const w of all) {
      for (const c of w.template.spec!.containers) {
        for (const e of c.env ?? []) {
          // A JWKS URL names public keys: no secret in it.
          const publicKeys = e.name === 'ADMIN_JWKS_URL' || e.name === 'IDENTITY_JWKS_URL';
          if (/SECRET|PASSWORD|TOKEN|_URL$|AUTH/.test(e.name) && !publicKeys) {
            expect({ workload: w.name, env: e.name, literal: e.value }).toEqual({
              workload: w.name,
              env: e.name,
              literal: undefined,
            });
          }
        }
      }
    }
  });

  it('runs one Deployment + Service per upstream in the prod upstreams.yaml, matching config/upstreams.yaml, verifying the gateway assertion', () => {
    const names = Object.keys(prodUpstreams.upstreams).sort();
    expect(names).toEqual(Object.keys(repoUpstreams.upstreams).sort());
    for (const name of names) {
      const prod = prodUpstreams.upstreams[name]!;
      const repo = repoUpstreams.upstreams[name]!;
      expect({ ...prod, url: undefined }).toEqual({ ...repo, url: undefined });
      const url = new URL(prod.url);
      expect(url.hostname).not.toMatch(/^(127\.|localhost$|::1$|\[::1\]$)/);
      const svc = byName(services, url.hostname);
      const port = Number(url.port || 80);
      const svcPort = svc.spec!.ports!.find((p) => p.port === port);
      expect(svcPort).toBeDefined();
      const w = all.find(
        (x) =>
          x.kind === 'Deployment' && selectorMatches({ matchLabels: svc.spec!.selector ?? {} }, podLabels(x)),
      );
      expect(w).toBeDefined();
      const c = container(w!);
      expect(c.args).toEqual(['upstream', name]);
      expect(c.command).toBeUndefined();
      const containers = w!.template.spec!.containers;
      const target = resolvePort(svcPort!.targetPort ?? svcPort!.port, containers);
      expect(envMap(c).get('PORT')?.value).toBe(String(target));
      // Started when the database answers; alive and ready without it after that, so a failover
      // does not restart every upstream pod at once, nor a pool full under a burst empty the Service.
      for (const [probe, path] of [
        [c.startupProbe, '/healthz'],
        [c.readinessProbe, '/livez'],
        [c.livenessProbe, '/livez'],
      ] as const) {
        expect(probe?.httpGet?.path).toBe(path);
        expect(resolvePort(probe?.httpGet?.port, containers)).toBe(target);
      }
      // Migrations run before the port opens, serialised across replicas; one that rewrites a large
      // table took 71 s on 500,000 documents (README, Upgrades): ten minutes before a restart.
      const startup = c.startupProbe!;
      expect((startup.periodSeconds ?? 10) * (startup.failureThreshold ?? 3)).toBeGreaterThanOrEqual(600);
      // Upstreams seed sample rows unless told not to: never in production.
      expect(envMap(c).get('SEED_SAMPLE_DATA')?.value).toBe('false');
      // Its queries end when the gateway stops waiting for it (the upstream process' default 5000).
      expect(Number(envMap(c).get('QUERY_TIMEOUT_MS')?.value ?? 5000)).toBe(prod.timeout_ms ?? 5000);
      // They verify the gateway's assertion with the JWKS its admin Service serves.
      const jwks = new URL(String(envMap(c).get('IDENTITY_JWKS_URL')?.value));
      expect(jwks.pathname).toBe('/.well-known/jwks.json');
      const admin = byName(services, jwks.hostname);
      expect(admin.spec!.ports!.some((p) => p.port === Number(jwks.port))).toBe(true);
      expect(selectorMatches({ matchLabels: admin.spec!.selector ?? {} }, podLabels(gateway))).toBe(true);
      // ...from the issuer the gateway signs as, for the audience it gives this upstream (the
      // upstream process' defaults unless its environment says otherwise).
      const { identity } = parse(readRepoFile('deploy/k8s/overlays/prod/gateway.yaml')) as {
        identity: { issuer: string; audience: string };
      };
      expect(envMap(c).get('IDENTITY_ISSUER')?.value ?? 'lookup-gateway').toBe(identity.issuer);
      expect(envMap(c).get('IDENTITY_AUDIENCE')?.value ?? 'lookup-upstream').toBe(identity.audience);
      const db = envMap(c).get('DATABASE_URL');
      expect(db?.valueFrom?.secretKeyRef).toEqual({ name: 'lookup-secrets', key: 'DATABASE_URL' });
      expect(w!.template.spec!.topologySpreadConstraints?.length).toBeGreaterThan(0);
    }
  });

  it('keeps the prod gateway.yaml identical to config/gateway.yaml except trusted_proxies', () => {
    const prod = parse(readRepoFile('deploy/k8s/overlays/prod/gateway.yaml')) as Record<string, unknown>;
    const repo = parse(readRepoFile('config/gateway.yaml')) as Record<string, unknown>;
    expect({ ...prod, trusted_proxies: undefined }).toEqual({ ...repo, trusted_proxies: undefined });
    expect(prod.trusted_proxies).toEqual(expect.arrayContaining(['private']));
  });

  it('runs Redis as a StatefulSet with AOF persistence on a PersistentVolumeClaim, with room for its fork', () => {
    const redis = byName(ofKind(objects, 'StatefulSet', StatefulSet), 'lookup-redis');
    const c = redis.spec!.template.spec!.containers[0]!;
    const args = [...(c.command ?? []), ...(c.args ?? [])].join(' ');
    expect(args).toMatch(/--appendonly yes/);
    expect(args).toMatch(/--dir \/data/);
    const claim = redis.spec!.volumeClaimTemplates?.[0];
    expect(claim?.spec?.resources?.requests?.storage).toBeDefined();
    expect(c.volumeMounts?.find((m) => m.name === claim?.metadata?.name)?.mountPath).toBe('/data');
    expect(envMap(c).get('REDIS_PASSWORD')?.valueFrom?.secretKeyRef?.name).toBe('lookup-secrets');
    // Room for an AOF rewrite's fork: maxmemory at most 60 % of the container's memory limit.
    const mb = (v: string): number => {
      const m = /^(\d+)(mb|Mi|Gi)$/.exec(v);
      if (!m) throw new Error(`unexpected memory quantity ${v}`);
      return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
    };
    const maxmemory = /--maxmemory (\S+)/.exec(args)?.[1];
    expect(maxmemory).toBeDefined();
    expect(mb(maxmemory!)).toBeLessThanOrEqual(0.6 * mb(String(c.resources?.limits?.memory)));
    const svc = byName(services, redis.spec!.serviceName ?? '');
    expect(
      selectorMatches(
        { matchLabels: svc.spec!.selector ?? {} },
        podLabels({ kind: 'StatefulSet', name: 'r', template: redis.spec!.template }),
      ),
    ).toBe(true);
  });

  it('has PodDisruptionBudgets for the gateway and every upstream', () => {
    const pdbs = ofKind(objects, 'PodDisruptionBudget', PodDisruptionBudget);
    for (const w of all.filter((x) => x.kind === 'Deployment')) {
      const pdb = pdbs.filter((p) => selectorMatches(p.spec!.selector, podLabels(w)));
      expect({ workload: w.name, pdbs: pdb.length }).toEqual({ workload: w.name, pdbs: 1 });
    }
    const gw = pdbs.find((p) => selectorMatches(p.spec!.selector, podLabels(gateway)))!;
    // With 3 replicas a drain never takes more than one gateway pod.
    if (gw.spec!.maxUnavailable !== undefined) expect(gw.spec!.maxUnavailable).toBe(1);
    else expect(gw.spec!.minAvailable).toBe(2);
  });

  describe('NetworkPolicies', () => {
    const policies = ofKind(objects, 'NetworkPolicy', NetworkPolicy);
    type Peer =
      | NonNullable<NonNullable<NonNullable<NetworkPolicy['spec']>['ingress']>[number]['from']>[number]
      | 'anywhere';

    /** Peers allowed to reach these pods on this port (ingress), across every policy. */
    function ingressPeers(w: Workload, port: number): Peer[] {
      const peers: Peer[] = [];
      for (const p of policies) {
        const spec = p.spec!;
        if (!selectorMatches(spec.podSelector, podLabels(w)) && Object.keys(spec.podSelector).length > 0)
          continue;
        if (!(spec.policyTypes ?? ['Ingress']).includes('Ingress')) continue;
        for (const rule of spec.ingress ?? []) {
          const ports = rule.ports ?? [];
          const covers =
            ports.length === 0 ||
            ports.some((rp) => resolvePort(rp.port, w.template.spec!.containers) === port);
          if (!covers) continue;
          if (rule.from === undefined || rule.from.length === 0) peers.push('anywhere');
          else peers.push(...rule.from);
        }
      }
      return peers;
    }
    const isMonitoring = (peer: Peer) =>
      peer !== 'anywhere' &&
      peer.podSelector === undefined &&
      JSON.stringify(peer.namespaceSelector?.matchLabels) === JSON.stringify(MONITORING_NS);
    const selectsPodsOf = (peer: Peer, w: Workload) =>
      peer !== 'anywhere' &&
      peer.namespaceSelector === undefined &&
      peer.ipBlock === undefined &&
      selectorMatches(peer.podSelector, podLabels(w));

    it('denies all ingress and egress by default', () => {
      const deny = policies.find(
        (p) =>
          Object.keys(p.spec!.podSelector).length === 0 &&
          (p.spec!.policyTypes ?? []).includes('Ingress') &&
          (p.spec!.policyTypes ?? []).includes('Egress') &&
          (p.spec!.ingress ?? []).length === 0 &&
          (p.spec!.egress ?? []).length === 0,
      );
      expect(deny).toBeDefined();
    });

    it('lets every workload receive traffic on its serving ports', () => {
      for (const w of all) {
        for (const c of w.template.spec!.containers) {
          for (const p of c.ports ?? []) {
            expect({
              workload: w.name,
              port: p.containerPort,
              allowed: ingressPeers(w, p.containerPort).length > 0,
            }).toEqual({
              workload: w.name,
              port: p.containerPort,
              allowed: true,
            });
          }
        }
      }
    });

    it('upstreams accept ingress only from gateway pods (and Prometheus for /metrics)', () => {
      const upstreams = all.filter(
        (w) => w.template.metadata?.labels?.['app.kubernetes.io/component'] === 'upstream',
      );
      expect(upstreams.length).toBe(Object.keys(prodUpstreams.upstreams).length);
      for (const w of upstreams) {
        for (const port of [8080, 9090, 6379, 1]) {
          for (const peer of ingressPeers(w, port)) {
            expect({ upstream: w.name, allowed: selectsPodsOf(peer, gateway) || isMonitoring(peer) }).toEqual(
              {
                upstream: w.name,
                allowed: true,
              },
            );
          }
        }
        expect(ingressPeers(w, 8080).some((peer) => selectsPodsOf(peer, gateway))).toBe(true);
      }
    });

    it('gateway admin port 9090 is reachable from the monitoring namespace, never from anywhere', () => {
      const peers = ingressPeers(gateway, 9090);
      expect(peers.some(isMonitoring)).toBe(true);
      for (const peer of peers) {
        expect(peer).not.toBe('anywhere');
        if (isMonitoring(peer)) continue;
        // Otherwise only pods of this namespace (upstreams for JWKS, labelled admin clients).
        expect(
          peer !== 'anywhere' && peer.namespaceSelector === undefined && peer.ipBlock === undefined,
        ).toBe(true);
        expect(
          peer !== 'anywhere' && Object.keys(peer.podSelector?.matchLabels ?? {}).length,
        ).toBeGreaterThan(0);
      }
      expect(ingressPeers(gateway, 8080)).toContain('anywhere');
    });

    it('Redis accepts only the gateway', () => {
      const redis = all.find((w) => w.name === 'lookup-redis')!;
      const peers = ingressPeers(redis, 6379);
      expect(peers.length).toBeGreaterThan(0);
      for (const peer of peers) expect(selectsPodsOf(peer, gateway)).toBe(true);
    });

    /** Whether pods with these labels may send to the target's pods (any destination: undefined) on the port. */
    const egressFrom = (labels: Record<string, string>, target: Workload | undefined, port: number) =>
      policies.some((p) => {
        const spec = p.spec!;
        const applies =
          Object.keys(spec.podSelector).length === 0 || selectorMatches(spec.podSelector, labels);
        if (!applies || !(spec.policyTypes ?? []).includes('Egress')) return false;
        return (spec.egress ?? []).some(
          (r) =>
            (r.ports ?? []).some((rp) => rp.port === port) &&
            (target === undefined
              ? (r.to ?? []).length === 0
              : (r.to ?? []).some((peer) => selectorMatches(peer.podSelector, podLabels(target)))),
        );
      });
    const egressTo = (w: Workload, target: Workload | undefined, port: number) =>
      egressFrom(podLabels(w), target, port);

    it('lets a pod labelled as an admin client out to the gateway admin port and in there, and nowhere else', () => {
      const client = { 'app.kubernetes.io/name': 'billing', 'lookup-api/admin-client': 'true' };
      expect(egressFrom(client, gateway, 9090)).toBe(true);
      expect(
        ingressPeers(gateway, 9090).some(
          (peer) =>
            peer !== 'anywhere' &&
            peer.namespaceSelector === undefined &&
            selectorMatches(peer.podSelector, client),
        ),
      ).toBe(true);
      expect(egressFrom(client, gateway, 8080)).toBe(false);
      const redis = all.find((w) => w.name === 'lookup-redis');
      expect(egressFrom(client, redis, 6379)).toBe(false);
      // An unlabelled pod of the namespace gets no way out but DNS.
      expect(egressFrom({ 'app.kubernetes.io/name': 'billing' }, gateway, 9090)).toBe(false);
    });

    it('allows DNS for all pods and the gateway to reach upstreams and Redis', () => {
      for (const w of all)
        expect({ workload: w.name, dns: egressTo(w, undefined, 53) }).toEqual({
          workload: w.name,
          dns: true,
        });
      for (const u of all.filter(
        (w) => w.template.metadata?.labels?.['app.kubernetes.io/component'] === 'upstream',
      )) {
        expect(egressTo(gateway, u, 8080)).toBe(true);
      }
      expect(
        egressTo(
          gateway,
          all.find((w) => w.name === 'lookup-redis'),
          6379,
        ),
      ).toBe(true);
    });
  });

  it('scrapes the gateway admin port and every upstream with ServiceMonitors', () => {
    const monitors = ofKind(objects, 'ServiceMonitor', ServiceMonitor);
    const scraped = (svcName: string, portName: string) => {
      const svc = byName(services, svcName);
      return monitors.some(
        (m) =>
          selectorMatches(m.spec.selector, svc.metadata!.labels ?? {}) &&
          m.spec.endpoints?.some((e) => e.port === portName && (e.path ?? '/metrics') === '/metrics'),
      );
    };
    expect(scraped('lookup-gateway-admin', 'admin')).toBe(true);
    expect(scraped('lookup-gateway', 'http')).toBe(false);
    for (const url of Object.values(prodUpstreams.upstreams)) {
      const svc = byName(services, new URL(url.url).hostname);
      expect(scraped(svc.metadata!.name!, svc.spec!.ports![0]!.name!)).toBe(true);
    }
  });

  it('alerts on 5xx rate, upstream down, store fallback and quota rejection spikes', () => {
    const rules = ofKind(objects, 'PrometheusRule', PrometheusRule).flatMap((r) =>
      (r.spec.groups ?? []).flatMap((g) => g.rules ?? []),
    );
    const alertUsing = (re: RegExp) => rules.some((r) => r.alert !== undefined && re.test(String(r.expr)));
    expect(alertUsing(/lookup_http_requests_total\{status=~"5\.\."\}/)).toBe(true);
    expect(alertUsing(/lookup_upstream_up/)).toBe(true);
    expect(alertUsing(/lookup_store_fallback_active/)).toBe(true);
    expect(alertUsing(/lookup_quota_rejections_total/)).toBe(true);
    for (const r of rules) {
      expect(r.labels?.severity).toMatch(/^(critical|warning|info)$/);
      expect(r.annotations?.summary).toBeDefined();
    }
  });
});

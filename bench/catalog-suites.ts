/** Suites (b) and (c): the bundled EC2 catalog with realistic workloads. */
import { loadCatalog } from '../shared/catalog';
import { buildInstanceTypes } from '../shared/core/instance-types/build';
import type { InstanceType } from '../shared/core/instance-types/types';
import type { Pod, TopologySpreadConstraint } from '../shared/core/model/kube';
import { Label } from '../shared/core/model/labels';
import { parseResourceList } from '../shared/core/model/resources';
import type { ExistingNode } from '../shared/core/scheduling/types';
import { nodePoolFor } from './pools';
import { timeSolve, type BenchRow } from './measure';
import { fromSeconds } from '../shared/core/time';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

export function catalogTypes(): InstanceType[] {
  return buildInstanceTypes(loadCatalog(), { region: 'us-east-1', zones: ZONES });
}

interface Deployment {
  name: string;
  replicas: number;
  cpu: string;
  memory: string;
  spread?: 'zone' | 'hostname';
  anti?: boolean;
  arch?: string;
  spot?: boolean;
}

/** A realistic mix: web tiers spread over zones, APIs with anti-affinity, workers, batch, caches. */
export const MIX: Deployment[] = [
  { name: 'web', replicas: 120, cpu: '250m', memory: '512Mi', spread: 'zone' },
  { name: 'api', replicas: 60, cpu: '500m', memory: '1Gi', spread: 'zone' },
  { name: 'auth', replicas: 12, cpu: '500m', memory: '768Mi', anti: true },
  { name: 'worker', replicas: 80, cpu: '1', memory: '2Gi' },
  { name: 'batch', replicas: 40, cpu: '2', memory: '4Gi', spot: true },
  { name: 'ml-feature', replicas: 20, cpu: '4', memory: '16Gi' },
  { name: 'cache', replicas: 9, cpu: '1', memory: '12Gi', spread: 'hostname' },
  { name: 'arm-svc', replicas: 30, cpu: '500m', memory: '1Gi', arch: 'arm64' },
  { name: 'cron', replicas: 50, cpu: '100m', memory: '128Mi' },
  { name: 'ingest', replicas: 45, cpu: '750m', memory: '1536Mi', spread: 'zone' },
];

export function deploymentPods(mix: Deployment[], scale: number, prefix = ''): Pod[] {
  const out: Pod[] = [];
  let t = 0;
  for (const d of mix) {
    const labels = { app: `${prefix}${d.name}` };
    const spread: TopologySpreadConstraint[] = d.spread
      ? [
          {
            maxSkew: 1,
            topologyKey: d.spread === 'zone' ? Label.zone : Label.hostname,
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: labels },
          },
        ]
      : [];
    for (let i = 0; i < Math.max(1, Math.round(d.replicas * scale)); i++) {
      const name = `${prefix}${d.name}-${i}`;
      out.push({
        uid: `default/${name}`,
        namespace: 'default',
        name,
        labels,
        annotations: {},
        creationTimestamp: fromSeconds(t++),
        phase: 'Pending',
        requests: parseResourceList({ cpu: d.cpu, memory: d.memory }),
        nodeSelector: { ...(d.arch ? { [Label.arch]: d.arch } : {}), ...(d.spot ? { [Label.capacityType]: 'spot' } : {}) },
        affinity: d.anti ? { podAntiAffinity: { required: [{ topologyKey: Label.hostname, labelSelector: { matchLabels: labels } }] } } : undefined,
        tolerations: [],
        topologySpreadConstraints: spread,
        hostPorts: [],
        volumeClaims: [],
        priority: 0,
        terminationGracePeriodSeconds: 30,
        owner: { kind: 'ReplicaSet', name: `${prefix}${d.name}` },
      });
    }
  }
  return out;
}

const defaultPool = () =>
  nodePoolFor('default', [
    { key: Label.capacityType, operator: 'In', values: ['spot', 'on-demand'] },
    { key: Label.instanceGeneration, operator: 'Gt', values: ['4'] },
  ]);

export function suiteB(): BenchRow[] {
  const types = catalogTypes();
  return [1, 4, 10].map((scale) => {
    const pods = deploymentPods(MIX, scale);
    return timeSolve(
      `b: catalog ${types.length} types`,
      { pods, nodePools: [defaultPool()], instanceTypes: { default: types }, existingNodes: [], daemonSets: [] },
      3,
    ).row;
  });
}

export function existingFleet(types: InstanceType[], count: number): ExistingNode[] {
  const m5 = types.find((t) => t.name === 'm5.2xlarge')!;
  return Array.from({ length: count }, (_, i) => {
    const name = `ip-10-0-${Math.floor(i / 250)}-${i % 250}.ec2.internal`;
    const pods = deploymentPods([{ name: `resident-${i % 40}`, replicas: 6, cpu: '1', memory: '3Gi' }], 1, `n${i}-`).map((p) => ({
      ...p,
      nodeName: name,
      phase: 'Running' as const,
    }));
    return {
      name,
      labels: { ...m5.labels, [Label.zone]: ZONES[i % 3], [Label.capacityType]: 'on-demand', [Label.hostname]: name, [Label.nodePool]: 'default' },
      taints: [],
      allocatable: m5.allocatable,
      capacity: m5.capacity,
      pods,
      nodePool: 'default',
      initialized: true,
    };
  });
}

export function suiteC(): BenchRow[] {
  const types = catalogTypes();
  const existing = existingFleet(types, 2000);
  const pods = deploymentPods(MIX, 40000 / MIX.reduce((n, d) => n + d.replicas, 0));
  return [
    timeSolve('c: 40k pending + 2k nodes', {
      pods: pods.slice(0, 40000),
      nodePools: [defaultPool()],
      instanceTypes: { default: types },
      existingNodes: existing,
      daemonSets: [],
    }).row,
  ];
}

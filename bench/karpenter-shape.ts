/** Karpenter's scheduling benchmark shape (docs/karpenter-reference.md §8): 400 fake types and "diverse" pods in fifths. */
import type { InstanceType } from '../shared/core/instance-types/types';
import type { Pod } from '../shared/core/model/kube';
import { Label } from '../shared/core/model/labels';
import { parseResourceList } from '../shared/core/model/resources';
import { fromSeconds } from '../shared/core/time';

/** Deterministic PRNG (mulberry32): benchmarks must give the same pods every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const ZONES = ['test-zone-1', 'test-zone-2', 'test-zone-3'];

export function fakeTypes(count = 400): InstanceType[] {
  return Array.from({ length: count }, (_, i) => {
    const cpu = i + 1;
    const capacity = parseResourceList({ cpu: String(cpu), memory: `${2 * cpu}Gi`, pods: String(10 * cpu) });
    const price = 0.1 * cpu + 0.1 * 2 * cpu;
    const name = `fake-it-${i}`;
    return {
      name,
      arch: 'amd64' as const,
      os: 'linux' as const,
      labels: { [Label.instanceType]: name, [Label.arch]: 'amd64', [Label.os]: 'linux' },
      capacity,
      overhead: { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} },
      allocatable: capacity,
      offerings: ZONES.flatMap((zone) => [
        { zone, capacityType: 'spot' as const, price: price * 0.7, available: true },
        { zone, capacityType: 'on-demand' as const, price, available: true },
      ]),
      exotic: false,
    };
  });
}

const CPUS = ['100m', '250m', '500m', '1', '1.5'];
const MEMS = ['100Mi', '256Mi', '512Mi', '1Gi', '2Gi', '4Gi'];
const LABEL_VALUES = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

export function diversePods(count: number, seed = 1): Pod[] {
  const r = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const fifth = Math.floor(count / 5);
  const out: Pod[] = [];
  let n = 0;
  const make = (labels: Record<string, string>, extra: Partial<Pod>): Pod => {
    const name = `bench-${n++}`;
    return {
      uid: `default/${name}`,
      namespace: 'default',
      name,
      labels,
      annotations: {},
      creationTimestamp: fromSeconds(n),
      phase: 'Pending',
      requests: parseResourceList({ cpu: pick(CPUS), memory: pick(MEMS) }),
      nodeSelector: {},
      tolerations: [],
      topologySpreadConstraints: [],
      hostPorts: [],
      volumeClaims: [],
      priority: 0,
      terminationGracePeriodSeconds: 30,
      ...extra,
    };
  };
  for (let i = 0; i < fifth; i++) out.push(make({}, {}));
  for (const key of [Label.zone, Label.hostname]) {
    for (let i = 0; i < fifth; i++) {
      out.push(
        make(
          { 'my-label': pick(LABEL_VALUES) },
          {
            topologySpreadConstraints: [
              { maxSkew: 1, topologyKey: key, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { 'my-label': pick(LABEL_VALUES) } } },
            ],
          },
        ),
      );
    }
  }
  for (let i = 0; i < fifth; i++) {
    const labels = { 'my-affinity': pick(LABEL_VALUES) };
    out.push(make(labels, { affinity: { podAffinity: { required: [{ topologyKey: Label.zone, labelSelector: { matchLabels: labels } }] } } }));
  }
  for (let i = 0; i < count - 4 * fifth; i++) {
    const labels = { app: 'nginx' };
    out.push(make(labels, { affinity: { podAntiAffinity: { required: [{ topologyKey: Label.hostname, labelSelector: { matchLabels: labels } }] } } }));
  }
  return out;
}

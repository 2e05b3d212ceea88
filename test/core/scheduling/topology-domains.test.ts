/**
 * Which domains a topology constraint sees, as Karpenter's topology tests pin it down
 * (pkg/controllers/provisioning/scheduling/topology_test.go): spread node filters (nodeAffinityPolicy,
 * nodeTaintsPolicy) exclude nodes and pools from the domains and the counts, and domains on other keys come
 * from the instance types a pool may launch.
 */
import { describe, expect, it } from 'vitest';
import type { TopologySpreadConstraint } from '../../../shared/core/model/kube';
import { existingNode, fakeInstanceTypes, instanceType, nodePool, pod, pods } from '../../fixtures/builders';
import { plan } from './helpers';

const SPREAD = 'fake-label';
const ARCH = 'kubernetes.io/arch';
const HOST = 'kubernetes.io/hostname';
const labels = { app: 'web' };
const spreadOn = (key: string, extra: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint => ({
  topologyKey: key,
  maxSkew: 1,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: labels },
  ...extra,
});
const taint = { key: 'taintname', value: 'taintvalue', effect: 'NoSchedule' as const };
const tinyNode = (name: string, nodeLabels: Record<string, string>, taints = [] as (typeof taint)[]) => {
  const n = existingNode(name, { type: fakeInstanceTypes()[0], zone: 'test-zone-1', labels: nodeLabels, taints });
  n.allocatable = { cpu: 0.1, memory: 2 ** 30, pods: 10 };
  return n;
};
const spreadCounts = (result: ReturnType<typeof plan>, key: string) => {
  const out: Record<string, number> = {};
  for (const c of result.nodeClaims) out[c.labels[key] ?? 'none'] = (out[c.labels[key] ?? 'none'] ?? 0) + c.pods.length;
  return out;
};

describe('nodeAffinityPolicy (spread node filter)', () => {
  const pool = nodePool({ labels: { [SPREAD]: 'baz', selector: 'value' } });
  const nodes = () => [tinyNode('n1', { [SPREAD]: 'foo', selector: 'mismatch' }), tinyNode('n2', { [SPREAD]: 'bar', selector: 'mismatch' })];

  it("Honor (the default): nodes the pod's nodeSelector excludes add no domain, so all pods go to the one it can reach", () => {
    const result = plan({
      pools: [pool],
      existing: nodes(),
      pods: pods(5, { cpu: '1', labels, nodeSelector: { selector: 'value' }, spread: [spreadOn(SPREAD)] }),
    });
    expect(result.unschedulable).toEqual([]);
    expect(spreadCounts(result, SPREAD)).toEqual({ baz: 5 });
  });

  it("Ignore: the excluded nodes' empty domains hold the minimum at 0, so only one pod can schedule", () => {
    const result = plan({
      pools: [pool],
      existing: nodes(),
      pods: pods(5, { cpu: '1', labels, nodeSelector: { selector: 'value' }, spread: [spreadOn(SPREAD, { nodeAffinityPolicy: 'Ignore' })] }),
    });
    expect(spreadCounts(result, SPREAD)).toEqual({ baz: 1 });
    expect(result.unschedulable).toHaveLength(4);
  });

  it('Honor: pods on nodes the filter excludes do not count', () => {
    const [def] = fakeInstanceTypes();
    const busy = existingNode('busy', {
      type: def,
      zone: 'test-zone-1',
      labels: { [SPREAD]: 'baz', selector: 'mismatch' },
      pods: pods(3, { cpu: '100m', labels }),
    });
    busy.allocatable = { cpu: 0.3, memory: 2 ** 30, pods: 10 };
    const pools = [
      nodePool({ name: 'a', labels: { [SPREAD]: 'baz', selector: 'value' } }),
      nodePool({ name: 'b', labels: { [SPREAD]: 'qux', selector: 'value' } }),
    ];
    const result = plan({ pools, existing: [busy], pods: pods(2, { cpu: '1', labels, nodeSelector: { selector: 'value' }, spread: [spreadOn(SPREAD)] }) });
    expect(spreadCounts(result, SPREAD)).toEqual({ baz: 1, qux: 1 });
  });
});

describe('nodeTaintsPolicy (spread node filter)', () => {
  it('Honor: tainted nodes the pod does not tolerate add no domain', () => {
    const pool = nodePool({ labels: { [SPREAD]: 'baz' } });
    const existing = [tinyNode('n1', { [SPREAD]: 'foo' }, [taint]), tinyNode('n2', { [SPREAD]: 'bar' }, [taint])];
    const honor = plan({ pools: [pool], existing, pods: pods(5, { cpu: '1', labels, spread: [spreadOn(SPREAD, { nodeTaintsPolicy: 'Honor' })] }) });
    expect(spreadCounts(honor, SPREAD)).toEqual({ baz: 5 });
    const ignore = plan({ pools: [pool], existing, pods: pods(5, { cpu: '1', labels, spread: [spreadOn(SPREAD)] }) });
    expect(spreadCounts(ignore, SPREAD)).toEqual({ baz: 1 });
  });

  it('Honor: domains only a tainted pool offers are not counted', () => {
    const pools = [
      nodePool({ name: 'default', requirements: [{ key: SPREAD, operator: 'In', values: ['foo'] }] }),
      nodePool({
        name: 'tainted',
        requirements: [{ key: SPREAD, operator: 'In', values: ['bar'] }],
        taints: [{ key: 'taint-key', value: 'v', effect: 'NoSchedule' }],
      }),
    ];
    const result = plan({ pools, pods: pods(2, { labels, spread: [spreadOn(SPREAD, { nodeTaintsPolicy: 'Honor' })] }) });
    expect(result.unschedulable).toEqual([]);
    expect(spreadCounts(result, SPREAD)).toEqual({ foo: 2 });
  });
});

describe('domains on instance-type keys', () => {
  it('anti-affinity on kubernetes.io/arch puts the second pod on the other architecture (domains from the types)', () => {
    const s = { security: 's2' };
    const hostSpread = [{ ...spreadOn(HOST), labelSelector: { matchLabels: s } }];
    const first = pod({ name: 'arm', cpu: '2', labels: s, spread: hostSpread, nodeSelector: { [ARCH]: 'arm64' } });
    const second = pod({
      name: 'other',
      cpu: '1',
      labels: s,
      spread: hostSpread,
      affinity: { podAntiAffinity: { required: [{ topologyKey: ARCH, labelSelector: { matchLabels: s } }] } },
    });
    const result = plan({ pods: [first, second] });
    expect(result.unschedulable).toEqual([]);
    const archOf = (name: string) => result.nodeClaims.find((c) => c.pods.some((p) => p.name === name))!.instanceTypes[0].labels[ARCH];
    expect(archOf('arm')).toBe('arm64');
    expect(archOf('other')).toBe('amd64');
  });

  it("a spread on an instance-type label balances across the values the pool's types have", () => {
    const types = [instanceType({ name: 'x86', cpu: '4', memory: '8Gi' }), instanceType({ name: 'graviton', cpu: '4', memory: '8Gi', arch: 'arm64' })];
    const result = plan({ types, pods: pods(4, { cpu: '3', labels, spread: [spreadOn(ARCH)] }) });
    const byArch: Record<string, number> = {};
    for (const c of result.nodeClaims) for (const it of [c.instanceTypes[0]]) byArch[it.labels[ARCH]] = (byArch[it.labels[ARCH]] ?? 0) + c.pods.length;
    expect(byArch).toEqual({ amd64: 2, arm64: 2 });
  });
});

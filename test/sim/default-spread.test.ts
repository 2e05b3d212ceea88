/**
 * Karpenter's SCHEDULER_CONFIG through the deployed path (the `schedulerConfig` parameter): nodewright plans for the
 * cluster kube-scheduler's default topology spread — pods that declare no constraints get nodes in every zone the
 * default asks for, instead of all in one zone where kube-scheduler would leave them pending.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';

const scenario = (schedulerConfig?: string) => `
name: default-spread
seed: 3
duration: 15m
${schedulerConfig ? `settings:\n  schedulerConfig: '${schedulerConfig}'` : ''}
objects: |
${objects(nodePool('default', ['{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}']), NODE_CLASS, deployment('web', 'nginx', '{cpu: "1", memory: 1Gi}', 3))}
`;

describe('SCHEDULER_CONFIG default topology spread', () => {
  it('should spread pods without constraints across zones when the cluster default says so, and refuse a config kube-scheduler would', async () => {
    const zones = '{podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]}}';
    const spread = await runScenario(parseScenario(scenario(zones), 'spread.yaml'));
    const packed = await runScenario(parseScenario(scenario(), 'packed.yaml'));
    expect(spread.violations.podsLost).toBe(0);
    expect(spread.final.pendingPods).toBe(0);
    expect(new Set(spread.nodes.map((n) => n.zone)).size).toBe(3);
    expect(new Set(packed.nodes.map((n) => n.zone)).size).toBe(1);
    expect(() =>
      parseScenario(scenario('{podTopologySpread: {defaultConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}}'), 'bad.yaml'),
    ).toThrow(/settings\.schedulerConfig: scheduler config podTopologySpread\.defaultConstraints\[0\]\.maxSkew/);
  }, 120_000);
});

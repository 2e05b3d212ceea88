/**
 * kube-scheduler's default topology spread as Karpenter's DefaultTopologySpreadInjector applies it
 * (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/defaultconstraints.go): only to pods without
 * constraints of their own, with the selector deduced from the Services that select the pod and its controller.
 */
import { describe, expect, it } from 'vitest';
import type { TopologySpreadConstraint } from '../../../shared/core/model/kube';
import { defaultSelector, ownerKey, withDefaultSpread } from '../../../shared/core/scheduling/default-spread';
import { pod } from '../../fixtures/builders';

const zone: TopologySpreadConstraint = { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' };
const web = () => ({
  ...pod({ name: 'web-1', labels: { app: 'web', tier: 'front', 'pod-template-hash': 'abc' } }),
  owner: { kind: 'ReplicaSet', name: 'web-abc', controller: true },
});

describe('default topology spread (SCHEDULER_CONFIG)', () => {
  it("should merge the selecting Services' selectors and add the ReplicaSet's as expressions", () => {
    const owners = new Map([[ownerKey('default', 'ReplicaSet', 'web-abc'), { matchLabels: { app: 'web', 'pod-template-hash': 'abc' } }]]);
    const services: { namespace: string; selector?: Record<string, string> }[] = [
      { namespace: 'default', selector: { app: 'web' } },
      { namespace: 'default', selector: { tier: 'front' } },
      { namespace: 'default', selector: { app: 'api' } },
      { namespace: 'other', selector: { app: 'web' } },
      { namespace: 'default' },
    ];
    expect(defaultSelector(web(), { services, owners })).toEqual({
      matchLabels: { app: 'web', tier: 'front' },
      matchExpressions: [
        { key: 'app', operator: 'In', values: ['web'] },
        { key: 'pod-template-hash', operator: 'In', values: ['abc'] },
      ],
    });
  });

  it('should leave a pod with constraints of its own, or without any selector to deduce, as it is', () => {
    const own = { ...web(), topologySpreadConstraints: [{ ...zone, topologyKey: 'kubernetes.io/hostname' }] };
    const bare = pod({ name: 'bare', labels: { x: 'y' } });
    const [a, b, c] = withDefaultSpread([own, bare, web()], [zone], { services: [{ namespace: 'default', selector: { app: 'web' } }], owners: new Map() });
    expect(a).toBe(own);
    expect(b).toBe(bare);
    expect(c.topologySpreadConstraints).toEqual([{ ...zone, labelSelector: { matchLabels: { app: 'web' } } }]);
  });
});

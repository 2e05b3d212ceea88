import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../shared/core/model/kube';
import { Label } from '../../../shared/core/model/labels';
import { ExistingModel } from '../../../shared/core/scheduling/existing-model';
import type { ExistingNode } from '../../../shared/core/scheduling/types';
import { existingNode, fakeInstanceTypes, pod } from '../../fixtures/builders';
import { plan } from './helpers';

/** Nodes with some room, pods with host ports, hostname anti-affinity and zone spread; one node marked for deletion. */
function nodes(): ExistingNode[] {
  const types = fakeInstanceTypes();
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  return Array.from({ length: 9 }, (_, i) =>
    existingNode(`node-${i}`, {
      type: types[2 + (i % 3)],
      zone: zones[i % 3],
      markedForDeletion: i === 4,
      pods: [
        pod({ name: `run-${i}`, cpu: `${500 + 250 * i}m`, labels: { app: i % 2 ? 'web' : 'db' }, hostPorts: i % 3 === 0 ? [8080] : [] }),
        ...(i % 4 === 0
          ? [
              pod({
                name: `solo-${i}`,
                cpu: '100m',
                labels: { app: 'solo' },
                affinity: { podAntiAffinity: { required: [{ topologyKey: Label.hostname, labelSelector: { matchLabels: { app: 'solo' } } }] } },
              }),
            ]
          : []),
      ],
    }),
  );
}

const moving = () => [
  ...Array.from({ length: 6 }, (_, i) =>
    pod({
      name: `web-${i}`,
      cpu: '700m',
      labels: { app: 'web' },
      spread: [{ maxSkew: 1, topologyKey: Label.zone, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }],
    }),
  ),
  pod({
    name: 'solo-new',
    cpu: '100m',
    labels: { app: 'solo' },
    affinity: { podAntiAffinity: { required: [{ topologyKey: Label.hostname, labelSelector: { matchLabels: { app: 'solo' } } }] } },
  }),
  pod({ name: 'ported', cpu: '200m', hostPorts: [8080] }),
  pod({ name: 'disk', cpu: '100m', requests: { 'ephemeral-storage': '1Gi' } }),
];

describe('existing-node models shared by the solves of a disruption pass', () => {
  it('should plan every solve as it would alone, whatever nodes each excludes and in any order', () => {
    // Prepare: the same cluster, solved with excluded sets one after another (single- and multi-node simulations)
    const existing = nodes();
    const pods = moving();
    const excludes = [[], ['node-0'], ['node-8'], ['node-1', 'node-2', 'node-7'], ['node-0'], ['node-3', 'node-5'], [], ['node-6']];
    const model = new ExistingModel();
    const daemonSets: DaemonSet[] = []; // one array: the model is kept for the same cluster objects only

    // Act
    const shared = excludes.map((ex) => plan({ pods, existing, daemonSets, options: { excludeNodes: new Set(ex), existingModel: model } }));
    const alone = excludes.map((ex) => plan({ pods, existing, options: { excludeNodes: new Set(ex) } }));

    // Assess: same claims, placements and reasons — nothing one solve placed is left for the next
    expect(shared).toEqual(alone);
    expect(alone[1].existingPlacements.some((e) => e.node === 'node-0')).toBe(false);
    expect(alone[0].existingPlacements.length).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from 'vitest';
import { localFunctions, LocalWorkflowStarter, type InvokeFunction } from '../../shared/sim/sfn';
import { fakes, node, nodeClaim } from '../fakes/lifecycle';
import { epochMs } from '../../shared/core/time';

describe('LocalWorkflowStarter', () => {
  it('should run the executions a machine starts, with the same handlers, and treat a repeated name as already started', async () => {
    // Prepare
    const f = fakes();
    const pid = 'aws:///eu-west-1a/i-0abc000000000005';
    f.cluster.claims.set('default-old01', nodeClaim('default-old01', { providerID: pid, nodeName: 'n5' }));
    f.cluster.nodes.set('n5', node('n5', { providerID: pid, taints: [] }));
    f.cloud.instances.set(pid, {
      instanceId: 'i-0abc000000000005',
      providerID: pid,
      instanceType: 'm5.large',
      zone: 'eu-west-1a',
      capacityType: 'spot',
      launchTime: epochMs(0),
      state: 'running',
      tags: {},
    });
    let invoke: InvokeFunction = async () => undefined;
    const workflows = new LocalWorkflowStarter({ invoke: (key, payload) => invoke(key, payload), clock: f.clock });
    invoke = localFunctions({ ...f, workflows });

    // Act
    await workflows.start('disrupt', 'empty-1', { reason: 'Empty', candidates: [{ nodeClaimName: 'default-old01' }], replacements: [] });
    const again = await workflows.start('disrupt', 'empty-1', { reason: 'Empty', candidates: [{ nodeClaimName: 'default-old01' }], replacements: [] });
    const results = await workflows.settle();

    // Assess
    expect(again.alreadyStarted).toBe(true);
    expect(workflows.started.map((s) => s.machine)).toEqual(['disrupt', 'terminate']);
    expect(results.map((r) => r.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    expect(f.cluster.claims.has('default-old01')).toBe(false);
    expect(f.cloud.instances.get(pid)?.state).toBe('shutting-down');
  });
});

/**
 * The terminate and launch machines with the real KubeClusterClient against the fake API server
 * (shared/sim/kube): the lifecycle use cases meet the adapter's actual write semantics (merge patches,
 * Eviction API with PDBs, finalizers). EC2 stays a fake of the CloudProvider port.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeClusterClient } from '../../shared/adapters/kubernetes';
import { MemoryStateStore } from '../../shared/adapters/aws/state-store/memory';
import { localFunctions, runLocalExecution } from '../../shared/sim/sfn';
import type { Fakes } from '../fakes/lifecycle';
import { FakeClock, FakeCloud, RecordingLogger, RecordingMetrics, RecordingWorkflows, nodeClaim } from '../fakes/lifecycle';
import { nodeClassJson, nodeJson, nodePoolJson, pdbJson, podJson, startHarness, T0, type Harness } from '../sim/kube/fixtures';
import { epochMs } from '../../shared/core/time';

const PID = 'aws:///eu-west-1a/i-0abc000000000077';

describe('state machines with the real Kubernetes client', () => {
  let h: Harness;
  let deps: Omit<Fakes, 'cluster'> & { cluster: KubeClusterClient };
  const put = (apiVersion: string, kind: string, obj: Parameters<Harness['api']['store']['create']>[2], ns?: string) =>
    h.api.store.create(h.api.store.typeOf(apiVersion, kind), ns, obj);
  const exists = (apiVersion: string, kind: string, name: string, ns?: string) => !!h.api.store.tryGet(h.api.store.typeOf(apiVersion, kind), ns, name);

  beforeEach(async () => {
    h = await startHarness();
    const clock = new FakeClock(T0);
    clock.sleep = async (ms) => {
      clock.advance(ms);
      h.clock.now = clock.now();
    };
    deps = {
      cluster: new KubeClusterClient(h.kc, { now: () => clock.now() }),
      cloud: new FakeCloud(),
      workflows: new RecordingWorkflows(),
      store: new MemoryStateStore(clock),
      clock,
      log: new RecordingLogger(),
      metrics: new RecordingMetrics(),
    };
    put('karpenter.sh/v1', 'NodePool', nodePoolJson('default'));
    put('karpenter.k8s.aws/v1', 'EC2NodeClass', nodeClassJson('default'));
  });
  afterEach(async () => {
    await h.close();
  });

  it('should drain through a PDB that is relaxed later, then terminate and remove node and claim', async () => {
    // Prepare
    put('v1', 'Node', nodeJson('node-a', { providerID: PID }));
    put('v1', 'Pod', podJson('web-1', { nodeName: 'node-a', labels: { app: 'web' }, ready: true, owner: { kind: 'ReplicaSet', name: 'web-1234' } }), 'default');
    put('policy/v1', 'PodDisruptionBudget', pdbJson('web', { app: 'web' }, { minAvailable: 1 }), 'default');
    await deps.cluster.createNodeClaim(nodeClaim('default-abcde'));
    await deps.cluster.patchNodeClaimStatus('default-abcde', { providerID: PID, nodeName: 'node-a' });
    deps.cloud.instances.set(PID, {
      instanceId: 'i-0abc000000000077',
      providerID: PID,
      instanceType: 'm5.large',
      zone: 'eu-west-1a',
      capacityType: 'spot',
      launchTime: epochMs(0),
      state: 'running',
      tags: {},
    });
    let waits = 0;
    const onWait = () => {
      if (++waits === 2) h.api.store.delete(h.api.store.typeOf('policy/v1', 'PodDisruptionBudget'), 'default', 'web');
    };

    // Act
    const run = await runLocalExecution('terminate', { nodeName: 'node-a' }, { invoke: localFunctions(deps), clock: deps.clock, onWait });

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    expect(waits).toBeGreaterThanOrEqual(2);
    expect(exists('v1', 'Pod', 'web-1', 'default')).toBe(false);
    expect(exists('v1', 'Node', 'node-a')).toBe(false);
    expect(exists('karpenter.sh/v1', 'NodeClaim', 'default-abcde')).toBe(false);
    expect(deps.cloud.instances.get(PID)?.state).toBe('shutting-down');
  });

  it('should launch a claim, register its node and initialize it', async () => {
    // Prepare
    await deps.cluster.createNodeClaim(nodeClaim('default-fghij'));
    const onWait = (state: string) => {
      if (state !== 'WaitForRegistration') return;
      for (const inst of deps.cloud.instances.values()) {
        if (!exists('v1', 'Node', 'node-new'))
          put('v1', 'Node', {
            ...nodeJson('node-new', { providerID: inst.providerID }),
            spec: { providerID: inst.providerID, taints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }] },
          } as never);
      }
    };

    // Act
    const run = await runLocalExecution('launch', { nodeClaimName: 'default-fghij' }, { invoke: localFunctions(deps), clock: deps.clock, onWait });

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    const node = await deps.cluster.getNode('node-new');
    expect(node?.labels).toMatchObject({ 'karpenter.sh/registered': 'true', 'karpenter.sh/initialized': 'true' });
    expect(node?.taints.map((t) => t.key)).not.toContain('karpenter.sh/unregistered');
    const claim = await deps.cluster.getNodeClaim('default-fghij');
    expect(claim?.status.conditions.filter((c) => c.status === 'True').map((c) => c.type)).toEqual(
      expect.arrayContaining(['Launched', 'Registered', 'Initialized']),
    );
    expect(claim?.status.providerID).toBe([...deps.cloud.instances.keys()][0]);
  });
});

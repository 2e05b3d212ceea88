/**
 * The simulated attach/detach controller is no kinder than the world: a pod's zonal EBS volume attaches in seconds on
 * a node of its zone, detaches in seconds once its pod is gone, and stays stuck for 6 minutes when its node's
 * instance goes first — the wait nodewright's termination avoids (examples/scenarios/stateful-rollout.yaml).
 */
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../shared/catalog';
import { settle, VirtualClock } from '../../../shared/sim/clock';
import { Ec2World } from '../../../shared/sim/aws/ec2-world';
import { nodeObjectFor, startClusterControllers } from '../../../shared/sim/cluster';
import { newVolumeStats } from '../../../shared/sim/cluster/attach-detach';
import { FakeKubeApi } from '../../../shared/sim/kube';

const T0 = Date.UTC(2025, 0, 1);
const VOLUME = 'kubernetes.io/csi/ebs.csi.aws.com^vol-0db';

function setup() {
  const clock = new VirtualClock(T0);
  const api = new FakeKubeApi({ clock: () => clock.now() });
  const ec2 = new Ec2World({ region: 'us-east-1', zones: ['us-east-1a', 'us-east-1b'], clusterName: 'sim', seed: 1, clock, catalog: loadCatalog() });
  const store = api.store;
  const addNode = (zone: string) => {
    const i = ec2.launch({
      type: 'm5.xlarge',
      zone,
      subnetId: ec2.subnets.find((s) => s.zone === zone)?.id ?? '',
      capacityType: 'on-demand',
      imageId: 'ami-1',
      securityGroupIds: [],
      tags: {},
      clientToken: `node-${zone}-${clock.now()}`,
      userData: '--node-labels=karpenter.sh/nodepool=default',
    });
    ec2.markRunning(i);
    const node = nodeObjectFor(ec2, i, store.timestamp());
    node.spec = { ...node.spec, taints: [] };
    return { instance: i, name: String(store.create(store.typeOf('v1', 'Node'), undefined, node).metadata.name) };
  };
  api.apply({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv-db' },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0db' },
      claimRef: { namespace: 'default', name: 'data' },
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }] }] },
      },
    },
  });
  api.apply({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data', namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], volumeName: 'pv-db', resources: { requests: { storage: '10Gi' } } },
  });
  api.apply({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'db', namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'db' } },
      template: {
        metadata: { labels: { app: 'db' } },
        spec: {
          containers: [{ name: 'db', image: 'postgres', resources: { requests: { cpu: '1' } } }],
          volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
        },
      },
    },
  });
  const stats = newVolumeStats();
  const stop = startClusterControllers(clock, ec2, store, { startupSeconds: 1, volumeStats: stats });
  const after = async (seconds: number) => {
    const end = clock.now() + seconds * 1000;
    do await settle(clock);
    while (clock.advance(end));
    await settle(clock);
  };
  const dbPod = () => store.scan(store.typeOf('v1', 'Pod'))[0];
  const phase = () => (dbPod()?.status as { phase?: string } | undefined)?.phase;
  const attached = (node: string) =>
    ((store.peek(store.typeOf('v1', 'Node'), undefined, node)?.status as { volumesAttached?: { name: string }[] }).volumesAttached ?? []).map((v) => v.name);
  return { clock, ec2, store, addNode, stats, stop, after, dbPod, phase, attached };
}

describe('the simulated attach/detach controller', () => {
  it("should start the pod only on a node of its volume's zone, once the volume is attached there, and list it on the node", async () => {
    // Prepare
    const w = setup();
    const b = w.addNode('us-east-1b');
    const a = w.addNode('us-east-1a');
    try {
      // Act
      await w.after(1);
      const early = w.phase();
      await w.after(10);
      // Assess
      expect((w.dbPod().spec as { nodeName: string }).nodeName).toBe(a.name);
      expect(early).toBe('Pending');
      expect(w.phase()).toBe('Running');
      expect(w.attached(a.name)).toEqual([VOLUME]);
      expect(w.attached(b.name)).toEqual([]);
    } finally {
      w.stop();
    }
  });

  it("should hold the volume for 6 minutes when its node's instance goes before it is detached, and the moved pod with it", async () => {
    // Prepare: the database runs on one node of its zone; a second node of the zone waits.
    const w = setup();
    const first = w.addNode('us-east-1a');
    await w.after(15);
    const second = w.addNode('us-east-1a');
    const nodes = w.store.typeOf('v1', 'Node');
    try {
      // Act: the first node's instance is terminated and its Node deleted while the volume is attached (no detach wait).
      w.ec2.terminate(first.instance.id, 'test');
      w.store.delete(nodes, undefined, first.name);
      await w.after(60);
      const stuck = w.phase();
      await w.after(360);
      // Assess
      expect((w.dbPod().spec as { nodeName: string }).nodeName).toBe(second.name);
      expect(stuck).toBe('Pending');
      expect(w.phase()).toBe('Running');
      expect(w.stats.forceDetaches).toBe(1);
      expect(w.stats.multiAttachWaits).toBe(1);
      expect(w.stats.maxStartWaitSeconds).toBeGreaterThanOrEqual(360);
    } finally {
      w.stop();
    }
  });
});

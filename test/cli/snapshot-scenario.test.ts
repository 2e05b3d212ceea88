import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { snapshotScenario } from '../../cli/snapshot-scenario';
import { parseScenario } from '../../shared/sim';

type Item = Parameters<typeof snapshotScenario>[0][number];
const obj = (apiVersion: string, kind: string, metadata: Item['metadata'], rest: Partial<Item> = {}): Item => ({ apiVersion, kind, metadata, ...rest });

const node = (name: string, pool: string | undefined, type: string, zone: string, capacityType: string) =>
  obj('v1', 'Node', {
    name,
    labels: {
      ...(pool ? { 'karpenter.sh/nodepool': pool, 'karpenter.sh/capacity-type': capacityType } : {}),
      'node.kubernetes.io/instance-type': type,
      'topology.kubernetes.io/zone': zone,
      'topology.kubernetes.io/region': 'us-east-1',
    },
  });
const claim = (name: string, nodeName: string, hashVersion: string) =>
  obj(
    'karpenter.sh/v1',
    'NodeClaim',
    { name, labels: { 'karpenter.sh/nodepool': 'default' }, annotations: { 'karpenter.sh/nodepool-hash-version': hashVersion } },
    { status: { nodeName } },
  );
const pod = (
  name: string,
  nodeName: string | undefined,
  owner?: { kind: string; name: string },
  extra: { labels?: Record<string, string>; spec?: object } = {},
) =>
  obj(
    'v1',
    'Pod',
    {
      name,
      namespace: 'shop',
      ...(extra.labels ? { labels: extra.labels } : {}),
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', ...owner, controller: true, uid: `${owner.name}-uid` }] } : {}),
      uid: `${name}-uid`,
      resourceVersion: '42',
    },
    {
      spec: {
        ...(nodeName ? { nodeName } : {}),
        priority: 0,
        containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '500m' } } }],
        ...extra.spec,
      },
      status: { phase: nodeName ? 'Running' : 'Pending' },
    },
  );

const CLUSTER: Item[] = [
  obj(
    'karpenter.sh/v1',
    'NodePool',
    { name: 'default', uid: 'p', annotations: { 'karpenter.sh/nodepool-hash': '1', 'karpenter.sh/nodepool-hash-version': 'v3' } },
    {
      spec: {
        template: {
          spec: {
            requirements: [{ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m'] }],
            nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          },
        },
      },
      status: { resources: { cpu: '6' } },
    },
  ),
  obj(
    'karpenter.k8s.aws/v1',
    'EC2NodeClass',
    { name: 'default' },
    {
      spec: {
        role: 'KarpenterNodeRole-shop',
        amiSelectorTerms: [{ alias: 'al2023@latest' }],
        subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'shop' } }],
        securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'shop' } }],
      },
      status: {
        subnets: [
          { id: 'subnet-a', zone: 'us-east-1a' },
          { id: 'subnet-b', zone: 'us-east-1b' },
        ],
      },
    },
  ),
  obj('v1', 'Namespace', { name: 'shop', labels: { team: 'shop' } }),
  obj('v1', 'Namespace', { name: 'kube-system' }),
  node('n1', 'default', 'm6i.large', 'us-east-1a', 'spot'),
  node('n2', 'default', 'm6i.xlarge', 'us-east-1b', 'on-demand'),
  node('mng-1', undefined, 'm5.large', 'us-east-1a', ''),
  claim('default-x7k2p', 'n1', 'v3'),
  claim('default-9f3kq', 'n2', 'nodewright-v1'),
  pod('web-7d9f8-abcde', 'n1', { kind: 'ReplicaSet', name: 'web-7d9f8' }, { labels: { app: 'web', 'pod-template-hash': '7d9f8' } }),
  pod('web-7d9f8-fghij', 'n2', { kind: 'ReplicaSet', name: 'web-7d9f8' }, { labels: { app: 'web', 'pod-template-hash': '7d9f8' } }),
  // Mid-rollout: a pod of the Deployment's new ReplicaSet.
  pod('web-5c6b4-zzzzz', undefined, { kind: 'ReplicaSet', name: 'web-5c6b4' }, { labels: { app: 'web', 'pod-template-hash': '5c6b4' } }),
  pod(
    'db-0',
    'n2',
    { kind: 'StatefulSet', name: 'db' },
    {
      labels: { app: 'db', 'statefulset.kubernetes.io/pod-name': 'db-0' },
      spec: {
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } },
          { name: 'config', configMap: { name: 'db' } },
        ],
        containers: [
          {
            name: 'db',
            image: 'postgres',
            volumeMounts: [
              { name: 'data', mountPath: '/data' },
              { name: 'config', mountPath: '/etc/db' },
            ],
          },
        ],
      },
    },
  ),
  pod('agent-x', 'n1', { kind: 'DaemonSet', name: 'agent' }),
  pod('lonely', undefined),
  pod('coredns-1', 'mng-1', { kind: 'ReplicaSet', name: 'coredns-55b' }),
];

describe('a cluster read as a scenario (snapshotScenario)', () => {
  const s = snapshotScenario(CLUSTER, { server: 'https://ABC.eks.amazonaws.com', at: '2026-11-29T09:00:00.000Z', duration: '30m' });
  const doc = parse(s.text.replace(/^#.*\n/gm, '')) as { objects: string; fleet: object[]; zones: string[]; region: string };
  const objects = doc.objects.split(/^---$/m).map((d) => parse(d) as Item);
  const deployments = objects.filter((o) => o.kind === 'Deployment');

  it('should count the nodes NodePools launched, by who launched them, and leave the others out with a note', () => {
    expect(doc.fleet).toEqual([
      { nodePool: 'default', instanceType: 'm6i.large', capacityType: 'spot', zone: 'us-east-1a', launchedBy: 'karpenter', count: 1 },
      { nodePool: 'default', instanceType: 'm6i.xlarge', capacityType: 'on-demand', zone: 'us-east-1b', launchedBy: 'nodewright', count: 1 },
    ]);
    expect(doc.region).toBe('us-east-1');
    expect(doc.zones).toEqual(['us-east-1a', 'us-east-1b']);
    expect(s.notes).toEqual([
      '1 node(s) no NodePool launched (a managed node group, Fargate) are not replayed, nor the pods bound to them',
      'PersistentVolumeClaim volumes are not replayed (1 volume name(s)): their zonal topology does not constrain the replay',
    ]);
    expect(s.text.split('\n').slice(0, 2)).toEqual([
      '# Written by `nodewright snapshot` from https://ABC.eks.amazonaws.com at 2026-11-29T09:00:00.000Z.',
      '# Replay it: nodewright simulate <this file>',
    ]);
  });

  it('should make one Deployment per owner (a Deployment mid-rollout once) with its pods as replicas, not bound, without controller labels or PVC volumes', () => {
    expect(deployments.map((d) => [d.metadata.namespace, d.metadata.name, (d.spec as { replicas: number }).replicas])).toEqual([
      ['shop', 'lonely', 1],
      ['shop', 'statefulset-db', 1],
      ['shop', 'web', 3],
    ]);
    const web = deployments.find((d) => d.metadata.name === 'web')!.spec as { template: { metadata: { labels: object }; spec: { nodeName?: string } } };
    expect(web.template.metadata.labels).toEqual({ app: 'web', 'nodewright.io/snapshot-group': 'web' });
    expect(web.template.spec.nodeName).toBeUndefined();
    const db = deployments.find((d) => d.metadata.name === 'statefulset-db')!.spec as {
      template: { spec: { volumes: object[]; containers: { volumeMounts: object[] }[] } };
    };
    expect(db.template.spec.volumes).toEqual([{ name: 'config', configMap: { name: 'db' } }]);
    expect(db.template.spec.containers[0].volumeMounts).toEqual([{ name: 'config', mountPath: '/etc/db' }]);
  });

  it('should keep the pools and classes as applied (no status, no hashes), the non-system namespaces, and parse as a scenario', () => {
    const pool = objects.find((o) => o.kind === 'NodePool')!;
    expect(pool.metadata).toEqual({ name: 'default' });
    expect(pool.status).toBeUndefined();
    expect(objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name)).toEqual(['shop']);
    const scenario = parseScenario(s.text, 'snapshot.yaml');
    expect(scenario.durationSeconds).toBe(1800);
    expect(scenario.fleet.map((e) => e.count)).toEqual([1, 1]);
  });
});

/**
 * The ClusterRole infra/kubernetes/rbac.yaml (which docs/deploy.md tells users to apply) must allow every Kubernetes call the code makes — derived
 * from the code: every client-node API method the adapters call and every resource the controller watches is
 * mapped to (group, resource, verb), and a method the table does not know fails the test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const ADAPTERS = new URL('shared/adapters/kubernetes/', ROOT);

/** client-node method → what RBAC must allow. Custom-object calls are expanded per Karpenter resource below. */
const METHODS: Record<string, [group: string, resource: string, verb: string][]> = {
  'core.listPodForAllNamespaces': [['', 'pods', 'list']],
  'core.listNode': [['', 'nodes', 'list']],
  'core.readNode': [['', 'nodes', 'get']],
  'core.patchNode': [['', 'nodes', 'patch']],
  'core.deleteNode': [['', 'nodes', 'delete']],
  'core.deleteNamespacedPod': [['', 'pods', 'delete']],
  'core.createNamespacedPodEviction': [['', 'pods/eviction', 'create']],
  'core.patchNamespacedPodStatus': [['', 'pods/status', 'patch']],
  'core.patchNamespacedPod': [['', 'pods', 'patch']],
  'core.createNamespacedEvent': [['', 'events', 'create']],
  'core.readNamespacedEvent': [['', 'events', 'get']],
  'core.patchNamespacedEvent': [['', 'events', 'patch']],
  'core.listPersistentVolume': [['', 'persistentvolumes', 'list']],
  'core.listNamespace': [['', 'namespaces', 'list']],
  'core.listPersistentVolumeClaimForAllNamespaces': [['', 'persistentvolumeclaims', 'list']],
  'core.readNamespacedPersistentVolumeClaim': [['', 'persistentvolumeclaims', 'get']],
  'core.readPersistentVolume': [['', 'persistentvolumes', 'get']],
  'core.readNamespacedPodTemplate': [['', 'podtemplates', 'get']],
  'core.listServiceForAllNamespaces': [['', 'services', 'list']],
  'core.listPodTemplateForAllNamespaces': [['', 'podtemplates', 'list']],
  'apps.readNamespacedDeployment': [['apps', 'deployments', 'get']],
  'apps.readNamespacedReplicaSet': [['apps', 'replicasets', 'get']],
  'apps.readNamespacedStatefulSet': [['apps', 'statefulsets', 'get']],
  'custom.getNamespacedCustomObject': [['autoscaling.x-k8s.io', 'capacitybuffers', 'get']],
  'custom.patchNamespacedCustomObjectStatus': [['autoscaling.x-k8s.io', 'capacitybuffers/status', 'patch']],
  'apps.listDaemonSetForAllNamespaces': [['apps', 'daemonsets', 'list']],
  'policy.listPodDisruptionBudgetForAllNamespaces': [['policy', 'poddisruptionbudgets', 'list']],
  'storage.listStorageClass': [['storage.k8s.io', 'storageclasses', 'list']],
  'scheduling.listPriorityClass': [['scheduling.k8s.io', 'priorityclasses', 'list']],
  'coordination.readNamespacedLease': [['coordination.k8s.io', 'leases', 'get']],
  'custom.listClusterCustomObject': [
    ['karpenter.sh', 'nodepools', 'list'],
    ['karpenter.sh', 'nodeclaims', 'list'],
    ['karpenter.k8s.aws', 'ec2nodeclasses', 'list'],
    ['karpenter.sh', 'nodeoverlays', 'list'],
    ['autoscaling.x-k8s.io', 'capacitybuffers', 'list'],
  ],
  'custom.getClusterCustomObject': [
    ['karpenter.sh', 'nodeclaims', 'get'],
    ['karpenter.sh', 'nodepools', 'get'],
    ['karpenter.k8s.aws', 'ec2nodeclasses', 'get'],
    ['karpenter.sh', 'nodeoverlays', 'get'],
  ],
  'custom.createClusterCustomObject': [['karpenter.sh', 'nodeclaims', 'create']],
  'custom.patchClusterCustomObject': [['karpenter.sh', 'nodeclaims', 'patch']],
  'custom.patchClusterCustomObjectStatus': [
    ['karpenter.sh', 'nodeclaims/status', 'patch'],
    ['karpenter.sh', 'nodeoverlays/status', 'patch'],
    ['karpenter.sh', 'nodepools/status', 'patch'],
    ['karpenter.k8s.aws', 'ec2nodeclasses/status', 'patch'],
  ],
  'custom.deleteClusterCustomObject': [['karpenter.sh', 'nodeclaims', 'delete']],
};
/** The controller's watch streams (shared/adapters/kubernetes/watch.ts): a LIST, then a WATCH, of each kind. */
const WATCHES: [string, string, string][] = (
  [
    ['', 'pods'],
    ['', 'nodes'],
    ['karpenter.sh', 'nodeclaims'],
    ['karpenter.sh', 'nodepools'],
    ['karpenter.k8s.aws', 'ec2nodeclasses'],
  ] as const
).flatMap(([g, r]) => [
  [g, r, 'list'],
  [g, r, 'watch'],
]);

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };

function clusterRole(): Rule[] {
  const text = readFileSync(new URL('infra/kubernetes/rbac.yaml', ROOT), 'utf8');
  const role = parseAllDocuments(text)
    .map((d) => d.toJS() as { kind?: string; rules?: Rule[] })
    .find((d) => d.kind === 'ClusterRole');
  return role?.rules ?? [];
}

describe('the ClusterRole of infra/kubernetes/rbac.yaml', () => {
  it('should be the one the deploy guide applies', () => {
    expect(readFileSync(new URL('docs/deploy.md', ROOT), 'utf8')).toContain('kubectl apply -f infra/kubernetes/rbac.yaml');
  });

  it('should cover every Kubernetes call the adapters make and every watch of the controller', () => {
    // Prepare
    const source = readdirSync(ADAPTERS)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => readFileSync(new URL(f, ADAPTERS), 'utf8'))
      .join('\n');
    const called = [...new Set([...source.matchAll(/\b(core|apps|policy|storage|scheduling|coordination|custom)\.(\w+)\(/g)].map((m) => `${m[1]}.${m[2]}`))];
    const rules = clusterRole();
    const allowed = (g: string, r: string, v: string) => rules.some((x) => x.apiGroups.includes(g) && x.resources.includes(r) && x.verbs.includes(v));
    // Act
    const unknown = called.filter((m) => !(m in METHODS));
    const missing = [...called.flatMap((m) => METHODS[m] ?? []), ...WATCHES]
      .filter(([g, r, v]) => !allowed(g, r, v))
      .map(([g, r, v]) => `${v} ${g || 'core'}/${r}`);
    // Assess
    expect(unknown, 'methods called by the adapters that this table does not map yet').toEqual([]);
    expect(missing).toEqual([]);
  });
});

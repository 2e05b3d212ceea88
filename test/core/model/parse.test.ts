import { describe, expect, it } from 'vitest';
import { mergeManifestSets, parseManifestFiles, parseManifests, workloadPods } from '../../../shared/core/model/manifests';
import { documentValues } from '../../../shared/core/model/manifests/parse';
import { fixture, repoFile, shippedManifests, validationError } from './helpers';

const deployment = (name: string, replicas: number, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}${extra}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: c, image: pause, resources: {requests: {cpu: "1"}}}]
`;

describe('parseManifests workloads', () => {
  it('should expand the seed inflate Deployment into named pods owned by a ReplicaSet', () => {
    // Act
    const set = parseManifests(fixture('seed-000-getting-started.yaml'), 'seed-000.yaml');

    // Assess
    expect(set.pods.map((p) => p.name)).toEqual(['inflate-0', 'inflate-1', 'inflate-2', 'inflate-3', 'inflate-4']);
    const p = set.pods[0];
    expect(p.namespace).toBe('default');
    expect(p.uid).toBe('default/inflate-0');
    expect(p.labels).toEqual({ app: 'inflate' });
    expect(p.owner).toMatchObject({ kind: 'ReplicaSet', name: 'inflate', controller: true });
    expect(p.requests).toEqual({ cpu: 1000, memory: 1.5 * 2 ** 30 });
    expect(p.terminationGracePeriodSeconds).toBe(0);
    expect(p.creationTimestamp).toBe(0);
    expect(set.deployments).toHaveLength(1);
    expect(set.deployments[0]).toMatchObject({ kind: 'Deployment', namespace: 'default', name: 'inflate', replicas: 5 });
  });

  it('should let a simulator scale a workload to any replica count', () => {
    // Prepare
    const set = parseManifests(deployment('inflate', 0), 'app.yaml');

    // Act
    const pods = workloadPods(set.deployments[0], 3);

    // Assess
    expect(set.pods).toEqual([]);
    expect(pods.map((p) => p.name)).toEqual(['inflate-0', 'inflate-1', 'inflate-2']);
    expect(new Set(pods.map((p) => p.uid)).size).toBe(3);
  });

  it('should expand StatefulSets with their volume claims, Jobs by parallelism, and keep the namespace', () => {
    // Prepare
    const text = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, resources: {requests: {memory: 1Gi}}}]}
  volumeClaimTemplates:
    - metadata: {name: pgdata}
      spec: {storageClassName: gp3, resources: {requests: {storage: 10Gi}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: etl, namespace: data}
spec:
  parallelism: 3
  completions: 10
  template:
    spec: {containers: [{name: c, resources: {requests: {cpu: 2}}}]}
`;

    // Act
    const set = parseManifests(text, 'data.yaml');

    // Assess
    expect(set.pods.map((p) => `${p.namespace}/${p.name}:${p.owner?.kind}`)).toEqual([
      'data/db-0:StatefulSet',
      'data/db-1:StatefulSet',
      'data/etl-0:Job',
      'data/etl-1:Job',
      'data/etl-2:Job',
    ]);
    expect(set.pods[1].volumeClaims).toEqual([{ claimName: 'pgdata-db-1' }]);
    expect(set.persistentVolumeClaims).toEqual([
      { namespace: 'data', name: 'pgdata-db-0', storageClassName: 'gp3', phase: 'Pending' },
      { namespace: 'data', name: 'pgdata-db-1', storageClassName: 'gp3', phase: 'Pending' },
    ]);
  });

  it('should resolve pod priority and overhead from PriorityClass and RuntimeClass objects in the set', () => {
    // Prepare
    const text = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: kata}
handler: kata
overhead: {podFixed: {cpu: 250m, memory: 160Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  priorityClassName: high
  runtimeClassName: kata
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
`;

    // Act
    const set = parseManifests(text, 'pods.yaml');

    // Assess
    expect(set.pods[0].priority).toBe(1000);
    expect(set.pods[0].requests).toEqual({ cpu: 1250, memory: 160 * 2 ** 20 });
    expect(set.priorityClasses).toEqual([{ name: 'high', value: 1000 }]);
  });

  it('should keep DaemonSets as templates and leave DaemonSet-owned pods out of the pending pods', () => {
    // Prepare
    const text = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  template:
    metadata: {labels: {app: agent}}
    spec:
      priorityClassName: system-node-critical
      tolerations: [{operator: Exists}]
      containers: [{name: c, resources: {requests: {cpu: 100m, memory: 128Mi}}, ports: [{containerPort: 9100, hostPort: 9100}]}]
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-x1
  namespace: kube-system
  ownerReferences: [{kind: DaemonSet, name: agent, controller: true}]
spec: {containers: [{name: c}]}
`;

    // Act
    const set = parseManifests(text, 'ds.yaml');

    // Assess
    expect(set.pods).toEqual([]);
    expect(set.daemonSets).toHaveLength(1);
    const tpl = set.daemonSets[0].template;
    expect(tpl.requests).toEqual({ cpu: 100, memory: 128 * 2 ** 20 });
    expect(tpl.hostPorts).toEqual([{ port: 9100, protocol: 'TCP' }]);
    expect(tpl.priority).toBe(2000001000);
    expect(tpl.owner?.kind).toBe('DaemonSet');
  });
});

describe('parseManifests documents', () => {
  it('should read List items, cluster objects, and warn on kinds it does not use', () => {
    // Prepare
    const text = `apiVersion: v1
kind: List
items:
  - apiVersion: storage.k8s.io/v1
    kind: StorageClass
    metadata: {name: gp3, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
    provisioner: ebs.csi.aws.com
    volumeBindingMode: WaitForFirstConsumer
  - apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata: {name: web}
    spec: {minAvailable: "50%", selector: {matchLabels: {app: web}}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec:
  storageClassName: gp3
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}
  claimRef: {namespace: default, name: data}
  nodeAffinity:
    required:
      nodeSelectorTerms: [{matchExpressions: [{key: topology.ebs.csi.aws.com/zone, operator: In, values: [us-west-2a]}]}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {beta.kubernetes.io/arch: amd64}}
spec: {providerID: "aws:///us-west-2a/i-1", taints: [{key: a, effect: NoSchedule}]}
status:
  capacity: {cpu: "2", memory: 8Gi, pods: "29"}
  allocatable: {cpu: 1930m, memory: 7Gi, pods: "29"}
  conditions: [{type: Ready, status: "True"}]
---
`;

    // Act
    const set = parseManifests(text, 'cluster.yaml');

    // Assess
    expect(set.storageClasses).toEqual([
      { name: 'gp3', provisioner: 'ebs.csi.aws.com', volumeBindingMode: 'WaitForFirstConsumer', isDefault: true, creationTimestamp: 0 },
    ]);
    expect(set.pdbs).toEqual([{ namespace: 'default', name: 'web', minAvailable: '50%', selector: { matchLabels: { app: 'web' } } }]);
    expect(set.persistentVolumes[0]).toMatchObject({ name: 'pv-1', csiDriver: 'ebs.csi.aws.com', claimRef: { namespace: 'default', name: 'data' } });
    expect(set.persistentVolumes[0].nodeAffinity?.[0].matchExpressions[0].values).toEqual(['us-west-2a']);
    expect(set.nodes[0]).toMatchObject({
      name: 'n1',
      ready: true,
      providerID: 'aws:///us-west-2a/i-1',
      allocatable: { cpu: 1930, memory: 7 * 2 ** 30, pods: 29 },
    });
    expect(set.nodes[0].labels['kubernetes.io/arch']).toBe('amd64');
    expect(set.warnings).toEqual([{ file: 'cluster.yaml', documentIndex: 2, message: 'Ingress web is not used by nodewright; ignored' }]);
  });

  it('should report invalid YAML with the file and document number', () => {
    // Act
    const err = validationError(() => parseManifests('a: 1\n---\nkind: [unclosed\n', 'broken.yaml'));

    // Assess
    expect(err.file).toBe('broken.yaml');
    expect(err.documentIndex).toBe(1);
    expect(err.problem).toMatch(/invalid YAML/);
  });

  it('should name the document of an invalid NodePool', () => {
    // Prepare
    const text = `${deployment('a', 1)}---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n      requirements: []\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n  weight: 500\n`;

    // Act
    const err = validationError(() => parseManifests(text, 'pools.yaml'));

    // Assess
    expect(err.message).toBe('pools.yaml: document 2: spec.weight: weight must be between 1 and 100');
  });

  it('should merge sets so later definitions replace earlier ones', () => {
    // Prepare
    const a = parseManifests(`${deployment('web', 3)}---\n${deployment('api', 1)}`, 'a.yaml');
    const b = parseManifests(deployment('web', 2, ', namespace: default'), 'b.yaml');

    // Act
    const merged = mergeManifestSets(a, b);

    // Assess
    expect(merged.deployments.map((d) => `${d.name}:${d.replicas}`)).toEqual(['api:1', 'web:2']);
    expect(merged.pods.map((p) => p.name).sort()).toEqual(['api-0', 'web-0', 'web-1']);
  });

  it('should resolve PriorityClasses across files when parsed together', () => {
    // Act
    const set = parseManifestFiles([
      { file: 'pc.yaml', text: 'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: -5\nglobalDefault: true\n' },
      { file: 'app.yaml', text: deployment('web', 1) },
    ]);

    // Assess
    expect(set.pods[0].priority).toBe(-5);
  });

  it('should warn about fields a v1 NodePool or EC2NodeClass does not have', () => {
    // Prepare
    const text = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: typo, labels: {a: b}}
spec:
  template:
    spec:
      requirements: [{key: kubernetes.io/os, operator: In, values: [linux], minvalues: 1}]
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption: {consolidateafter: 5m}
`;

    // Act
    const set = parseManifests(text, 'typo.yaml');

    // Assess
    expect(set.nodePools[0].disruption.consolidateAfter).toBe(0);
    expect(set.warnings.map((w) => w.message)).toEqual([
      'NodePool typo: unknown field spec.template.spec.requirements[0].minvalues was ignored',
      'NodePool typo: unknown field spec.disruption.consolidateafter was ignored',
    ]);
  });

  it('should read API list responses whose items carry no kind', () => {
    // Prepare
    const text = 'apiVersion: v1\nkind: PodList\nitems:\n  - metadata: {name: a}\n    spec: {containers: []}\n';

    // Act
    const set = parseManifests(text, 'pods.yaml');

    // Assess
    expect(set.pods.map((p) => p.name)).toEqual(['a']);
  });

  it('should name the template field of a workload with a bad quantity', () => {
    // Act
    const err = validationError(() => parseManifests(deployment('web', 1).replace('cpu: "1"', 'cpu: "1 core"'), 'web.yaml'));

    // Assess
    expect(err.path).toBe('spec.template.spec.containers[0].resources.requests.cpu');
    expect(err.problem).toBe('invalid quantity "1 core"');
  });

  it('should read YAML merge keys and skip empty documents', () => {
    // Prepare
    const text =
      '---\n# nothing here\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        <<: {cpu: "2"}\n        memory: 1Gi\n';

    // Act
    const set = parseManifests(text, 'merge.yaml');

    // Assess
    expect(set.pods[0].requests).toEqual({ cpu: 2000, memory: 2 ** 30 });
    expect(set.warnings).toEqual([]);
  });
});

describe('the fast YAML path (js-yaml for plain manifests)', () => {
  it.each(shippedManifests())('reads %s exactly as the yaml library does', (f) => {
    const text = repoFile(f);
    expect(documentValues(text, f)).toEqual(documentValues(text, f, false));
  });

  it('reads merge keys, YAML 1.2 scalars and empty documents the same way', () => {
    const text = 'a: &x {b: 1}\nc: *x\n---\n---\nd: {<<: {e: 2}, f: 0o17, g: yes, h: ~, i: 2026-01-01, j: 1e3, k: .inf}\n';
    const plain = text.replace('&x {b: 1}', '{b: 1}').replace('*x', '{b: 1}');
    expect(documentValues(text, 'x')).toEqual(documentValues(text, 'x', false));
    expect(documentValues(plain, 'x')).toEqual(documentValues(plain, 'x', false));
  });

  it('leaves duplicate keys, tags and invalid YAML to the yaml library and its messages', () => {
    const err = validationError(() => parseManifests('kind: Pod\nkind: Node\n', 'dup.yaml'));
    expect(err.problem).toMatch(/invalid YAML/);
  });
});

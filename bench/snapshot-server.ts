/**
 * A fake API server holding a cluster of EKS-sized objects, for bench/snapshot-memory.ts (run in its own process so
 * its memory is not the reader's): `node --import tsx bench/snapshot-server.ts <pods>` prints `<url> <token>`.
 * Pods ~6.5 KB (managedFields, env, probes, volumes, tolerations, conditions, container statuses) on nodes of ~9 KB
 * (images, addresses, conditions), 10 pods per node.
 */
import { createFakeKubeApi } from '../shared/sim/kube';

const pods = Number(process.argv[2] ?? 10_000);
const nodes = Math.ceil(pods / 10);
const TOKEN = 'bench-token';
const api = createFakeKubeApi({ clock: () => Date.UTC(2026, 10, 27), token: TOKEN });
const store = api.store;
const at = '2026-11-27T00:00:00Z';

const managedFields = (manager: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    manager: `${manager}-${i}`,
    operation: 'Update',
    apiVersion: 'v1',
    time: at,
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} } }, 'f:status': { 'f:conditions': { '.': {} } } },
  }));

function node(i: number) {
  const name = `ip-10-0-${i >> 8}-${i & 255}.ec2.internal`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'node.kubernetes.io/instance-type': 'm6i.4xlarge',
        'karpenter.sh/nodepool': 'default',
        'karpenter.sh/registered': 'true',
        'topology.kubernetes.io/zone': 'us-east-1a',
      },
      annotations: {
        'alpha.kubernetes.io/provided-node-ip': '10.0.0.1',
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
      managedFields: managedFields('kubelet', 4),
    },
    spec: { providerID: `aws:///us-east-1a/i-${(1e16 + i).toString(16)}` },
    status: {
      capacity: { cpu: '16', memory: '64Gi', pods: '234', 'ephemeral-storage': '20Gi' },
      allocatable: { cpu: '15890m', memory: '62Gi', pods: '234', 'ephemeral-storage': '18Gi' },
      conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({
        type,
        status: type === 'Ready' ? 'True' : 'False',
        lastHeartbeatTime: at,
        lastTransitionTime: at,
        reason: `Kubelet${type}`,
        message: `kubelet reports ${type}`,
      })),
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: name },
        { type: 'InternalDNS', address: name },
      ],
      images: Array.from({ length: 25 }, (_, k) => ({
        names: [
          `602401143452.dkr.ecr.us-east-1.amazonaws.com/image-${k}@sha256:${'a'.repeat(64)}`,
          `602401143452.dkr.ecr.us-east-1.amazonaws.com/image-${k}:v1.${k}`,
        ],
        sizeBytes: 1e8 + k,
      })),
      nodeInfo: {
        kubeletVersion: 'v1.31.0-eks-1234567',
        containerRuntimeVersion: 'containerd://1.7.22',
        osImage: 'Amazon Linux 2023',
        architecture: 'amd64',
        operatingSystem: 'linux',
        kernelVersion: '6.1.0',
        kubeProxyVersion: 'v1.31.0',
        machineID: 'm',
        systemUUID: 's',
        bootID: 'b',
      },
    },
  };
}

function pod(i: number) {
  const app = `svc-${i % 200}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${app}-7d9f8b6c5d-${i.toString(36).padStart(5, '0')}`,
      namespace: `team-${i % 20}`,
      labels: { app, 'pod-template-hash': '7d9f8b6c5d', 'app.kubernetes.io/part-of': 'shop', version: 'v1' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': at, 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-7d9f8b6c5d`, uid: 'rs-uid', controller: true, blockOwnerDeletion: true }],
      managedFields: managedFields('kube-controller-manager', 5),
    },
    spec: {
      nodeName: node(Math.floor(i / 10)).metadata.name,
      containers: [
        {
          name: 'app',
          image: `123456789012.dkr.ecr.us-east-1.amazonaws.com/${app}:v1.2.3`,
          resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '1Gi' } },
          env: Array.from({ length: 36 }, (_, k) => ({ name: `SETTING_${k}`, value: `value-of-setting-number-${k}` })),
          ports: [{ containerPort: 8080, protocol: 'TCP', name: 'http' }],
          readinessProbe: {
            httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' },
            periodSeconds: 10,
            timeoutSeconds: 1,
            successThreshold: 1,
            failureThreshold: 3,
          },
          volumeMounts: [{ name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      volumes: [
        {
          name: 'kube-api-access',
          projected: {
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            ],
            defaultMode: 420,
          },
        },
      ],
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      schedulerName: 'default-scheduler',
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase: 'Running',
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
        type,
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: at,
      })),
      hostIP: '10.0.0.1',
      podIP: '10.0.1.2',
      podIPs: [{ ip: '10.0.1.2' }],
      startTime: at,
      qosClass: 'Burstable',
      containerStatuses: [
        {
          name: 'app',
          ready: true,
          restartCount: 0,
          started: true,
          image: `123456789012.dkr.ecr.us-east-1.amazonaws.com/${app}:v1.2.3`,
          imageID: `123456789012.dkr.ecr.us-east-1.amazonaws.com/${app}@sha256:${'b'.repeat(64)}`,
          containerID: `containerd://${'c'.repeat(64)}`,
          state: { running: { startedAt: at } },
          lastState: {},
        },
      ],
    },
  };
}

for (let i = 0; i < nodes; i++) store.create(store.typeOf('v1', 'Node'), undefined, node(i) as never);
for (let i = 0; i < pods; i++) store.create(store.typeOf('v1', 'Pod'), pod(i).metadata.namespace, pod(i) as never);
const server = await api.listen();
const sample = JSON.stringify(pod(0)).length;
console.log(`${server.url} ${TOKEN} ${sample} ${JSON.stringify(node(0)).length}`);
